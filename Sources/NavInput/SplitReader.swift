#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import CZlib
package import SystemPackage

/// Reads one split of a log for a distributed run: the lines that start inside a byte range of
/// a plain file, or every line of a gzip file, with the line reader's rules (split on `\n`, one
/// `\r` removed, over-long lines cut, a torn last line kept, gzip members, padding and errors).
///
/// A line belongs to the split it starts in: a split that starts inside a line leaves that line
/// to the split before it, and its own last line is read past the range's end, up to its `\n`.
/// So splits cut anywhere read every line of a file exactly once. A gzip file (by its name or
/// its first bytes) cannot be cut: the split that starts at offset 0 reads all of it, the
/// others read nothing. Lines are numbered from 1 within the split.
package struct SplitReader {
    package var maxLineBytes: Int
    package var chunkSize: Int

    package init(maxLineBytes: Int = LineReader.defaultMaxLineBytes, chunkSize: Int = 1 << 20) {
        self.maxLineBytes = max(1, maxLineBytes)
        self.chunkSize = max(4096, chunkSize)
    }

    /// Reads the lines of `path` that start in `range` (`nil`: the whole file) and calls `body`
    /// for each one; `-` is standard input, read whole. `gzip` forces gzip (standard input
    /// holding a `.gz` file); otherwise a file is gzip by its name or its first two bytes, as
    /// the line reader decides.
    ///
    /// - Returns: how many lines were read.
    /// - Throws: `InputError` when the file cannot be read, or its gzip stream is corrupt or
    ///   truncated (after the lines before the error were handed over, with `afterLine`).
    @discardableResult
    package func readLines(
        of path: String, range: Range<Int64>? = nil, gzip: Bool = false, _ body: (RawLine) throws -> Void
    ) throws -> Int64 {
        let descriptor = path == "-" ? FileDescriptor.standardInput : try FileDescriptor.opening(path)
        defer { if path != "-" { try? descriptor.close() } }
        var status = stat()
        if fstat(descriptor.rawValue, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR {
            throw InputError(code: .isDirectory, path: path, message: InputResolver.directoryMessage(path))
        }
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        var splitter = LineSplitter(maxLineBytes: maxLineBytes)
        if path == "-" {
            let first = try readAtLeastTwo(descriptor, into: &buffer, path: path)
            if gzip || isGzip(path: path, firstBytes: buffer.prefix(first)) {
                try inflate(descriptor, path: path, buffered: first, buffer: &buffer, splitter: &splitter, body)
            } else {
                var count = first
                while count > 0 {
                    try buffer.withUnsafeBufferPointer { try splitter.feed(UnsafeBufferPointer(rebasing: $0[0..<count]), body) }
                    count = try read(descriptor, into: &buffer, path: path)
                }
                try splitter.finish(body)
            }
            return splitter.lineNumber
        }
        let size = Int64(status.st_size)
        let magic = try pread(descriptor, into: &buffer, count: 2, at: 0, path: path)
        if gzip || isGzip(path: path, firstBytes: buffer.prefix(magic)) {
            guard (range?.lowerBound ?? 0) == 0 else { return 0 }
            let first = try read(descriptor, into: &buffer, path: path)
            try inflate(descriptor, path: path, buffered: first, buffer: &buffer, splitter: &splitter, body)
            return splitter.lineNumber
        }
        let start = try firstLineStart(descriptor, from: range?.lowerBound ?? 0, size: size, buffer: &buffer, path: path)
        let end = min(range?.upperBound ?? size, size)
        guard let start, start < end else { return 0 }
        // The lines that start in the range; then the rest of the last one, up to its `\n`.
        var offset = start
        var endsInNewline = false
        while offset < end {
            let count = try pread(descriptor, into: &buffer, count: Int(min(Int64(chunkSize), end - offset)), at: offset, path: path)
            guard count > 0 else { break }  // the file shrank
            try buffer.withUnsafeBufferPointer { try splitter.feed(UnsafeBufferPointer(rebasing: $0[0..<count]), body) }
            endsInNewline = buffer[count - 1] == 0x0A
            offset += Int64(count)
        }
        while !endsInNewline {
            let count = try pread(descriptor, into: &buffer, count: chunkSize, at: offset, path: path)
            guard count > 0 else { break }
            let piece = buffer.withUnsafeBufferPointer { bytes in
                bytes[0..<count].firstIndex(of: 0x0A).map { $0 + 1 } ?? count
            }
            try buffer.withUnsafeBufferPointer { try splitter.feed(UnsafeBufferPointer(rebasing: $0[0..<piece]), body) }
            endsInNewline = buffer[piece - 1] == 0x0A
            offset += Int64(piece)
        }
        try splitter.finish(body)
        return splitter.lineNumber
    }

    /// Where the first line that starts at or after `offset` starts: `offset` itself at the
    /// file's start or after a `\n`, else just past the next `\n`; `nil` when no line starts there.
    private func firstLineStart(
        _ descriptor: FileDescriptor, from offset: Int64, size: Int64, buffer: inout [UInt8], path: String
    ) throws -> Int64? {
        guard offset > 0 else { return 0 }
        guard offset < size else { return nil }
        var position = offset - 1
        while position < size {
            let count = try pread(descriptor, into: &buffer, count: chunkSize, at: position, path: path)
            guard count > 0 else { return nil }
            if let newline = buffer[0..<count].firstIndex(of: 0x0A) { return position + Int64(newline) + 1 }
            position += Int64(count)
        }
        return nil
    }

    /// Inflates the rest of a gzip input, of which `buffered` bytes are in `buffer` already,
    /// and splits its lines. The partial line at an error is not handed over.
    private func inflate(
        _ descriptor: FileDescriptor, path: String, buffered: Int, buffer: inout [UInt8], splitter: inout LineSplitter,
        _ body: (RawLine) throws -> Void
    ) throws {
        let inflater = try GzipInflater(path: path)
        var count = buffered
        while true {
            do {
                try buffer.withUnsafeBufferPointer { input in
                    try inflater.feed(UnsafeBufferPointer(rebasing: input[0..<count]), finished: count == 0) { output in
                        try splitter.feed(output, body)
                    }
                }
            } catch var error as InputError where error.code == .corruptGzip || error.code == .truncatedGzip {
                error.afterLine = splitter.lineNumber > 0 ? splitter.lineNumber : nil
                throw error
            }
            if count == 0 { break }
            count = try read(descriptor, into: &buffer, path: path)
        }
        try splitter.finish(body)
    }

    /// Reads until two bytes or the end (a pipe may deliver the first byte alone).
    private func readAtLeastTwo(_ descriptor: FileDescriptor, into buffer: inout [UInt8], path: String) throws -> Int {
        var count = try read(descriptor, into: &buffer, path: path)
        while count == 1 {
            let more = try buffer.withUnsafeMutableBytes { raw in
                try descriptor.readOrThrow(into: UnsafeMutableRawBufferPointer(rebasing: raw[1...]), path: path)
            }
            if more == 0 { break }
            count += more
        }
        return count
    }

    private func read(_ descriptor: FileDescriptor, into buffer: inout [UInt8], path: String) throws -> Int {
        try buffer.withUnsafeMutableBytes { try descriptor.readOrThrow(into: $0, path: path) }
    }

    /// `pread(2)` of up to `count` bytes at `offset`, retried when interrupted; 0 at the end.
    private func pread(_ descriptor: FileDescriptor, into buffer: inout [UInt8], count: Int, at offset: Int64, path: String) throws -> Int {
        try buffer.withUnsafeMutableBytes { raw in
            do {
                return try descriptor.read(fromAbsoluteOffset: offset, into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<count]))
            } catch {
                throw InputError.opening(path, errno: (error as? Errno)?.rawValue ?? EIO)
            }
        }
    }
}
