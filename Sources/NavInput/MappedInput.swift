#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import CNavSupport

/// A plain input file mapped into memory for a partitioned audit: its lines are routed to
/// their partitions as references (offset and length) and decoded in place when the partition
/// folds, instead of being copied into a partition and back. Copying a 1 GB log's lines
/// through partition files cost 13% of the run in the kernel alone (`copy_folio_from_iter`),
/// and past a few GB the kernel's writeback of those files on top.
///
/// The pages are the page cache's own (no copy, nothing to zero); they count in the resident
/// size, so the engine maps inputs only when they fit the memory limit.
package final class MappedInput: @unchecked Sendable {
    // @unchecked: the mapping is read-only and lives until the run ends; `releasedUpTo` is
    // touched only by the engine's thread that hands the chunks on.
    package let path: String
    /// The lines read: the whole file, or a window of it.
    package let bytes: UnsafeBufferPointer<UInt8>
    /// The whole file as mapped.
    private let mapping: UnsafeBufferPointer<UInt8>

    /// Maps `path` when it is a non-empty regular file that is not gzip; `nil` otherwise (the
    /// reader's error then names what is wrong with it).
    package convenience init?(path: String) {
        self.init(path: path, window: nil)
    }

    /// Maps a window of `path` (`bytes` is the window); `nil` when it cannot, or when the file
    /// is not the one the window was read from (reading it by path then says why).
    package init?(path: String, window: InputWindow?) {
        guard path != "-", !path.hasSuffix(".gz") else { return nil }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        if let window, (try? window.check(descriptor, path: path)) == nil { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, status.st_size > 0 else { return nil }
        let size = Int(status.st_size)
        guard let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), base != MAP_FAILED else { return nil }
        let mapped = UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: size)
        var bytes = mapped
        if let window {
            guard let range = try? window.range(in: mapped, path: path) else {
                munmap(base, size)
                return nil
            }
            bytes = UnsafeBufferPointer(rebasing: mapped[range])
            // The lines before the window were touched only to find its start: their pages
            // leave the process's memory (half of it, for a file that doubled since).
            let prefixPages = range.lowerBound / 4096 * 4096
            if prefixPages > 0 { _ = madvise(base, prefixPages, MADV_DONTNEED) }
        } else if isGzip(path: path, firstBytes: mapped.prefix(2)) {
            munmap(base, size)
            return nil
        }
        // A file whose shrinking could not be reported (the registry's 64 slots are taken, or
        // the path is too long for it) is read, not mapped: a SIGBUS there would kill the run
        // with no word.
        let slot = MappedInput.register(path: path, bytes: mapped)
        guard slot >= 0 else {
            munmap(base, size)
            return nil
        }
        self.path = path
        self.mapping = mapped
        self.bytes = bytes
        self.slot = slot
    }

    deinit {
        MappedInput.unregister(self)
        munmap(UnsafeMutableRawPointer(mutating: mapping.baseAddress!), mapping.count)
    }

    /// Asks the kernel to read the file ahead: the reading pass goes through it in order.
    package func willRead() {
        guard let base = bytes.baseAddress else { return }
        // From the page the window starts in (madvise takes page-aligned addresses).
        let first = UInt(bitPattern: base) / 4096 * 4096
        _ = madvise(UnsafeMutableRawPointer(bitPattern: first), Int(UInt(bitPattern: base) - first) + bytes.count, MADV_WILLNEED)
    }

    /// Drops the pages of the mapping before `offset` from the process's memory, once read
    /// (they stay in the page cache, and a later read maps them again): a validation's resident
    /// size then stays at the chunks in flight, whatever the file's size. Whole 2 MiB regions
    /// only, from the first not dropped yet: the page cache maps a file in huge pages where it
    /// can, and dropping the 4 KiB pages of a chunk alone left the huge pages at its two ends
    /// mapped.
    /// Called by one thread, in increasing order of `offset`.
    package func release(before offset: Int) {
        guard let base = bytes.baseAddress else { return }
        let region: UInt = 2 << 20
        let start = UInt(bitPattern: base)
        let end = (start + UInt(min(offset, bytes.count))) / region * region
        // A window's pages before its start are never read: dropped with the first region.
        let first = max(start / 4096 * 4096, releasedUpTo)
        guard end > first, let address = UnsafeMutableRawPointer(bitPattern: first) else { return }
        _ = madvise(address, Int(end - first), MADV_DONTNEED)
        releasedUpTo = end
    }

    /// Drops every page of the mapping from the process's memory, as `release(before:)` does:
    /// finding the chunks' line ends touched a page (a 2 MiB one, where the page cache has
    /// them) at every chunk's end: up to 256 MB for the 128 chunks of a 1 GB log.
    package func releaseAll() {
        guard let base = mapping.baseAddress else { return }
        _ = madvise(UnsafeMutableRawPointer(mutating: base), mapping.count, MADV_DONTNEED)
    }

    /// The address up to which `release(before:)` dropped the pages.
    private var releasedUpTo: UInt = 0

    /// The offset of `line` in the mapping, when the bytes lie inside it (lines the reader
    /// had to assemble, such as an unterminated last line, do not).
    package func offset(of line: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let start = line.baseAddress, let base = bytes.baseAddress, start >= base,
            base.distance(to: start) + line.count <= bytes.count
        else { return nil }
        return base.distance(to: start)
    }

    // MARK: A file that shrinks while mapped

    // A page past a mapped file's new end raises SIGBUS. The mapping is registered (in C,
    // `shim.h`) with its path, so that the process's SIGBUS handler, if it installed one, can
    // name the file and end the run instead of crashing.
    private static let lock = NSLockLike()
    private let slot: Int32

    /// The registry's slot for the mapping, or -1 when it has no room for it.
    private static func register(path: String, bytes: UnsafeBufferPointer<UInt8>) -> Int32 {
        lock.withLock {
            navreplay_mapped_register(bytes.baseAddress!, bytes.count, path)
        }
    }

    private static func unregister(_ input: MappedInput) {
        lock.withLock { navreplay_mapped_unregister(input.slot) }
    }
}
