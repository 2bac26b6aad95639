#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import SystemPackage

/// The new lines of a plain file that an earlier reading took: those after its first
/// `linesBefore` lines, up to the `readBytes` bytes that reading found, read again in place.
/// `navreplay ingest` folds a batch's new lines this way instead of through a copy.
///
/// The window is found again by line ends, not kept as byte offsets: it starts after the
/// `linesBefore`-th `\n`, and ends at `readBytes`, or at the last `\n` before it when the
/// reading left the last line (one without its line end) for later. Lines appended since are
/// past its end. A file replaced since (another device or inode), or now shorter than
/// `readBytes`, is an error: it changed while it was read twice.
package struct InputWindow: Sendable, Equatable {
    package var linesBefore: Int64
    package var readBytes: Int64
    /// Whether the reading took a last line without its line end (the end of data).
    package var takesTornTail: Bool
    package var device: UInt64
    package var inode: UInt64

    package init(linesBefore: Int64, readBytes: Int64, takesTornTail: Bool, device: UInt64, inode: UInt64) {
        self.linesBefore = linesBefore
        self.readBytes = readBytes
        self.takesTornTail = takesTornTail
        self.device = device
        self.inode = inode
    }

    /// Whether a window of `path` can be read in place: a regular file that is not gzip.
    package static func canBeRead(in path: String) -> Bool {
        guard path != "-" else { return false }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return false }
        var magic: [UInt8] = [0, 0]
        let count = magic.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, 2, 0) }
        return !isGzip(path: path, firstBytes: magic.prefix(max(0, count)))
    }

    /// Checks that `descriptor` is the file the window was read from, at least as long.
    package func check(_ descriptor: Int32, path: String) throws(InputError) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw changed(path, "it cannot be examined") }
        guard UInt64(status.st_dev) == device, UInt64(status.st_ino) == inode else {
            throw changed(path, "another file has its name now")
        }
        guard Int64(status.st_size) >= readBytes else {
            throw changed(path, "it holds \(status.st_size) bytes where it held \(readBytes)")
        }
    }

    /// The window's byte range in `bytes`, the file's first `readBytes` bytes (or more).
    package func range(in bytes: UnsafeBufferPointer<UInt8>, path: String) throws(InputError) -> Range<Int> {
        guard let base = bytes.baseAddress, readBytes > 0 else { return 0..<0 }
        let size = Int(readBytes)
        var start = 0
        var found: Int64 = 0
        while found < linesBefore {
            guard start < size, let end = memchr(base + start, 0x0A, size - start) else {
                throw changed(path, "it holds fewer than the \(linesBefore) lines read before")
            }
            start = base.distance(to: end.assumingMemoryBound(to: UInt8.self)) + 1
            found += 1
        }
        // Without the last line when it has no line end and was left for later: one line to
        // look back over.
        var end = size
        if !takesTornTail {
            while end > start && bytes[end - 1] != 0x0A { end -= 1 }
        }
        return start..<max(start, end)
    }

    private func changed(_ path: String, _ reason: String) -> InputError {
        InputError(code: .unreadable, path: path, message: "changed while it was read: \(reason)")
    }
}

extension LineReader {
    /// Reads the lines of a window of the plain file `path`, numbered from 1 in the window.
    package func readLines(of path: String, window: InputWindow, _ body: (RawLine) throws -> Void) throws -> Int64 {
        let descriptor = try FileDescriptor.opening(path)
        defer { try? descriptor.close() }
        try window.check(descriptor.rawValue, path: path)
        var splitter = LineSplitter(maxLineBytes: maxLineBytes)
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        var remaining = window.readBytes
        // The lines read before are skipped by their line ends.
        var linesToSkip = window.linesBefore
        while remaining > 0 {
            let count = try buffer.withUnsafeMutableBytes { raw in
                let room = Int(min(Int64(raw.count), remaining))
                return try descriptor.readOrThrow(into: UnsafeMutableRawBufferPointer(rebasing: raw[..<room]), path: path)
            }
            guard count > 0 else { throw InputError(code: .unreadable, path: path, message: "changed while it was read: it ended early") }
            remaining -= Int64(count)
            try buffer.withUnsafeBufferPointer { all in
                let base = all.baseAddress!
                var start = 0
                while linesToSkip > 0, start < count, let end = memchr(base + start, 0x0A, count - start) {
                    start = base.distance(to: end.assumingMemoryBound(to: UInt8.self)) + 1
                    linesToSkip -= 1
                }
                guard linesToSkip == 0 else { return }
                try splitter.feed(UnsafeBufferPointer(rebasing: all[start..<count]), body)
            }
        }
        guard linesToSkip == 0 else {
            throw InputError(code: .unreadable, path: path, message: "changed while it was read: it holds fewer lines than before")
        }
        // A last line without its line end is the splitter's to finish, or the next reading's.
        if window.takesTornTail { try splitter.finish(body) }
        return splitter.lineNumber
    }
}
