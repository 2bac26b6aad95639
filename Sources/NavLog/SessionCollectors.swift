#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Dispatch
import NavEvents
import NavJSON
import NavModel
import NavReplay

/// Where decoded lines go until their sessions are folded. Three strategies, one per way of
/// reading: everything in memory, spilled to disk partitions past a memory budget, or streamed
/// session by session for pre-grouped input.
protocol SessionCollector: AnyObject {
    func add(_ key: SessionKey, _ line: SessionLine, rawBytes: Int) throws
    /// Folds what is left and returns every session's audit, in session order.
    func finish() throws -> [SessionAudit]
    var sessionCount: Int { get }
}

/// Folds sessions held in memory, in parallel, `jobs` at a time, into session order.
func foldInParallel(
    _ sessions: [SessionKey: [SessionLine]], models: [NavigationModel], options: SessionAuditOptions, jobs: Int
) -> [(key: SessionKey, audit: SessionAudit)] {
    let keys = sessions.keys.sorted()
    let results = ParallelResults<SessionAudit>(count: keys.count)
    let work: @Sendable (Int) -> Void = { index in
        let key = keys[index]
        let model = models.indices.contains(key.model) ? models[key.model] : .poc
        results[index] = SessionAuditor.audit(sessionID: key.id, lines: sessions[key] ?? [], model: model, options: options)
    }
    let workers = max(1, jobs > 0 ? jobs : System.coreCount)
    if workers == 1 || keys.count < 2 {
        for index in keys.indices { work(index) }
    } else {
        // Sessions are independent once grouped; each job writes only its own slots.
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            for index in stride(from: worker, to: keys.count, by: workers) { work(index) }
        }
    }
    return Array(zip(keys, results.values)).map { (key: $0.0, audit: $0.1) }
}

// MARK: Pre-grouped input

/// For input already grouped by session and ordered by seq: folds each session when the next
/// one begins, so only one session's events are in memory at a time.
final class StreamingCollector: SessionCollector {
    private let models: [NavigationModel]
    private let options: SessionAuditOptions
    private var currentKey: SessionKey?
    private var current: [SessionLine] = []
    private var finished: Set<SessionKey> = []
    private var audits: [SessionAudit] = []
    private var keys: [SessionKey] = []
    /// Sessions met again after another session had begun: the input was not grouped.
    private(set) var regroupedSessions: [(sessionID: String, location: LineLocation)] = []

    init(models: [NavigationModel], options: SessionAuditOptions) {
        self.models = models
        self.options = options
    }

    var sessionCount: Int { finished.count + (currentKey == nil ? 0 : 1) }

    func add(_ key: SessionKey, _ line: SessionLine, rawBytes: Int) throws {
        if key != currentKey {
            flush()
            if finished.contains(key) { regroupedSessions.append((key.id, line.location)) }
            currentKey = key
        }
        current.append(line)
    }

    private func flush() {
        guard let key = currentKey else { return }
        let model = models.indices.contains(key.model) ? models[key.model] : .poc
        audits.append(SessionAuditor.audit(sessionID: key.id, lines: current, model: model, options: options))
        keys.append(key)
        finished.insert(key)
        current.removeAll(keepingCapacity: true)
        currentKey = nil
    }

    func finish() throws -> [SessionAudit] {
        flush()
        // Output order is session order whatever order the groups came in.
        return zip(keys, audits).sorted { $0.0 < $1.0 }.map(\.1)
    }
}

// MARK: Bounded memory

/// Holds sessions in memory up to a budget; past it, writes the held lines to hash partitions
/// on disk (by session), and at the end folds one partition at a time per job. Peak memory
/// stays near the budget whatever the input size; the partitions are removed when done, on
/// error, and on Ctrl-C.
final class SpillingCollector: SessionCollector {
    private let models: [NavigationModel]
    private let options: SessionAuditOptions
    private let jobs: Int
    private let memoryLimit: Int
    private let temporaryDirectory: String?
    private let estimatedInputBytes: Int64
    private var held: [SessionKey: [SessionLine]] = [:]
    private var heldBytes = 0
    private var spill: SpillPartitions?
    private var spilledKeys = 0

    init(
        models: [NavigationModel], options: SessionAuditOptions, jobs: Int, memoryLimit: Int, temporaryDirectory: String?,
        estimatedInputBytes: Int64
    ) throws {
        self.models = models
        self.options = options
        self.jobs = max(1, jobs > 0 ? jobs : System.coreCount)
        self.memoryLimit = max(1 << 20, memoryLimit)
        self.temporaryDirectory = temporaryDirectory
        self.estimatedInputBytes = estimatedInputBytes
    }

    var sessionCount: Int { held.count + spilledKeys }

    /// What one held line costs in memory: the decoded event, its strings (ids and timestamps
    /// are heap strings), the array slot and its growth slack. Measured: about 2.5 times the
    /// line's bytes plus a fixed part; the estimate errs high so that the budget holds.
    static func heldCost(rawBytes: Int) -> Int { 512 + 3 * rawBytes }

    /// Half the budget holds lines; the rest is for folding, output and the partition buffers.
    private var holdBudget: Int { memoryLimit / 2 }

    func add(_ key: SessionKey, _ line: SessionLine, rawBytes: Int) throws {
        held[key, default: []].append(line)
        heldBytes += SpillingCollector.heldCost(rawBytes: rawBytes)
        if heldBytes > holdBudget { try spillHeld() }
    }

    private func spillHeld() throws {
        if spill == nil {
            // Partitions small enough that `jobs` of them, decoded, fit in the budget.
            let expected = max(estimatedInputBytes, Int64(heldBytes) * 2)
            let perPartition = max(Int64(1 << 20), Int64(memoryLimit / 2 / jobs) / 3)
            let count = Int(min(max((expected + perPartition - 1) / perPartition, 8), 512))
            spill = try SpillPartitions(count: count, directory: temporaryDirectory, bufferBytes: max(4096, memoryLimit / 8 / count))
        }
        guard let spill else { return }
        for (key, lines) in held {
            for line in lines { try spill.write(key: key, line: line) }
        }
        spilledKeys += held.count  // an upper bound: a session may be spilled more than once
        held.removeAll()
        heldBytes = 0
    }

    func finish() throws -> [SessionAudit] {
        guard let spill else {
            return foldInParallel(held, models: models, options: options, jobs: jobs).map(\.audit)
        }
        defer { spill.remove() }
        try spillHeld()
        try spill.closeWriters()
        let results = ParallelResults<Result<[(key: SessionKey, audit: SessionAudit)], any Error>>(count: spill.count)
        let models = self.models
        let options = self.options
        let workers = min(jobs, spill.count)
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            for partition in stride(from: worker, to: spill.count, by: workers) {
                results[partition] = Result {
                    let sessions = try spill.read(partition: partition)
                    return foldInParallel(sessions, models: models, options: options, jobs: 1)
                }
            }
        }
        var audits: [(key: SessionKey, audit: SessionAudit)] = []
        for result in results.values { audits += try result.get() }
        // Partitions split sessions by hash; merge back into session order.
        return audits.sorted { $0.key < $1.key }.map(\.audit)
    }
}

/// The temporary partition files of one spilled audit.
///
/// A record is `[u32 length][i32 model][i32 file][i64 line][u64 identity][u64 content identity]`
/// followed by the event's canonical JSON: the identities come from the original line, so
/// redeliveries are still recognised after the round trip, and the canonical JSON decodes back
/// into the same event.
final class SpillPartitions: @unchecked Sendable {
    // @unchecked: writers are used by the reading thread only; after `closeWriters()`,
    // partitions are only read, each by one job.
    let count: Int
    let directory: String
    private var descriptors: [Int32]
    private var buffers: [[UInt8]]
    private let bufferBytes: Int
    private var writer = JSONWriter(reservingCapacity: 512)

    init(count: Int, directory: String?, bufferBytes: Int) throws {
        self.count = count
        self.bufferBytes = bufferBytes
        let base = directory ?? ProcessEnvironment.temporaryDirectory
        var template = Array((base + "/navreplay-spill-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw InputError(code: .unreadable, path: base, message: "cannot create a spill directory: \(String(cString: strerror(errno)))")
        }
        self.directory = String(cString: made)
        descriptors = []
        buffers = Array(repeating: [], count: count)
        SpillCleanup.register(self.directory, partitions: count)
        for partition in 0..<count {
            let fd = open(path(partition), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            guard fd >= 0 else {
                let reason = String(cString: strerror(errno))
                remove()
                throw InputError(code: .unreadable, path: self.directory, message: "cannot create a spill partition: \(reason)")
            }
            descriptors.append(fd)
        }
    }

    func path(_ partition: Int) -> String { directory + "/part-" + String(partition) }

    func write(key: SessionKey, line: SessionLine) throws {
        let partition = Int(StableHash.string(key.id) % UInt64(count))
        writer.removeAll()
        line.event.write(to: &writer)
        var header = [UInt8]()
        header.reserveCapacity(40)
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { header.append(contentsOf: $0) }
        }
        append(UInt32(32 + writer.bytes.count))
        append(Int32(key.model))
        append(line.location.file)
        append(line.location.line)
        append(line.decoded.identity)
        append(line.decoded.contentIdentity)
        buffers[partition] += header
        buffers[partition] += writer.bytes
        if buffers[partition].count >= bufferBytes { try flush(partition) }
    }

    private func flush(_ partition: Int) throws {
        try buffers[partition].withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = systemWrite(descriptors[partition], raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw InputError(code: .unreadable, path: path(partition), message: "cannot write a spill partition: \(String(cString: strerror(errno)))")
                }
                offset += written
            }
        }
        buffers[partition].removeAll(keepingCapacity: true)
    }

    func closeWriters() throws {
        for partition in 0..<count {
            try flush(partition)
            close(descriptors[partition])
            buffers[partition] = []
        }
        descriptors = []
    }

    /// Reads one partition back and groups its lines by session.
    func read(partition: Int) throws -> [SessionKey: [SessionLine]] {
        var bytes: [UInt8] = []
        try LineReader.readWholeFile(path(partition), into: &bytes)
        var sessions: [SessionKey: [SessionLine]] = [:]
        let decoder = EventDecoder()
        try bytes.withUnsafeBufferPointer { buffer in
            var offset = 0
            func load<T: FixedWidthInteger>(_ type: T.Type, at position: Int) -> T {
                var value: T = 0
                withUnsafeMutableBytes(of: &value) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[position..<(position + MemoryLayout<T>.size)])) }
                return T(littleEndian: value)
            }
            while offset + 36 <= buffer.count {
                let length = Int(load(UInt32.self, at: offset))
                let start = offset + 4
                guard length >= 32, start + length <= buffer.count else { break }
                let model = Int(load(Int32.self, at: start))
                let location = LineLocation(file: load(Int32.self, at: start + 4), line: load(Int64.self, at: start + 8))
                let identity = load(UInt64.self, at: start + 16)
                let content = load(UInt64.self, at: start + 24)
                let json = UnsafeBufferPointer(rebasing: buffer[(start + 32)..<(start + length)])
                guard case .success(var decoded) = decoder.decode(json) else {
                    throw InputError(code: .unreadable, path: path(partition), message: "a spill record does not decode")
                }
                decoded.identity = identity
                decoded.contentIdentity = content
                sessions[SessionKey(model: model, id: decoded.event.sessionID), default: []].append(
                    SessionLine(decoded: decoded, location: location))
                offset = start + length
            }
        }
        return sessions
    }

    /// Removes the partition files and their directory.
    func remove() {
        for fd in descriptors { close(fd) }
        descriptors = []
        for partition in 0..<count { unlink(path(partition)) }
        rmdir(directory)
        SpillCleanup.unregister(directory)
    }
}

/// Removes spill partitions when the process is interrupted (Ctrl-C, SIGTERM).
enum SpillCleanup {
    private static let lock = NSLockLike()
    nonisolated(unsafe) private static var active: [String: Int] = [:]
    nonisolated(unsafe) private static var installed = false

    static func register(_ directory: String, partitions: Int) {
        lock.withLock {
            active[directory] = partitions
            if !installed {
                installed = true
                signal(SIGINT, handler)
                signal(SIGTERM, handler)
            }
        }
    }

    static func unregister(_ directory: String) {
        lock.withLock { _ = active.removeValue(forKey: directory) }
    }

    /// Not strictly async-signal-safe (it walks a dictionary), but the process is exiting and
    /// the reading thread is the only writer of the registry.
    private static let handler: @convention(c) (Int32) -> Void = { signal in
        for (directory, count) in active {
            for partition in 0..<count { unlink(directory + "/part-" + String(partition)) }
            rmdir(directory)
        }
        _exit(128 + signal)
    }
}

/// A pthread mutex, so the core of NavLog needs no Foundation.
final class NSLockLike: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    init() { pthread_mutex_init(mutex, nil) }
    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

enum ProcessEnvironment {
    static var temporaryDirectory: String {
        if let value = getenv("TMPDIR"), value.pointee != 0 { return String(cString: value) }
        return "/tmp"
    }
}

/// How many bytes the inputs hold, for sizing spill partitions (gzip counted as 6x).
enum InputSize {
    static func estimate(_ paths: [String]) -> Int64 {
        var total: Int64 = 0
        for path in paths where path != "-" {
            var status = stat()
            guard stat(path, &status) == 0 else { continue }
            total += Int64(status.st_size) * (path.hasSuffix(".gz") ? 6 : 1)
        }
        return total
    }
}

extension LineReader {
    /// Reads a whole (small) file into `bytes`.
    static func readWholeFile(_ path: String, into bytes: inout [UInt8]) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw InputError.opening(path, errno: errno) }
        defer { close(fd) }
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw InputError.opening(path, errno: errno)
            }
            if count == 0 { break }
            bytes += chunk[0..<count]
        }
    }
}

