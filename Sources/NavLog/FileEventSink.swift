#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
public import NavEvents
import SystemPackage

/// An append-only NDJSON file of navigation events: the log `navreplay` reads.
///
/// Each event is written as its canonical JSON line plus `\n` with a single `write(2)` on a
/// descriptor opened `O_WRONLY | O_APPEND | O_CREAT`, so a line is never interleaved with
/// another writer's line and a crash leaves at most one torn last line (which `navreplay`
/// reports as such). A short write, which only a full disk or a signal causes, is completed
/// by further `write(2)` calls for the rest of the same line.
///
/// It is safe to use from several threads: writes are serialised by a lock, so lines from
/// different threads never mix. (The lock is a `pthread_mutex_t`, as
/// `Synchronization.Mutex` needs macOS 15 / iOS 18 and the package supports macOS 13 /
/// iOS 16; that is why the class is `@unchecked Sendable`.)
///
/// Several processes may append to one log too: each line is written holding an exclusive
/// `flock(2)` on the file, after a look at the file's last byte. A process killed in the middle
/// of its line leaves a torn piece without a line end; the next line written, by any sink,
/// starts with a line end of its own, so that it stays whole instead of being glued to the
/// piece (which stays one torn line, reported as such). A sink waits for a line another sink is
/// writing instead of taking it for a torn one. A writer that is not a `FileEventSink` takes no
/// lock: a sink writing in the middle of such a writer's line ends that line early, leaving a
/// blank line after it, which readers count and skip.
///
/// **Durability.** `SyncPolicy` says when the file is `fsync(2)`ed: `.none` leaves it to the
/// operating system (fastest; a power loss may lose the last seconds, a crash of the app
/// loses nothing already written), `.everyEvent` syncs after each line (slowest, nothing
/// acknowledged is ever lost), `.interval(events: n)` after every `n` lines (a bound on the
/// loss). `sync()` syncs now, whatever the policy, and `close()` syncs what the policy has
/// not yet synced (unless the policy is `.none`).
///
/// **Errors.** Writing never throws and never crashes: a failed write drops that line,
/// is counted in `errorCount`, kept as `lastError`, and passed to `onError` (the place to
/// report it to the app's own logging). Only opening, `sync()` and `close()` throw.
///
/// It is a `NavigationEventSink`: give it to a `NavigationRouter` as it is.
public final class FileEventSink: NavigationEventSink, @unchecked Sendable {
    /// When the file is flushed to stable storage with `fsync(2)`.
    public enum SyncPolicy: Sendable, Hashable {
        /// Never explicitly: the operating system writes the page cache back on its own.
        case none
        /// After every line.
        case everyEvent
        /// After every `events` lines (values below 1 mean every line).
        case interval(events: Int)
    }

    /// A failed file operation, with the `errno` it returned.
    public struct WriteError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The file's path.
        public var path: String
        /// `open`, `write`, `fsync` or `close`.
        public var operation: String
        /// The `errno` value, or 0 when the sink itself refused (a write after `close()`).
        public var code: Int32
        public var message: String

        public var description: String { "\(operation) \(path): \(message)" }
    }

    public let path: String
    public let syncPolicy: SyncPolicy

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let onError: (@Sendable (WriteError) -> Void)?
    // Guarded by `mutex`.
    private var descriptor: FileDescriptor?
    /// The file opened for reading its last byte (`nil` when it cannot be read: then no torn
    /// line of another writer is looked for).
    private var reader: FileDescriptor?
    private var unsyncedLines = 0
    private var written = 0
    private var errors = 0
    private var latestError: WriteError?

    /// Opens the file for appending, creating it and the directories it goes in if needed.
    ///
    /// - Parameters:
    ///   - path: the log file.
    ///   - syncPolicy: when to `fsync(2)` (see the type's documentation).
    ///   - permissions: the mode of a new file (`0o644` by default).
    ///   - onError: called, outside the lock, with each write or sync error.
    /// - Throws: `WriteError` when a directory cannot be created (`operation` "mkdir") or the
    ///   file cannot be opened.
    public init(
        path: String, syncPolicy: SyncPolicy = .none, permissions: UInt16 = 0o644,
        onError: (@Sendable (WriteError) -> Void)? = nil
    ) throws(WriteError) {
        try FileEventSink.createDirectories(containing: path)
        let fd: FileDescriptor
        do {
            fd = try path.withCString {
                try FileDescriptor.open(
                    $0, .writeOnly, options: [.append, .create, .closeOnExec], permissions: FilePermissions(rawValue: mode_t(permissions)))
            }
        } catch {
            let code = (error as? Errno)?.rawValue ?? EIO
            throw WriteError(path: path, operation: "open", code: code, message: errorMessage(code))
        }
        self.path = path
        self.syncPolicy = syncPolicy
        self.onError = onError
        self.descriptor = fd
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        reader = try? path.withCString { try FileDescriptor.open($0, .readOnly, options: .closeOnExec) }
        FileEventSink.closeTornLastLine(path: path, descriptor: fd)
    }

    /// Creates each missing directory on the way to `path` (as `mkdir -p` on its parent), so that
    /// an app can log to a fresh directory under its container without preparing it.
    private static func createDirectories(containing path: String) throws(WriteError) {
        var directory = ""
        for (index, part) in path.split(separator: "/", omittingEmptySubsequences: false).dropLast().enumerated() {
            directory += index == 0 ? String(part) : "/" + part  // "" first for an absolute path
            guard !part.isEmpty, part != ".", part != ".." else { continue }
            if mkdir(directory, 0o755) != 0 && errno != EEXIST {
                let code = errno
                throw WriteError(path: directory, operation: "mkdir", code: code, message: errorMessage(code))
            }
        }
    }

    /// A crash may have left the log ending in the middle of a line. Close that line first, so
    /// it stays one torn line (reported as invalid) and the first new event starts on a line of
    /// its own instead of being glued to the torn piece. Checked under an exclusive `flock(2)`:
    /// other sinks write each line under a lock too, so a line one of them is writing is
    /// finished before the check sees it (without it, CI once saw a blank line here).
    private static func closeTornLastLine(path: String, descriptor: FileDescriptor) {
        guard let reader = try? path.withCString({ try FileDescriptor.open($0, .readOnly, options: .closeOnExec) }) else { return }
        defer { try? reader.close() }
        let locked = fileLock(descriptor, LOCK_EX)
        defer { if locked { _ = fileLock(descriptor, LOCK_UN) } }
        var status = stat()
        guard fstat(reader.rawValue, &status) == 0, status.st_size > 0 else { return }
        var last: UInt8 = 0
        let read = try? withUnsafeMutableBytes(of: &last) { try reader.read(fromAbsoluteOffset: Int64(status.st_size - 1), into: $0) }
        guard read == 1, last != 0x0A else { return }
        _ = try? descriptor.writeAll(CollectionOfOne(UInt8(0x0A)))
    }

    /// Whether the file ends in the middle of a line (a writer was killed while writing it):
    /// then the next line starts with a line end of its own, so that the piece stays one torn
    /// line (reported as invalid) and the line is not glued to it. Called holding the exclusive
    /// lock, when no other sink is writing.
    private func endsInsideALine() -> Bool {
        guard let reader else { return false }
        var status = stat()
        guard fstat(reader.rawValue, &status) == 0, status.st_size > 0 else { return false }
        var last: UInt8 = 0
        let read = try? withUnsafeMutableBytes(of: &last) { try reader.read(fromAbsoluteOffset: Int64(status.st_size - 1), into: $0) }
        return read == 1 && last != 0x0A
    }

    /// Releasing the sink without `close()` closes the file without a final sync.
    deinit {
        try? descriptor?.close()
        try? reader?.close()
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Appends one event as its canonical line. Never throws: see `lastError`.
    public func write(_ event: NavigationEvent) {
        write(line: event.canonicalJSON)
    }

    /// Appends one line (a `\n` is added). A text with a line feed in it is not written (it
    /// would be two NDJSON lines): that is a write error.
    public func write(line: String) {
        var bytes = Array(line.utf8)
        let hasLineFeed = bytes.contains(UInt8(ascii: "\n"))
        bytes.append(UInt8(ascii: "\n"))
        let failure: WriteError? = locked { () -> WriteError? in
            guard let descriptor else {
                return record(WriteError(path: path, operation: "write", code: 0, message: "the sink is closed"))
            }
            if hasLineFeed {
                return record(
                    WriteError(path: path, operation: "write", code: 0, message: "the line contains a line feed; not written"))
            }
            // Exclusive, so that the file's end is not another sink's line in the making. Without
            // a lock (a file system without `flock`), the line is written all the same. The look
            // at the last byte costs about 2 µs a line (200,000 short lines through the writer
            // fixture: 2.27 to 2.34 s; 1.86 to 1.92 s under a shared lock without it).
            let exclusive = fileLock(descriptor, LOCK_EX)
            defer { if exclusive { _ = fileLock(descriptor, LOCK_UN) } }
            if endsInsideALine() { bytes.insert(UInt8(ascii: "\n"), at: 0) }
            if let error = writeAll(bytes, to: descriptor) { return record(error) }
            written += 1
            unsyncedLines += 1
            let due: Bool
            switch syncPolicy {
            case .none: due = false
            case .everyEvent: due = true
            case .interval(let events): due = unsyncedLines >= max(events, 1)
            }
            if due, let error = syncLocked() { return record(error) }
            return nil
        }
        if let failure { onError?(failure) }
    }

    /// Flushes every line written so far to stable storage (`fsync(2)`), whatever the policy.
    public func sync() throws(WriteError) {
        let failure: WriteError? = locked { () -> WriteError? in
            guard descriptor != nil else { return nil }
            return syncLocked().map(record)
        }
        if let failure { throw failure }
    }

    /// Syncs what the policy has not yet synced (unless it is `.none`), then closes the file.
    /// Later writes fail with "the sink is closed". Closing twice does nothing.
    public func close() throws(WriteError) {
        let failure: WriteError? = locked { () -> WriteError? in
            guard let descriptor else { return nil }
            var failure: WriteError?
            if syncPolicy != .none, unsyncedLines > 0 { failure = syncLocked().map(record) }
            do {
                try descriptor.close()
            } catch {
                let code = (error as? Errno)?.rawValue ?? EIO
                if failure == nil { failure = record(WriteError(path: path, operation: "close", code: code, message: errorMessage(code))) }
            }
            self.descriptor = nil
            return failure
        }
        if let failure { throw failure }
    }

    /// Lines written completely.
    public var linesWritten: Int { locked { written } }

    /// Lines or syncs that failed.
    public var errorCount: Int { locked { errors } }

    /// The most recent failure, if any.
    public var lastError: WriteError? { locked { latestError } }

    // MARK: Under the lock

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    private func record(_ error: WriteError) -> WriteError {
        errors += 1
        latestError = error
        return error
    }

    /// One `write(2)` for the whole line (retried when interrupted); more only to finish a
    /// short write.
    private func writeAll(_ bytes: [UInt8], to descriptor: FileDescriptor) -> WriteError? {
        bytes.withUnsafeBytes { buffer -> WriteError? in
            var offset = 0
            while offset < buffer.count {
                do {
                    offset += try descriptor.write(UnsafeRawBufferPointer(rebasing: buffer[offset...]))
                } catch {
                    let code = (error as? Errno)?.rawValue ?? EIO
                    return WriteError(
                        path: path, operation: "write", code: code,
                        message: errorMessage(code) + (offset > 0 ? " (after \(offset) bytes of the line: a torn line)" : ""))
                }
            }
            return nil
        }
    }

    private func syncLocked() -> WriteError? {
        unsyncedLines = 0
        guard let descriptor else { return nil }
        if retryingInterrupted({ fsync(descriptor.rawValue) }) != 0 {
            let code = errno
            return WriteError(path: path, operation: "fsync", code: code, message: errorMessage(code))
        }
        return nil
    }
}

private func errorMessage(_ code: Int32) -> String {
    guard let text = strerror(code) else { return "error \(code)" }
    return String(cString: text) + " (errno \(code))"
}

/// `flock(2)`; `false` when the lock was not taken.
private func fileLock(_ descriptor: FileDescriptor, _ operation: Int32) -> Bool {
    // Named by its type: a plain `flock(fd, operation)` is taken for `struct flock` (fcntl's).
    let lock: (Int32, Int32) -> Int32 = flock
    return retryingInterrupted { lock(descriptor.rawValue, operation) } == 0
}

/// A call that returns -1 and sets `errno`, made again while a signal interrupts it: for the
/// calls swift-system does not wrap (`fsync`, `flock`), as its `retryOnInterrupt` does.
private func retryingInterrupted(_ call: () -> Int32) -> Int32 {
    while true {
        let result = call()
        if result != -1 || errno != EINTR { return result }
    }
}
