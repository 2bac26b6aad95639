#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import CZlib
import Dispatch
import SystemPackage

/// How a line ended.
public enum LineEnding: Sendable, Equatable {
    /// Ended by `\n` (a `\r` before it is removed).
    case newline
    /// The last line of the input, with no `\n` after it: read if it parses, else a torn line.
    case endOfInput
}

/// One line as the reader hands it over: the bytes are valid only during the callback.
public struct RawLine {
    /// The line's bytes without its line end; for an over-long line, only its first
    /// `maxLineBytes` bytes.
    public var bytes: UnsafeBufferPointer<UInt8>
    /// 1-based, counting every line, blank ones too, in the decompressed text.
    public var number: Int64
    public var ending: LineEnding
    /// The full length when the line was longer than the limit (its tail was skipped, never held).
    public var overlongLength: Int?

    /// The bytes it took in the input, its line end included (as file reports and the
    /// progress line count them).
    public var inputBytes: Int64 { Int64(overlongLength ?? bytes.count) + 1 }

    /// Empty, or only spaces, tabs and `\r` (docs/events-and-rules.md).
    public var isBlank: Bool {
        for byte in bytes where byte != 0x20 && byte != 0x09 && byte != 0x0D { return false }
        return true
    }
}

extension RawLine {
    /// A line as a reader would hand it over (for a line kept and handed on later).
    package init(kept bytes: UnsafeBufferPointer<UInt8>, number: Int64, ending: LineEnding, overlongLength: Int?) {
        self.bytes = bytes
        self.number = number
        self.ending = ending
        self.overlongLength = overlongLength
    }
}

/// Why an input could not be read completely.
public struct InputError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case notFound = "not_found"
        case isDirectory = "is_directory"
        case unreadable
        case corruptGzip = "corrupt_gzip"
        case truncatedGzip = "truncated_gzip"
        /// Input declared grouped by session whose sessions are not contiguous.
        case notGrouped = "not_grouped"
    }

    /// What the user can do about it, as a fact: the command line phrases it (with its options'
    /// names) into `message`, which a library leaves without one.
    public enum Remedy: Sendable, Equatable {
        /// The input is not grouped by session: audit it as ungrouped input.
        case readUngrouped
        /// A temporary file could not be made: choose another temporary directory.
        case chooseTemporaryDirectory
    }

    public var code: Code
    public var path: String
    public var message: String
    /// The last line read before the error, when some lines were read.
    public var afterLine: Int64?
    /// Not phrased into `message` yet.
    public var remedy: Remedy?

    public init(code: Code, path: String, message: String, afterLine: Int64? = nil, remedy: Remedy? = nil) {
        self.code = code
        self.path = path
        self.message = message
        self.afterLine = afterLine
        self.remedy = remedy
    }

    public var description: String {
        var text = "\(path): \(message)"
        if let afterLine { text += " (after line \(afterLine); the lines before it were audited)" }
        return text
    }
}

/// What reading a file found besides its lines: which file it was (a regular file's device
/// and inode), whether it was gzip, and how many bytes of a plain file were read (to its end at
/// the time), so that its lines can be found again in place (`InputWindow`).
package final class ReadFacts {
    package var identity: (device: UInt64, inode: UInt64)?
    package var isGzip = false
    package var bytes: Int64 = 0

    package init() {}
}

/// Whether an input is gzip: by its name, or by its first bytes (`0x1F 0x8B`), as every reader
/// decides it.
package func isGzip(path: String, firstBytes bytes: some Collection<UInt8>) -> Bool {
    path.hasSuffix(".gz") || bytes.starts(with: [0x1F, 0x8B])
}

/// Streams the lines of a file, plain or gzip, in large reads, without a `String` per line.
///
/// Memory stays bounded by the read size plus `maxLineBytes`: a line longer than the limit is
/// never held whole; its first `maxLineBytes` bytes are kept (for the quarantine) and the rest
/// is skipped. gzip goes through the system zlib, with multi-member files supported.
public struct LineReader {
    public static let defaultMaxLineBytes = 1_048_576
    public var maxLineBytes: Int
    public var chunkSize: Int

    public init(maxLineBytes: Int = LineReader.defaultMaxLineBytes, chunkSize: Int = 1 << 20) {
        self.maxLineBytes = max(1, maxLineBytes)
        self.chunkSize = max(4096, chunkSize)
    }

    /// Reads every line of `path` (`-` for standard input) and calls `body` for each one.
    ///
    /// - Returns: the number of lines read.
    /// - Throws: `InputError` when the file cannot be opened, or when its gzip stream is corrupt
    ///   or truncated; the lines before the error have already been handed over.
    @discardableResult
    public func readLines(of path: String, _ body: (RawLine) throws -> Void) throws -> Int64 {
        try readLines(of: path, copyingTo: nil, body)
    }

    /// The same, writing every byte read (before gzip is inflated) to `copy` as well: how
    /// standard input is kept, to be read again (`AuditEngine`, sessions folded twice).
    package func readLines(
        of path: String, copyingTo copy: Int32?, facts: ReadFacts? = nil, _ body: (RawLine) throws -> Void
    ) throws -> Int64 {
        let descriptor = path == "-" ? FileDescriptor.standardInput : try FileDescriptor.opening(path)
        defer { if path != "-" { try? descriptor.close() } }
        let copy = copy.map(FileDescriptor.init(rawValue:))
        var status = stat()
        if fstat(descriptor.rawValue, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR {
            throw InputError(code: .isDirectory, path: path, message: InputResolver.directoryMessage(path))
        }
        if let facts, path != "-", (status.st_mode & S_IFMT) == S_IFREG {
            facts.identity = (UInt64(status.st_dev), UInt64(status.st_ino))
        }
        var splitter = LineSplitter(maxLineBytes: maxLineBytes)
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        // Read at least two bytes (or to the end) before deciding on gzip: a pipe may deliver
        // the first byte alone.
        var firstCount = try readChunk(descriptor, into: &buffer, path: path, copy: copy)
        while firstCount == 1 {
            let more = try buffer.withUnsafeMutableBytes { raw in
                try read(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: raw[1...]), path: path, copy: copy)
            }
            if more == 0 { break }
            firstCount += more
        }
        let gzip = isGzip(path: path, firstBytes: buffer.prefix(firstCount))
        facts?.isGzip = gzip
        if gzip {
            let inflater = try GzipInflater(path: path)
            // Read and inflated on a thread of its own, a few blocks ahead of the splitting.
            let ahead = InflateAhead()
            let first = firstCount
            nonisolated(unsafe) var readBuffer = buffer
            ahead.start { deliver in
                var count = first
                while true {
                    let finished = count == 0
                    do {
                        try readBuffer.withUnsafeBufferPointer { input in
                            try inflater.feed(UnsafeBufferPointer(rebasing: input[0..<count]), finished: finished, deliver)
                        }
                    } catch let error as InputError {
                        throw InflateAhead.Failure(error: error, whileInflating: true)
                    }
                    if finished { break }
                    count = try self.readChunk(descriptor, into: &readBuffer, path: path, copy: copy)
                }
            }
            defer { ahead.stop() }  // before the descriptor is closed
            do {
                try ahead.forEachBlock { try splitter.feed($0, body) }
            } catch let failure as InflateAhead.Failure {
                var error = failure.error
                if failure.whileInflating { error.afterLine = splitter.lineNumber > 0 ? splitter.lineNumber : nil }
                throw error
            }
        } else {
            var count = firstCount
            while count > 0 {
                facts?.bytes += Int64(count)
                try buffer.withUnsafeBufferPointer { try splitter.feed(UnsafeBufferPointer(rebasing: $0[0..<count]), body) }
                count = try readChunk(descriptor, into: &buffer, path: path, copy: copy)
            }
        }
        try splitter.finish(body)
        return splitter.lineNumber
    }

    /// Reads every line of a mapped file. A line's bytes point into the mapping, unless the
    /// reader had to assemble them (an over-long line, an unterminated last line).
    package func readLines(of mapped: MappedInput, _ body: (RawLine) throws -> Void) throws -> Int64 {
        mapped.willRead()
        var splitter = LineSplitter(maxLineBytes: maxLineBytes)
        try splitter.feed(mapped.bytes, body)
        try splitter.finish(body)
        return splitter.lineNumber
    }

    private func readChunk(_ descriptor: FileDescriptor, into buffer: inout [UInt8], path: String, copy: FileDescriptor?) throws -> Int {
        try buffer.withUnsafeMutableBytes { try read(descriptor, into: $0, path: path, copy: copy) }
    }

    /// One `read(2)` (retried when interrupted), and what it read written to `copy` too.
    @inline(__always)
    private func read(
        _ descriptor: FileDescriptor, into raw: UnsafeMutableRawBufferPointer, path: String, copy: FileDescriptor?
    ) throws -> Int {
        let count = try descriptor.readOrThrow(into: raw, path: path)
        if let copy { try copy.writeAll(UnsafeRawBufferPointer(rebasing: raw[..<count]), path: path) }
        return count
    }
}

extension InputError {
    package static func opening(_ path: String, errno code: Int32) -> InputError {
        switch code {
        case ENOENT where path.unicodeScalars.contains("\u{FFFD}"):
            // Swift's strings hold UTF-8 only: a name with other bytes reaches us with U+FFFD in
            // their place, and that name does not exist. Say so rather than "no such file".
            return InputError(
                code: .notFound, path: path,
                message: "no such file; if its name has bytes that are not UTF-8 (shown as \u{FFFD}), navreplay cannot open it: rename it")
        case ENOENT: return InputError(code: .notFound, path: path, message: "no such file")
        case EISDIR: return InputError(code: .isDirectory, path: path, message: "is a directory")
        default:
            let reason = String(cString: strerror(code))
            return InputError(code: .unreadable, path: path, message: "cannot be read: \(reason)")
        }
    }
}

/// Splits a byte stream into lines across chunk boundaries.
package struct LineSplitter {
    package let maxLineBytes: Int
    package private(set) var lineNumber: Int64 = 0
    /// The start of a line that continues in the next chunk (at most `maxLineBytes` bytes).
    private var carry: [UInt8] = []
    /// The full length of the current line when it is over the limit.
    private var overlongLength: Int?
    /// The last byte of the current line so far, to leave a `\r` out of an over-long line's length.
    private var lastByte: UInt8 = 0

    package init(maxLineBytes: Int) {
        self.maxLineBytes = maxLineBytes
    }

    package mutating func feed(_ chunk: UnsafeBufferPointer<UInt8>, _ body: (RawLine) throws -> Void) throws {
        guard let base = chunk.baseAddress, !chunk.isEmpty else { return }
        var start = 0
        while start < chunk.count {
            let remaining = chunk.count - start
            guard let found = memchr(base + start, 0x0A, remaining) else {
                append(UnsafeBufferPointer(start: base + start, count: remaining))
                return
            }
            let end = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            let piece = UnsafeBufferPointer(start: base + start, count: end - start)
            if carry.isEmpty && overlongLength == nil && piece.count <= maxLineBytes + 1 {
                // The common case: the whole line is inside this chunk.
                try emit(piece, ending: .newline, body)
            } else {
                append(piece)
                try flushCarry(ending: .newline, body)
            }
            start = end + 1
        }
    }

    package mutating func finish(_ body: (RawLine) throws -> Void) throws {
        if !carry.isEmpty || overlongLength != nil {
            try flushCarry(ending: .endOfInput, body)
        }
    }

    private mutating func append(_ piece: UnsafeBufferPointer<UInt8>) {
        if let last = piece.last { lastByte = last }
        let total = (overlongLength ?? carry.count) + piece.count
        // Keep one byte past the limit so that a trailing `\r` can still be removed.
        let room = maxLineBytes + 1 - carry.count
        if room > 0 { carry.append(contentsOf: UnsafeBufferPointer(rebasing: piece[0..<min(room, piece.count)])) }
        if total > maxLineBytes + 1 || overlongLength != nil { overlongLength = total }
    }

    private mutating func flushCarry(ending: LineEnding, _ body: (RawLine) throws -> Void) throws {
        let overlong = overlongLength
        overlongLength = nil
        defer { carry.removeAll(keepingCapacity: carry.count <= 1 << 16) }
        try carry.withUnsafeBufferPointer { try emitChecked($0, ending: ending, knownLength: overlong, body) }
    }

    private mutating func emit(_ piece: UnsafeBufferPointer<UInt8>, ending: LineEnding, _ body: (RawLine) throws -> Void) throws {
        try emitChecked(piece, ending: ending, knownLength: nil, body)
    }

    private mutating func emitChecked(
        _ piece: UnsafeBufferPointer<UInt8>, ending: LineEnding, knownLength: Int?, _ body: (RawLine) throws -> Void
    ) throws {
        lineNumber += 1
        var length = knownLength ?? piece.count
        var bytes = piece
        if ending == .newline, knownLength == nil, let last = bytes.last, last == 0x0D {
            bytes = UnsafeBufferPointer(rebasing: bytes[0..<(bytes.count - 1)])
            length -= 1
        } else if ending == .newline, knownLength != nil, lastByte == 0x0D {
            length -= 1  // an over-long line's tail was skipped, but its `\r` is still no content
        }
        if length > maxLineBytes {
            let kept = UnsafeBufferPointer(rebasing: bytes[0..<min(bytes.count, maxLineBytes)])
            try body(RawLine(bytes: kept, number: lineNumber, ending: ending, overlongLength: length))
        } else {
            try body(RawLine(bytes: bytes, number: lineNumber, ending: ending, overlongLength: nil))
        }
    }
}

/// Reads and inflates a gzip input on a thread of its own, a few blocks ahead of the thread that
/// splits its lines: zlib's inflate (about 250 MB/s of output on the bench machine) was about half
/// of that thread's time on a gzip log, and ran serially with the rest of it.
///
/// The blocks go round a ring: the inflating thread fills a free one and hands it on, the reader
/// takes them in order and frees each once its lines are handed on. An error ends the stream
/// after the blocks before it; a reader that stops early stops the inflating thread.
package final class InflateAhead: @unchecked Sendable {
    // @unchecked: a block and its length are written by the inflating thread only between
    // waiting on `free` and signalling `filled`, and read by the reader only between waiting on
    // `filled` and signalling `free`; `stopped` and `failure` are read and written under `lock`.
    package struct Failure: Error {
        var error: InputError
        /// From the gzip stream (reported with the line it follows), not from reading the file.
        var whileInflating: Bool
    }

    private struct Stopped: Error {}

    private static let blockCount = 8
    private static let blockBytes = 1 << 18
    private let blocks: UnsafeMutablePointer<UInt8>
    /// Each block's length, and whether it is the last.
    private let lengths: UnsafeMutablePointer<Int>
    private let lasts: UnsafeMutablePointer<Bool>
    // Made at 0 and signalled up: a semaphore freed with a count below the one it was made with
    // is a fatal error in libdispatch, and a reader that stops early leaves blocks taken.
    private let free = DispatchSemaphore(value: 0)
    private let filled = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let lock = NSLockLike()
    private var stopped = false
    private var failure: (any Error)?
    private var started = false

    package init() {
        blocks = .allocate(capacity: InflateAhead.blockCount * InflateAhead.blockBytes)
        lengths = .allocate(capacity: InflateAhead.blockCount)
        lengths.initialize(repeating: 0, count: InflateAhead.blockCount)
        lasts = .allocate(capacity: InflateAhead.blockCount)
        lasts.initialize(repeating: false, count: InflateAhead.blockCount)
        for _ in 0..<InflateAhead.blockCount { free.signal() }
    }

    deinit {
        blocks.deallocate()
        lengths.deallocate()
        lasts.deallocate()
    }

    /// Runs `produce` on a thread of its own. It hands each piece of its output to `deliver`,
    /// which copies it into the ring (waiting for a free block) and throws once the reader
    /// has stopped. What `produce` throws ends the stream, and `forEachBlock` throws it.
    package func start(_ produce: @escaping (_ deliver: (UnsafeBufferPointer<UInt8>) throws -> Void) throws -> Void) {
        started = true
        nonisolated(unsafe) let produce = produce
        // A queue of its own: it runs on an overcommitting pool, so waiting here for a free
        // block never holds back a decoding job.
        DispatchQueue(label: "navreplay.inflate").async { [self] in
            var index = 0
            var length = 0
            var block: UnsafeMutablePointer<UInt8>?
            func take() throws {
                free.wait()
                if lock.withLock({ stopped }) { throw Stopped() }
                block = blocks + (index % InflateAhead.blockCount) * InflateAhead.blockBytes
            }
            func publish(last: Bool) {
                lengths[index % InflateAhead.blockCount] = length
                lasts[index % InflateAhead.blockCount] = last
                filled.signal()
                index += 1
                length = 0
                block = nil
            }
            do {
                try produce { output in
                    var offset = 0
                    while offset < output.count {
                        if block == nil { try take() }
                        let count = min(InflateAhead.blockBytes - length, output.count - offset)
                        (block! + length).update(from: output.baseAddress! + offset, count: count)
                        length += count
                        offset += count
                        if length == InflateAhead.blockBytes { publish(last: false) }
                    }
                }
                if block == nil { try take() }
            } catch {
                if !(error is Stopped) { lock.withLock { failure = error } }
                if block == nil { free.wait() }  // the reader frees a block, or `stop` does
            }
            publish(last: true)  // the rest, perhaps nothing, and the end
            finished.signal()
        }
    }

    /// Hands each block to `body`, in order, to the end of the stream; then throws what the
    /// producer threw, if anything.
    package func forEachBlock(_ body: (UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        var index = 0
        while true {
            filled.wait()
            let slot = index % InflateAhead.blockCount
            let length = lengths[slot]
            let last = lasts[slot]
            if length > 0 {
                try body(UnsafeBufferPointer(start: blocks + slot * InflateAhead.blockBytes, count: length))
            }
            index += 1
            free.signal()
            if last { break }
        }
        if let failure = lock.withLock({ failure }) { throw failure }
    }

    /// Stops the inflating thread (the reader may have stopped early) and waits for it.
    package func stop() {
        guard started else { return }
        lock.withLock { stopped = true }
        // Enough for every wait the inflating thread may still make.
        for _ in 0..<2 { free.signal() }
        finished.wait()
    }
}

/// Incremental gzip decompression through the system zlib (multi-member aware).
///
/// As `gzip -t` does, it takes zero bytes after a complete member as padding (some writers pad
/// files to a block size), and an empty file as a truncated stream: a `.gz` upload cut to nothing
/// is an input that could not be read, not an empty log.
///
/// A class holding the `z_stream` in allocated memory: zlib keeps a pointer back to the stream,
/// so the stream must never move while it is in use.
package final class GzipInflater {
    private let stream: UnsafeMutablePointer<z_stream>
    private var output: [UInt8]
    private let path: String
    private var midMember = false
    private var membersEnded = 0
    /// In the zero bytes after the last member: only more zeros may follow.
    private var inPadding = false
    private var open = true

    package init(path: String, outputSize: Int = 1 << 18) throws {
        self.path = path
        output = [UInt8](repeating: 0, count: outputSize)
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // 15 + 16: a gzip wrapper, the largest window.
        let status = inflateInit2_(stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            stream.deallocate()
            throw InputError(code: .unreadable, path: path, message: "zlib could not be initialised (\(status))")
        }
    }

    deinit {
        if open { inflateEnd(stream) }
        stream.deallocate()
    }

    package func feed(
        _ input: UnsafeBufferPointer<UInt8>, finished: Bool, _ body: (UnsafeBufferPointer<UInt8>) throws -> Void
    ) throws {
        if finished {
            if midMember {
                throw InputError(code: .truncatedGzip, path: path, message: "the gzip stream is truncated")
            }
            if membersEnded == 0 {
                throw InputError(code: .truncatedGzip, path: path, message: "the gzip stream is truncated: the file is empty")
            }
            return
        }
        guard let base = input.baseAddress else { return }
        stream.pointee.next_in = UnsafeMutablePointer(mutating: base)
        stream.pointee.avail_in = uInt(input.count)
        while stream.pointee.avail_in > 0 {
            if !midMember, membersEnded > 0, inPadding || stream.pointee.next_in.pointee == 0 {
                // Zero padding after a member: skipped; anything else after it is not gzip.
                inPadding = true
                while stream.pointee.avail_in > 0 {
                    guard stream.pointee.next_in.pointee == 0 else {
                        throw InputError(
                            code: .corruptGzip, path: path, message: "corrupt gzip data: bytes other than zeros after the zero padding")
                    }
                    stream.pointee.next_in += 1
                    stream.pointee.avail_in -= 1
                }
                return
            }
            midMember = true
            let status: Int32 = output.withUnsafeMutableBufferPointer { out in
                stream.pointee.next_out = out.baseAddress
                stream.pointee.avail_out = uInt(out.count)
                return inflate(stream, Z_NO_FLUSH)
            }
            let produced = output.count - Int(stream.pointee.avail_out)
            if produced > 0 {
                try output.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[0..<produced])) }
            }
            switch status {
            case Z_OK, Z_BUF_ERROR:
                continue
            case Z_STREAM_END:
                midMember = false
                membersEnded += 1
                // Another member may follow (concatenated gzip files).
                inflateReset(stream)
            default:
                let reason = stream.pointee.msg.map { String(cString: $0) } ?? "status \(status)"
                throw InputError(code: .corruptGzip, path: path, message: "corrupt gzip data: \(reason)")
            }
        }
    }
}
