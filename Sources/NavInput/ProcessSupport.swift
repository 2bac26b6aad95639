#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
package import SystemPackage

/// A pthread mutex, so the core of NavLog needs no Foundation.
package final class NSLockLike: @unchecked Sendable {
    // @unchecked: the mutex is the synchronisation itself (Swift's `Mutex` needs macOS 15 and
    // iOS 18); its pointer never changes.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    package init() { pthread_mutex_init(mutex, nil) }
    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }
    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

package enum ProcessEnvironment {
    package static var temporaryDirectory: String {
        if let value = getenv("TMPDIR"), value.pointee != 0 { return String(cString: value) }
        return "/tmp"
    }
}

/// How many bytes the inputs hold, for sizing spill partitions (gzip counted as 6x).
package enum InputSize {
    package static func estimate(_ paths: [String], gzipRatio: Int64 = 6) -> Int64 {
        var total: Int64 = 0
        for path in paths where path != "-" {
            var status = stat()
            guard stat(path, &status) == 0 else { continue }
            total += Int64(status.st_size) * (path.hasSuffix(".gz") ? gzipRatio : 1)
        }
        return total
    }
}

extension LineReader {
    /// Reads a whole (small) file into `bytes`.
    package static func readWholeFile(_ path: String, into bytes: inout [UInt8]) throws {
        let file = try FileDescriptor.opening(path)
        defer { try? file.close() }
        var status = stat()
        let expected = fstat(file.rawValue, &status) == 0 ? max(0, Int(status.st_size)) : 0
        // Read straight into `bytes`, reusing its storage (a partition is read into the same
        // buffer as the last one of its job: no new pages to fault in; a fresh buffer each time
        // peaked 10 to 20 MB higher on the 1 GB bench log when inputs were read, not mapped).
        // It grows by appending zeros from `zeros`, 64 KiB at a time: a contiguous source is a
        // copy, where a debug build's `append(contentsOf: repeatElement(...))` went element by
        // element (minutes under ThreadSanitizer for the partitions of one test).
        bytes.removeAll(keepingCapacity: true)
        grow(&bytes, by: max(4096, expected + 1))
        var length = 0
        while true {
            if length == bytes.count { grow(&bytes, by: bytes.count) }
            let count = try bytes.withUnsafeMutableBytes { raw in
                try file.readOrThrow(into: UnsafeMutableRawBufferPointer(rebasing: raw[length...]), path: path)
            }
            if count == 0 { break }
            length += count
        }
        bytes.removeSubrange(length...)
    }

    private static let zeros = [UInt8](repeating: 0, count: 1 << 16)

    private static func grow(_ bytes: inout [UInt8], by count: Int) {
        bytes.reserveCapacity(bytes.count + count)
        var left = count
        while left > 0 {
            let piece = min(left, zeros.count)
            bytes.append(contentsOf: zeros[..<piece])
            left -= piece
        }
    }
}

package enum System {
    /// The cores this process may run on: its CPU affinity (so `taskset` and container limits
    /// count), else the cores online.
    package static var coreCount: Int {
        #if canImport(Glibc)
            if let allowed = allowedCores(), allowed > 0 { return allowed }
            return max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        #else
            return 2
        #endif
    }

    /// The `Cpus_allowed` mask of `/proc/self/status`, counted (`sched_getaffinity` is not
    /// visible from Swift's Glibc module).
    package static func allowedCores() -> Int? {
        #if canImport(Glibc)
            guard let mask = procValue("/proc/self/status", field: "Cpus_allowed:") else { return nil }
            var count = 0
            for character in mask {
                if let digit = character.hexDigitValue { count += digit.nonzeroBitCount }
            }
            return count
        #else
            return nil
        #endif
    }

    /// The dirty page cache past which the kernel starts writing it back to the disk:
    /// `vm.dirty_background_bytes`, else `vm.dirty_background_ratio` of the available memory;
    /// elsewhere than Linux, a tenth of the memory.
    package static var dirtyBackgroundBytes: Int64 {
        #if canImport(Glibc)
            func number(_ path: String) -> Int64? { procValue(path).flatMap { Int64($0.filter(\.isNumber)) } }
            if let fixed = number("/proc/sys/vm/dirty_background_bytes"), fixed > 0 { return fixed }
            let ratio = number("/proc/sys/vm/dirty_background_ratio") ?? 10
            return max(0, ratio) * availableMemory / 100
        #else
            return physicalMemory / 10
        #endif
    }

    /// `MemAvailable` of `/proc/meminfo`, else the physical memory.
    package static var availableMemory: Int64 {
        #if canImport(Glibc)
            if let kilobytes = procValue("/proc/meminfo", field: "MemAvailable:").flatMap({ Int64($0.filter(\.isNumber)) }) {
                return kilobytes * 1024
            }
        #endif
        return physicalMemory
    }

    /// What follows `field` on the line of a `/proc` file that starts with it (the first line
    /// with no field); `nil` when the file or the line is not there.
    package static func procValue(_ path: String, field: String = "") -> Substring? {
        var bytes: [UInt8] = []
        guard (try? LineReader.readWholeFile(path, into: &bytes)) != nil else { return nil }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        return lines.first { $0.hasPrefix(field) }?.dropFirst(field.count)
    }

    package static var physicalMemory: Int64 {
        #if canImport(Glibc)
            return Int64(sysconf(Int32(_SC_PHYS_PAGES))) * Int64(sysconf(Int32(_SC_PAGESIZE)))
        #else
            return 8 << 30
        #endif
    }
}

/// Writes to file descriptors.
package enum Descriptor {
    /// Writes every byte (a `write` may take fewer, or be interrupted); an error names `what`.
    package static func writeAll(
        _ bytes: UnsafeRawBufferPointer, to descriptor: Int32, path: String, what: String = "a temporary file"
    ) throws {
        try FileDescriptor(rawValue: descriptor).writeAll(bytes, path: path, what: what)
    }
}

extension FileDescriptor {
    /// Opens `path` for reading (as given: not normalised as a `FilePath` would be, so that
    /// `file/` still fails as `open(2)` fails it); an error is the input's.
    package static func opening(_ path: String) throws(InputError) -> FileDescriptor {
        do {
            return try path.withCString { try FileDescriptor.open($0, .readOnly, options: .closeOnExec) }
        } catch {
            throw InputError.opening(path, errno: (error as? Errno)?.rawValue ?? EIO)
        }
    }

    /// `read(2)` into `buffer`, retried when interrupted; 0 at the end. An error is the input's.
    @inline(__always)
    package func readOrThrow(into buffer: UnsafeMutableRawBufferPointer, path: String) throws(InputError) -> Int {
        do {
            return try read(into: buffer)
        } catch {
            throw InputError.opening(path, errno: (error as? Errno)?.rawValue ?? EIO)
        }
    }

    /// Writes every byte; an error names `what`.
    package func writeAll(_ bytes: UnsafeRawBufferPointer, path: String, what: String = "a temporary file") throws(InputError) {
        do {
            _ = try writeAll(bytes)
        } catch {
            let reason = (error as? Errno)?.description ?? "\(error)"
            throw InputError(code: .unreadable, path: path, message: "cannot write \(what): \(reason)")
        }
    }
}

/// A value reached only under a lock: the one place where state shared between threads is
/// checked by hand instead of by the compiler (Swift's `Mutex` needs macOS 15 and iOS 18).
package final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is read and written only inside `withLock`, under `lock`.
    private let lock = NSLockLike()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        try lock.withLock { try body(&value) }
    }
}
