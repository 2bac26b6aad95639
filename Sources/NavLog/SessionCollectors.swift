#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import CNavSupport
import Dispatch
import NavEvents
import NavJSON
import NavModel
import NavReplay

/// Where decoded lines go until their sessions are folded. Three strategies, one per way of
/// reading: everything in memory, spilled to disk partitions past a memory budget, or streamed
/// session by session for pre-grouped input.
protocol SessionCollector: AnyObject {
    /// Takes one valid line; `raw` is its original bytes (what a spill writes to disk).
    func add(_ key: SessionKey, _ line: SessionLine, raw: UnsafeBufferPointer<UInt8>) throws
    /// Folds what is left and hands every session to `results`, in session order; calls
    /// `progress` (from any thread, one call at a time) with the parts folded so far, and
    /// `beforeOutput` once before the first session is delivered, with the lines found invalid
    /// only while folding (routed lines, decoded then).
    ///
    /// Sessions that fold apart (partitions, pre-grouped input) and share an event id with
    /// another session (`EventIDLedger`) are folded again with `refold`, which reads them again
    /// and resolves their shared ids; its sessions replace theirs in the output.
    func finish(
        into results: SessionResults, progress: @escaping @Sendable (FoldProgress) -> Void, refold: Refold,
        beforeOutput: (_ lateInvalid: [Finding]) throws -> Void) throws
    var sessionCount: Int { get }
}

typealias RefoldProduct = @Sendable (_ key: SessionKey, _ previous: SessionAudit, _ audit: SessionAudit) -> FoldedSession

/// What a run over the same inputs is asked for when sessions that share event ids are folded
/// again (`Refold`), in two passes that each hold little: `gather` finds the owner of every
/// shared id (its first occurrence, in the first session that has it) among the lines of the
/// sessions concerned, holding only those owners; `fold` then folds those sessions, partitioned
/// as any audit past `--memory-limit`, with the owners known.
final class RefoldRequest: @unchecked Sendable {
    // @unchecked: the variables are touched under `lock` only (fold jobs add at once).
    enum Pass: Sendable { case gather, fold }
    let pass: Pass
    /// The sessions to read (and their shared ids), by `EventIDLedger` hash.
    let sharing: EventIDLedger.Sharing
    /// For `fold`: the owners of the shared ids, per model.
    let owners: [Int: [UInt64: [EarlierOccurrence]]]
    /// The asking run's product, so that the output is formatted as its own.
    let product: RefoldProduct
    private let lock = NSLockLike()
    private var gathered: [Int: EarlierOccurrence.Owners] = [:]
    private var folded: [SessionKey: FoldedSession] = [:]

    init(pass: Pass, sharing: EventIDLedger.Sharing, owners: [Int: [UInt64: [EarlierOccurrence]]] = [:], product: @escaping RefoldProduct) {
        self.pass = pass
        self.sharing = sharing
        self.owners = owners
        self.product = product
    }

    /// Whether a line of this session is read again.
    func reads(sessionID: String, model: Int) -> Bool {
        sharing.sessions.contains(EventIDLedger.hash(SessionKey(model: model, id: sessionID)))
    }

    /// `gather`: a line of a session read again, kept if it may own a shared id.
    func gather(_ line: SessionLine, model: Int) {
        guard sharing.ids.contains(EventIDLedger.idHash(line.decoded.eventIDHash, model: model)) else { return }
        lock.withLock { gathered[model, default: EarlierOccurrence.Owners()].offer(line) }
    }

    /// `fold`: a session folded again.
    func add(_ session: FoldedSession) {
        lock.withLock { folded[session.key] = session }
    }

    var gatheredOwners: [Int: [UInt64: [EarlierOccurrence]]] { lock.withLock { gathered.mapValues(\.shared) } }
    var sessions: [SessionKey: FoldedSession] { lock.withLock { folded } }
}

/// Folds again the sessions that share event ids (`EventIDLedger.Sharing`), read again from the
/// inputs, with the owners of their shared ids known; each comes with the tally of its first
/// fold (`previous`).
typealias Refold = (_ sharing: EventIDLedger.Sharing) throws -> [SessionKey: FoldedSession]

/// What the summary needs of folded sessions: counts that add up over sessions in any order.
struct SessionTally: Sendable {
    var sessions = 0
    var redeliveries: Int64 = 0
    var duplicates: Int64 = 0
    var events: Int64 = 0
    /// Every finding, kept or dropped past `--max-findings-per-session`.
    var findings = 0
    var findingsByRule: [Rule: Int] = [:]
    /// Findings kept (and so shown), by severity.
    var keptBySeverity: [Severity: Int] = [:]

    init() {}

    /// What `other` added to a tally: taken away again (a session folded twice).
    mutating func subtract(_ other: SessionTally) {
        sessions -= other.sessions
        redeliveries -= other.redeliveries
        duplicates -= other.duplicates
        events -= other.events
        findings -= other.findings
        findingsByRule.merge(other.findingsByRule.mapValues { -$0 }, uniquingKeysWith: +)
        keptBySeverity.merge(other.keptBySeverity.mapValues { -$0 }, uniquingKeysWith: +)
        findingsByRule = findingsByRule.filter { $0.value != 0 }
        keptBySeverity = keptBySeverity.filter { $0.value != 0 }
    }

    init(_ audit: SessionAudit) {
        sessions = 1
        redeliveries = Int64(audit.redeliveries)
        duplicates = Int64(audit.duplicates)
        events = Int64(audit.events)
        findings = audit.findingCount
        for finding in audit.findings {
            findingsByRule[finding.rule, default: 0] += 1
            keptBySeverity[finding.severity, default: 0] += 1
        }
        for (rule, dropped) in audit.droppedFindings { findingsByRule[rule, default: 0] += dropped }
    }

    mutating func add(_ other: SessionTally) {
        sessions += other.sessions
        redeliveries += other.redeliveries
        duplicates += other.duplicates
        events += other.events
        findings += other.findings
        findingsByRule.merge(other.findingsByRule, uniquingKeysWith: +)
        keptBySeverity.merge(other.keptBySeverity, uniquingKeysWith: +)
    }
}

/// One folded session as a fold job hands it on: its counts, and either the whole audit
/// (collected for reports) or only its formatted output (streamed).
struct FoldedSession: Sendable {
    var key: SessionKey
    var tally: SessionTally
    var audit: SessionAudit?
    var output: [UInt8]
    /// For a session folded again (`Refold`): the tally of its first fold, which this replaces.
    var previous: SessionTally?
}

/// Receives folded sessions, in session order, for the engine: keeps the audits or writes
/// their output as it comes, and sums the counts either way.
final class SessionResults {
    /// How a fold job turns an audit into what is kept; runs on any job.
    let product: @Sendable (SessionKey, SessionAudit) -> FoldedSession
    private let write: (([UInt8]) throws -> Void)?
    private(set) var audits: [SessionAudit] = []
    private(set) var tally = SessionTally()
    var isStreaming: Bool { write != nil }

    /// The product of a session folded again (`Refold`): from its first audit and its new one.
    let refoldProduct: RefoldProduct

    /// Keeps every audit.
    init() {
        product = { key, audit in FoldedSession(key: key, tally: SessionTally(audit), audit: audit, output: []) }
        refoldProduct = { key, previous, audit in
            FoldedSession(key: key, tally: SessionTally(audit), audit: audit, output: [], previous: SessionTally(previous))
        }
        write = nil
    }

    /// Keeps no audit: formats each on its fold job and writes the output in session order.
    init(
        format: @escaping @Sendable (SessionAudit) -> [UInt8], reformat: @escaping @Sendable (SessionAudit, SessionAudit) -> [UInt8],
        write: @escaping ([UInt8]) throws -> Void
    ) {
        product = { key, audit in FoldedSession(key: key, tally: SessionTally(audit), audit: nil, output: format(audit)) }
        refoldProduct = { key, previous, audit in
            FoldedSession(key: key, tally: SessionTally(audit), audit: nil, output: reformat(previous, audit), previous: SessionTally(previous))
        }
        self.write = write
    }

    func deliver(_ folded: FoldedSession) throws {
        tally.add(folded.tally)
        try deliver(key: folded.key, audit: folded.audit, output: folded.output)
    }

    /// For output merged back from disk, whose counts were added with `add(_:)`.
    func deliver(key: SessionKey, audit: SessionAudit?, output: [UInt8]) throws {
        if let audit { audits.append(audit) }
        if let write, !output.isEmpty { try write(output) }
    }

    func add(_ partial: SessionTally) { tally.add(partial) }

    /// A session folded again, whose first tally was added already.
    func replace(_ previous: SessionTally, with tally: SessionTally) {
        self.tally.subtract(previous)
        self.tally.add(tally)
    }
}

/// Folds sessions held in memory, in parallel, `jobs` at a time; returns them in session order.
///
/// They are held whole, so the event ids they share are resolved before they fold
/// (`EarlierOccurrence.resolve`). With `refold` (the sessions are being folded again for another
/// run, `RefoldRequest`), each is also folded without them, as that run first folded it, and
/// `refold` makes the product from both.
func foldInParallel(
    _ sessions: consuming [SessionKey: [SessionLine]], models: [NavigationModel], options: SessionAuditOptions, jobs: Int,
    refolding: RefoldRequest? = nil, product: @escaping @Sendable (SessionKey, SessionAudit) -> FoldedSession
) -> [FoldedSession] {
    let keys = sessions.keys.sorted()
    // Event ids are an app's own: each model's sessions are resolved apart. The references
    // taken here are gone before the folds, which need each array unshared.
    var resolved: [Int: [UInt64: [EarlierOccurrence]]] = [:]
    if let refolding {
        resolved = refolding.owners
    } else {
        for model in Set(keys.map(\.model)).sorted() {
            resolved[model] = EarlierOccurrence.resolve(keys.filter { $0.model == model }.map { sessions[$0]! })
        }
    }
    let earlier = resolved
    // Each session's lines are moved out of the dictionary, so that its audit holds the only
    // reference to them and folds the events in place (see `SessionAuditor`). Callers pass
    // their dictionary with `consume`: a second reference would make each array a copy.
    let groups = ParallelResults<[SessionLine]>(count: keys.count)
    for (index, key) in keys.enumerated() { groups[index] = sessions.removeValue(forKey: key) }
    let results = ParallelResults<FoldedSession>(count: keys.count)
    let work: @Sendable (Int) -> Void = { index in
        var lines = groups.take(index) ?? []
        let key = keys[index]
        var sessionOptions = options
        sessionOptions.earlierOccurrences = earlier[key.model] ?? [:]
        if let refolding {
            results[index] = refoldSession(key, &lines, models: models, options: sessionOptions, refold: refolding.product)
        } else {
            results[index] = foldSession(key, &lines, models: models, options: sessionOptions, product: product)
        }
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
    return results.values
}

/// Audits a session folded again (`Refold`) twice: as it was first folded (without the owners of
/// shared event ids in `options`) and with them; `refold` makes the product from both.
func refoldSession(
    _ key: SessionKey, _ lines: inout [SessionLine], models: [NavigationModel], options: SessionAuditOptions, refold: RefoldProduct
) -> FoldedSession {
    let model = model(of: key, in: models)
    var first = options
    first.earlierOccurrences = [:]
    let previous = SessionAuditor.audit(sessionID: key.id, lines: &lines, model: model, options: first)
    let audit =
        options.earlierOccurrences.isEmpty ? previous : SessionAuditor.audit(sessionID: key.id, lines: &lines, model: model, options: options)
    return refold(key, previous, audit)
}

/// Audits one session's lines (folding their events in place: they are the same after).
func foldSession(
    _ key: SessionKey, _ lines: inout [SessionLine], models: [NavigationModel], options: SessionAuditOptions,
    product: @Sendable (SessionKey, SessionAudit) -> FoldedSession
) -> FoldedSession {
    product(key, SessionAuditor.audit(sessionID: key.id, lines: &lines, model: model(of: key, in: models), options: options))
}

/// A session's model: the one its app's files named (the PoC model if the index is off).
func model(of key: SessionKey, in models: [NavigationModel]) -> NavigationModel {
    models.indices.contains(key.model) ? models[key.model] : .poc
}

/// How far the fold of spilled partitions has come.
public struct FoldProgress: Sendable {
    public var partitionsFolded: Int
    public var partitions: Int
    public var findings: Int
    /// Sessions folded again, after every partition, for the event ids they share with other
    /// sessions (0 until then).
    public var sessionsFoldedAgain = 0
}

/// Counts folded partitions across jobs and reports each step, one report at a time.
final class FoldCounter: @unchecked Sendable {
    // @unchecked: every field is touched only under `lock`.
    private let lock = NSLockLike()
    private var progress: FoldProgress
    private let report: @Sendable (FoldProgress) -> Void

    init(partitions: Int, report: @escaping @Sendable (FoldProgress) -> Void) {
        progress = FoldProgress(partitionsFolded: 0, partitions: partitions, findings: 0)
        self.report = report
    }

    func folded(findings: Int) {
        lock.withLock {
            progress.partitionsFolded += 1
            progress.findings += findings
            report(progress)
        }
    }

    /// After every partition: `sessions` were folded again, with `findings` more findings.
    func foldedAgain(sessions: Int, findings: Int) {
        lock.withLock {
            progress.sessionsFoldedAgain += sessions
            progress.findings += findings
            report(progress)
        }
    }
}

// MARK: Pre-grouped input

/// For input already grouped by session and ordered by seq: folds each session when the next
/// one begins, so only one session's events are in memory at a time.
final class StreamingCollector: SessionCollector {
    private let models: [NavigationModel]
    private let options: SessionAuditOptions
    private let product: @Sendable (SessionKey, SessionAudit) -> FoldedSession
    private var currentKey: SessionKey?
    private var current: [SessionLine] = []
    private var finished: Set<SessionKey> = []
    private var folded: [FoldedSession] = []
    /// The event ids of the sessions folded, to find those that share one.
    private let ledger: EventIDLedger
    private let jobs: Int
    /// Sessions met again after another session had begun: the input was not grouped.
    private(set) var regroupedSessions: [(sessionID: String, location: LineLocation)] = []

    init(
        models: [NavigationModel], options: SessionAuditOptions, ledger: EventIDLedger, jobs: Int,
        product: @escaping @Sendable (SessionKey, SessionAudit) -> FoldedSession
    ) {
        self.models = models
        self.options = options
        self.ledger = ledger
        self.jobs = jobs
        self.product = product
    }

    var sessionCount: Int { finished.count + (currentKey == nil ? 0 : 1) }

    func add(_ key: SessionKey, _ line: SessionLine, raw: UnsafeBufferPointer<UInt8>) throws {
        if key != currentKey {
            flush()
            if finished.contains(key) { regroupedSessions.append((key.id, line.location)) }
            currentKey = key
        }
        current.append(line)
    }

    private func flush() {
        guard let key = currentKey else { return }
        folded.append(product(key, SessionAuditor.audit(sessionID: key.id, lines: &current, model: model(of: key, in: models), options: options)))
        current.withUnsafeBufferPointer { ledger.record(key, lines: $0) }
        finished.insert(key)
        current.removeAll(keepingCapacity: true)
        currentKey = nil
    }

    func finish(
        into results: SessionResults, progress: @escaping @Sendable (FoldProgress) -> Void, refold: Refold,
        beforeOutput: (_ lateInvalid: [Finding]) throws -> Void
    ) throws {
        flush()
        let sharing = try ledger.sharing(jobs: jobs)
        if !sharing.isEmpty {
            let refolded = try refold(sharing)
            for index in folded.indices {
                if let again = refolded[folded[index].key] { folded[index] = again }
            }
        }
        try beforeOutput([])
        // Output order is session order whatever order the groups came in. What is held is
        // the product: only the formatted output when streaming.
        folded.sort { $0.key < $1.key }
        for session in folded { try results.deliver(session) }
        folded = []
    }
}

// MARK: Bounded memory

/// Holds sessions in memory up to a budget; past it, writes the held lines to hash partitions
/// on disk (by session), and at the end folds one partition at a time per job. Peak memory
/// stays near the budget whatever the input size; the partitions are removed when done, on
/// error, and on Ctrl-C.
///
/// When the output is streamed, each partition's sessions are formatted as they fold and
/// written, in session order, to an output file of the partition; a k-way merge of those
/// sorted files then writes the whole output in session order, so no finding is held.
final class SpillingCollector: SessionCollector {
    private let models: [NavigationModel]
    private let options: SessionAuditOptions
    private let jobs: Int
    private let memoryLimit: Int
    private let temporaryDirectory: String?
    private let estimatedInputBytes: Int64
    private let partitionedInputBytes: Int64
    private let partitionMemory: Int?
    private var held: [SessionKey: [SessionLine]] = [:]
    /// Set when this collector folds sessions again for another run (`Refold`): they go there.
    var refolding: RefoldRequest?
    /// For a run that folds one session only (`replay --session`): the event ids of the other
    /// sessions' lines, which are not held, to find those that share one with it.
    var othersLedger: EventIDLedger?
    private var heldBytes = 0
    private var heldRawBytes = 0
    private var spill: SpillPartitions?

    init(
        models: [NavigationModel], options: SessionAuditOptions, jobs: Int, memoryLimit: Int, temporaryDirectory: String?,
        estimatedInputBytes: Int64, partitionedInputBytes: Int64 = 32 << 20, partitionMemory: Int? = nil
    ) throws {
        self.partitionedInputBytes = partitionedInputBytes
        self.partitionMemory = partitionMemory
        self.models = models
        self.options = options
        self.jobs = max(1, jobs > 0 ? jobs : System.coreCount)
        self.memoryLimit = max(1 << 20, memoryLimit)
        self.temporaryDirectory = temporaryDirectory
        self.estimatedInputBytes = estimatedInputBytes
    }

    /// Whether lines went to partitions, and whether those stayed in memory to the end.
    var partitioned: Bool { spill != nil }
    private(set) var partitionsStayedInMemory = false

    /// A run that failed before `finish` (which removes them) leaves no partitions either.
    deinit { spill?.remove() }

    /// Sessions met so far, for the progress line: the distinct `session_id`s of the lines
    /// taken (a routed line found invalid later may add one), up to `countedSessionsCap`.
    var sessionCount: Int { max(held.count, seenSessions.count) }
    /// Keyed by the session hash itself (one mix, not a SipHash per routed line).
    private var seenSessions = Set<PrehashedKey>()
    private static let countedSessionsCap = 1 << 20

    private func count(_ key: SessionKey) {
        count(sessionHash: StableHash.string(key.id), model: key.model)
    }

    private func count(sessionHash: UInt64, model: Int) {
        count(PrehashedKey(sessionHash &+ UInt64(model)))
    }

    private func count(_ session: PrehashedKey) {
        if seenSessions.count < SpillingCollector.countedSessionsCap { seenSessions.insert(session) }
    }

    // MARK: Routed lines

    private var routedFiles: [String] = []
    private var quarantine: QuarantineWriter?
    /// Quarantine records of lines found invalid while reading, kept aside (in line order)
    /// to be merged with those found while folding.
    private var readingQuarantine: SpillFileWriter?

    /// Before routed lines come: the input paths (for quarantine records), the quarantine,
    /// and the inputs that are mapped, by file (their lines are routed as references).
    func prepareRouting(files: [String], quarantine: QuarantineWriter?, mapped: [MappedInput?]) {
        routedFiles = files
        self.quarantine = quarantine
        self.mapped = mapped
        mappedBytes = mapped.reduce(0) { $0 + Int64($1?.bytes.count ?? 0) }
    }

    private var mapped: [MappedInput?] = []
    private(set) var routedLines: Int64 = 0
    private(set) var referencedLines: Int64 = 0
    private(set) var shortenedLines: Int64 = 0
    private var mappedBytes: Int64 = 0

    /// Takes a line of a mapped input by reference; it is decoded in place when its partition
    /// folds.
    func addReference(model: Int, sessionHash: UInt64, location: LineLocation, offset: Int, length: Int) throws {
        if spill == nil { try spillHeld() }
        try spill?.writeReference(sessionHash: sessionHash, model: model, location: location, offset: offset, length: length)
        count(sessionHash: sessionHash, model: model)
        routedLines += 1
        referencedLines += 1
    }

    /// The partitions routed lines go to (made now if need be), for routing on other threads.
    func routingPartitions() throws -> Int {
        if spill == nil { try spillHeld() }
        return spill?.count ?? 1
    }

    /// Takes the references of a chunk routed on another thread (`ChunkRouter`), numbered as
    /// the file's lines already.
    func addReferences(_ chunk: RoutedChunk) throws {
        if spill == nil { try spillHeld() }
        guard let spill else { return }
        for (partition, records) in chunk.references.enumerated() {
            if let records, records.count > 0 { try spill.append(records: records, to: partition) }
        }
        for session in chunk.sessions { count(session) }
        routedLines += chunk.referenceCount
        referencedLines += chunk.referenceCount
    }

    /// Takes a line routed by its session only, in shorthand; it is decoded when its partition
    /// folds.
    func addShortened(model: Int, sessionHash: UInt64, location: LineLocation, short: UnsafeBufferPointer<UInt8>) throws {
        if spill == nil { try spillHeld() }
        try spill?.writeShortened(sessionHash: sessionHash, model: model, location: location, short: short)
        count(sessionHash: sessionHash, model: model)
        routedLines += 1
        shortenedLines += 1
    }

    /// Takes a line routed by its session only; it is decoded when its partition folds.
    func addUndecoded(model: Int, sessionHash: UInt64, location: LineLocation, unterminated: Bool, raw: UnsafeBufferPointer<UInt8>) throws {
        if spill == nil { try spillHeld() }
        try spill?.writeUndecoded(sessionHash: sessionHash, model: model, location: location, unterminated: unterminated, raw: raw)
        count(sessionHash: sessionHash, model: model)
        routedLines += 1
    }

    /// A quarantine record of a line found invalid while reading, with routing on.
    func quarantine(_ record: [UInt8], at location: LineLocation) {
        guard quarantine != nil else { return }
        do {
            if spill == nil { try spillHeld() }
            guard let spill else { return }
            if readingQuarantine == nil {
                readingQuarantine = try SpillFileWriter(path: spill.readingQuarantinePath, bufferBytes: 1 << 16)
            }
            try readingQuarantine?.appendLocated(record, at: location)
        } catch {
            // The spill directory failed: write the record now, out of line order.
            quarantine?.write(record)
        }
    }

    /// What one held line costs in memory: the decoded event, its strings (ids and timestamps
    /// are heap strings), the array slot and its growth slack. Measured: about 2.5 times the
    /// line's bytes plus a fixed part; the estimate errs high so that the budget holds.
    static func heldCost(rawBytes: Int) -> Int { 512 + 3 * rawBytes }

    /// Half the budget holds lines; the rest is for folding, output and the partition buffers.
    private var holdBudget: Int { memoryLimit / 2 }

    /// Whether to partition from the first line: when the inputs' size (when known: files, not
    /// standard input) says they would not fit in the budget held as decoded lines (about 300
    /// bytes a line), or is `partitionedInputBytes` (32 MB) or more. Partitions pay even when
    /// memory would do: on a 100 MB log they took 0.51 to 0.64 s and 74 to 117 MB, holding
    /// decoded lines 0.64 s and 212 MB (scripts/bench).
    var spillsFromTheStart: Bool {
        estimatedInputBytes >= partitionedInputBytes
            || estimatedInputBytes > 0
            && SpillingCollector.heldCost(rawBytes: 300) * Int(min(estimatedInputBytes / 300, Int64(Int.max / 4096))) > holdBudget
    }

    func add(_ key: SessionKey, _ line: SessionLine, raw: UnsafeBufferPointer<UInt8>) throws {
        if let spill {
            count(key)
            // Past the budget once, every later line goes straight to its partition.
            try spill.write(key: key, line: line, raw: raw)
            return
        }
        if held.isEmpty, spillsFromTheStart {
            // The input will not fit: spill from the first line, rather than hold lines up to
            // the budget and then re-encode them all (measured: half the time of doing so on
            // a 1 GB log, and partitions are small enough to fold in the cache's favour).
            try spillHeld()
            try spill?.write(key: key, line: line, raw: raw)
            count(key)
            return
        }
        held[key, default: []].append(line)
        heldBytes += SpillingCollector.heldCost(rawBytes: raw.count)
        heldRawBytes += raw.count
        // Input of unknown size (standard input) is partitioned once it is as large as a file
        // partitioned from the start: holding 1 GB of it decoded took 11.7 s and 1.3 GB.
        if heldBytes > holdBudget || heldRawBytes >= partitionedInputBytes {
            for key in held.keys { count(key) }
            try spillHeld()
        }
    }

    /// How the partitions are laid out, from the inputs' size and the memory limit.
    private struct PartitionPlan {
        var count: Int
        var perPartition: Int64
        var bufferBytes: Int
        /// What folding needs besides the partitions: `jobs` partitions decoded, the buffers.
        var reserve: Int
    }

    private var plan: PartitionPlan {
        // At most 16 MB a partition whatever the budget: small partitions fold faster (their
        // sessions stay in the cache; measured 13.7 s vs 15.0 s on 1 GB with 128 MB ones).
        let perPartition = min(16 << 20, max(Int64(1 << 20), Int64(memoryLimit / 2 / jobs) / 3))
        // Partitions small enough that `jobs` of them, decoded, fit in the budget, planned
        // for the inputs' size and a quarter more (gzip counted as 12 times its file: its
        // ratio varies); unknown (standard input), for 1,024 partitions: too few made each
        // too large to fold within the budget (a 1 GB log on standard input peaked at 480 MB
        // with 128M). More than needed cost time: smaller writes, more files.
        let expected = estimatedInputBytes > 0 ? max(estimatedInputBytes + estimatedInputBytes / 4, Int64(heldBytes) * 2) : 1024 * perPartition
        let count = Int(min(max((expected + perPartition - 1) / perPartition, 8), Int64(SpillPartitions.maximumCount())))
        // Write buffers: an eighth of the budget in all, at most 64 MB, 4 KB to 256 KB each.
        let buffers = min(memoryLimit / 8, 64 << 20)
        let bufferBytes = min(256 << 10, max(4096, buffers / count))
        return PartitionPlan(
            count: count, perPartition: perPartition, bufferBytes: bufferBytes, reserve: jobs * Int(perPartition) * 4 + count * (bufferBytes + 1024))
    }

    /// Plain files of `bytes` in all may be mapped (`MappedInput`) when they fit the memory
    /// limit, less what folding needs, with a quarter more for the references routed to the
    /// partitions (a record of 33 bytes for a line of about 300).
    func mayMap(bytes: Int64) -> Bool {
        bytes > 0 && bytes + bytes / 4 + Int64(plan.reserve) <= Int64(memoryLimit)
    }

    private func spillHeld() throws {
        if spill == nil {
            var plan = self.plan
            // Partitions of references alone (every input mapped) stay in memory while the
            // budget holds them: a 1 GB log's are 110 MB, spared the kernel's copy in and out
            // of the page cache. Copied lines go to files: kept in memory, they cost more (the
            // kernel zeroing fresh pages: 6.9 to 7.9 s on a 1 GB log, files 5.2 to 6.6 s).
            let fitting = max(0, memoryLimit - plan.reserve - Int(mappedBytes))
            let allMapped = mappedBytes > 0 && mappedBytes >= estimatedInputBytes
            var budget = partitionMemory ?? (allMapped && mappedBytes / 4 <= Int64(fitting) ? fitting : 0)
            // Buffers kept in memory are a huge page each when a quarter of the budget allows,
            // and at most half the budget in all whatever it is.
            let hugeBuffers = plan.count * (2 << 20)
            if budget > 0, hugeBuffers <= budget / 4 {
                plan.bufferBytes = (2 << 20) - 1024
                budget -= hugeBuffers
            } else if budget > 0 {
                plan.bufferBytes = min(plan.bufferBytes, max(4096, budget / plan.count / 2))
            }
            spill = try SpillPartitions(count: plan.count, directory: temporaryDirectory, bufferBytes: plan.bufferBytes, memoryBudget: budget)
        }
        guard let spill else { return }
        for (key, lines) in held {
            // Held lines no longer have their original bytes; the record keeps their identities.
            for line in lines { try spill.write(key: key, line: line, raw: nil) }
        }
        held.removeAll()
        heldBytes = 0
        heldRawBytes = 0
    }

    func finish(
        into results: SessionResults, progress: @escaping @Sendable (FoldProgress) -> Void, refold: Refold,
        beforeOutput: (_ lateInvalid: [Finding]) throws -> Void
    ) throws {
        guard let spill else {
            try beforeOutput([])
            var sessions: [SessionKey: [SessionLine]] = [:]
            swap(&sessions, &held)
            // A session folded alone is folded again with the sessions it shares ids with.
            var sharing = EventIDLedger.Sharing()
            if let othersLedger, !sessions.isEmpty {
                for (key, lines) in sessions {
                    for index in lines.indices { sharing.ids.insert(EventIDLedger.idHash(lines[index].decoded.eventIDHash, model: key.model)) }
                }
                sharing.sessions = try othersLedger.sessions(withAnyOf: sharing.ids)
                if !sharing.isEmpty { sharing.sessions.formUnion(sessions.keys.map(EventIDLedger.hash)) }
            }
            var folded = foldInParallel(
                consume sessions, models: models, options: options, jobs: jobs, refolding: refolding, product: results.product)
            if let refolding {
                for session in folded { refolding.add(session) }
                return
            }
            if !sharing.isEmpty {
                let refolded = try refold(sharing)
                for index in folded.indices {
                    if var again = refolded[folded[index].key] {
                        again.previous = nil
                        folded[index] = again
                    }
                }
            }
            for session in folded { try results.deliver(session) }
            return
        }
        defer { spill.remove() }
        try spillHeld()
        try spill.closeWriters()
        partitionsStayedInMemory = spill.inMemory
        try readingQuarantine?.close()
        let models = self.models
        let options = self.options
        let workers = min(jobs, spill.count)
        let product = results.product
        let counter = FoldCounter(partitions: spill.count, report: progress)
        let streaming = results.isStreaming
        let files = routedFiles
        let mapped = self.mapped
        let keepQuarantine = quarantine != nil
        let refolding = self.refolding
        // A refold's sessions need no ledger: they are folded with their shared ids known.
        let ledger = refolding == nil ? EventIDLedger(memoryBudget: memoryLimit / 8, temporaryDirectory: temporaryDirectory, jobs: workers) : nil
        ledger?.reserve(lines: routedLines)
        defer { ledger?.remove() }
        // Each job folds whole partitions; streamed output is written, sorted, beside them.
        let folded = ParallelResults<Result<FoldedPartition, any Error>>(count: spill.count)
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            var buffer: [UInt8] = []
            for partition in stride(from: worker, to: spill.count, by: workers) {
                folded[partition] = Result {
                    var sessions: [FoldedSession] = []
                    let invalid = try spill.read(
                        partition: partition, files: files, mapped: mapped, keepQuarantine: keepQuarantine, buffer: &buffer
                    ) { key, lines in
                        if let refolding {
                            // Folded again for another run, with the owners of shared ids known
                            // (only the sessions asked for: a line routed by a colliding tag may
                            // bring another).
                            guard refolding.reads(sessionID: key.id, model: key.model) else { return }
                            var known = options
                            known.earlierOccurrences = refolding.owners[key.model] ?? [:]
                            refolding.add(refoldSession(key, &lines, models: models, options: known, refold: refolding.product))
                            return
                        }
                        sessions.append(foldSession(key, &lines, models: models, options: options, product: product))
                        lines.withUnsafeBufferPointer { ledger?.record(key, lines: $0, worker: worker) }
                    }
                    sessions.sort { $0.key < $1.key }
                    var result = FoldedPartition(invalid: invalid)
                    if streaming {
                        result.tally = try spill.writeOutput(partition: partition, sessions)
                    } else {
                        for session in sessions { result.tally.add(session.tally) }
                        result.sessions = sessions
                    }
                    counter.folded(findings: result.tally.findings)
                    return result
                }
            }
        }
        if refolding != nil {
            for result in folded.values { _ = try result.get() }
            return
        }
        var late: [Finding] = []
        var all: [FoldedSession] = []
        for result in folded.values {
            let partition = try result.get()
            late += partition.invalid
            if streaming { results.add(partition.tally) } else { all += partition.sessions }
        }
        // Sessions that share event ids with others are folded again, with them resolved.
        let sharing = try ledger?.sharing(jobs: jobs) ?? EventIDLedger.Sharing()
        let refolded = sharing.isEmpty ? [:] : try refold(sharing)
        if let quarantine { try spill.mergeQuarantine(into: quarantine) }
        try beforeOutput(late.sorted { ($0.location ?? LineLocation(file: 0, line: 0)) < ($1.location ?? LineLocation(file: 0, line: 0)) })
        if !refolded.isEmpty {
            var added = 0
            for session in refolded.values { added += session.tally.findings - (session.previous?.findings ?? 0) }
            counter.foldedAgain(sessions: refolded.count, findings: added)
        }
        if streaming {
            var replacements = refolded.values.sorted { $0.key < $1.key }[...]
            for session in replacements { results.replace(session.previous ?? SessionTally(), with: session.tally) }
            // The refolded sessions' outputs replace the first ones, in session order (a
            // session may have had no output at first).
            try spill.mergeOutputs { key, output in
                while let next = replacements.first, next.key < key {
                    try results.deliver(key: next.key, audit: nil, output: next.output)
                    replacements.removeFirst()
                }
                if let next = replacements.first, next.key == key {
                    try results.deliver(key: next.key, audit: nil, output: next.output)
                    replacements.removeFirst()
                } else {
                    try results.deliver(key: key, audit: nil, output: output)
                }
            }
            for session in replacements { try results.deliver(key: session.key, audit: nil, output: session.output) }
            return
        }
        // Partitions split sessions by hash; merge back into session order.
        for index in all.indices {
            if let again = refolded[all[index].key] { all[index] = again }
        }
        all.sort { $0.key < $1.key }
        for session in all { try results.deliver(session) }
    }
}

/// One partition record, its length field included, read through the header's fields (see
/// `SpillPartitions`: `[u32 length][i32 model][i32 file][i64 line][u8 form][u32 session tag]`).
struct SpillRecord {
    let bytes: UnsafeBufferPointer<UInt8>

    /// The record starting at `start`, whose length field has been checked against its buffer.
    init(startingAt start: UnsafePointer<UInt8>) {
        let length = Int(UnsafeBufferPointer(start: start, count: 4).load(UInt32.self, at: 0))
        bytes = UnsafeBufferPointer(start: start, count: 4 + length)
    }

    var model: Int { Int(bytes.load(Int32.self, at: 4)) }
    var location: LineLocation { LineLocation(file: bytes.load(Int32.self, at: 8), line: bytes.load(Int64.self, at: 12)) }
    var form: UInt8 { bytes[20] }
    var tag: UInt32 { bytes.load(UInt32.self, at: 21) }
    /// Where the form's own fields begin.
    static let fieldsOffset = 4 + SpillPartitions.headerBytes
}

/// What folding one partition gave.
struct FoldedPartition: Sendable {
    var tally = SessionTally()
    var sessions: [FoldedSession] = []
    /// Routed lines that turned out not to be valid events.
    var invalid: [Finding]
}

/// The temporary partition files of one spilled audit.
///
/// A record is `[u32 length][i32 model][i32 file][i64 line][u8 form][u32 session tag]` and
/// then, by form:
///
/// - a decoded line (held, then spilled): `[u64 identity][u64 content identity][u64 event_id
///   hash][u64 correlation_id hash]` and the event, in `SpillCodec`'s binary form (form 1) or as
///   JSON (form 0: the original line when it is at hand, else the canonical form, which decodes
///   into the same event). The hashes are the original line's, so redeliveries are still
///   recognised after the round trip;
/// - a line routed by its session only: its raw bytes (form 2, or 3 with no line end), or in
///   `LineShorthand` (form 5) when the inputs are large (`AuditConfiguration.shorthandFromBytes`);
/// - a line of a mapped input: `[u64 offset][u32 length]` in the file (form 4), 37 bytes in
///   all (57 with the hashes' slots, which routed lines never need: a 1 GB log's references
///   went from 177 to 110 MB; 123 MB with the session tag).
///
/// With streamed output, each partition also gets an output file of records
/// `[u32 id length][id][i32 model][u32 output length][output]`, sorted by session.
final class SpillPartitions: @unchecked Sendable {
    // @unchecked: writers are used by the reading thread only; after `closeWriters()`,
    // partitions are only read, each by one job, and output file `n` is written only by the
    // job folding partition `n`.
    let count: Int
    let directory: String
    /// Where the signal handler finds this directory (-1: not registered).
    private var cleanupSlot: Int32 = -1
    private var writers: [SpillFileWriter]
    private let bufferBytes: Int
    private var removed = false
    /// Whether the partitions are still kept in memory (full buffers kept, not written).
    private(set) var inMemory: Bool
    /// How many bytes of buffers the partitions may keep in memory before all go to files.
    private let memoryBudget: Int
    private var keptBytes = 0
    /// After `closeWriters()`, each partition's buffers when they stayed in memory.
    private var resident: [ResidentPartition] = []

    /// `memoryBudget`: bytes of buffers the partitions may keep in memory; past it, every
    /// partition goes to its file (0: files from the start).
    init(count: Int, directory: String?, bufferBytes: Int, memoryBudget: Int = 0) throws {
        self.count = count
        self.bufferBytes = bufferBytes
        self.memoryBudget = memoryBudget
        inMemory = memoryBudget > 0
        (self.directory, cleanupSlot) = try ScratchDirectory.make(in: directory, files: count)
        writers = []
        do {
            for partition in 0..<count {
                writers.append(try SpillFileWriter(path: path(partition), bufferBytes: bufferBytes, createNow: !inMemory))
            }
        } catch {
            remove()
            throw error
        }
    }

    func path(_ partition: Int) -> String { directory + "/part-" + String(partition) }
    func outputPath(_ partition: Int) -> String { directory + "/out-" + String(partition) }
    /// Quarantine records of a partition's lines found invalid while folding.
    func quarantinePath(_ partition: Int) -> String { directory + "/bad-" + String(partition) }
    /// Quarantine records of lines found invalid while reading.
    var readingQuarantinePath: String { directory + "/bad-reading" }

    /// Writes a line routed by its session only (form 2, or 3 if it has no line end), to be
    /// decoded when its partition folds.
    func writeUndecoded(sessionHash: UInt64, model: Int, location: LineLocation, unterminated: Bool, raw: UnsafeBufferPointer<UInt8>) throws {
        try writeLine(sessionHash: sessionHash, model: model, location: location, form: unterminated ? 3 : 2, bytes: raw)
    }

    /// Writes a routed line in `LineShorthand` (form 5), made by the decoding jobs.
    func writeShortened(sessionHash: UInt64, model: Int, location: LineLocation, short: UnsafeBufferPointer<UInt8>) throws {
        try writeLine(sessionHash: sessionHash, model: model, location: location, form: 5, bytes: short)
    }

    private func writeLine(sessionHash: UInt64, model: Int, location: LineLocation, form: UInt8, bytes: UnsafeBufferPointer<UInt8>) throws {
        let writer = writers[Int(sessionHash % UInt64(count))]
        let buffer = writer.buffer
        buffer.append(UInt32(SpillPartitions.headerBytes + bytes.count))
        buffer.append(Int32(model))
        buffer.append(location.file)
        buffer.append(location.line)
        buffer.append(form)
        buffer.append(SpillPartitions.tag(sessionHash: sessionHash))
        buffer.append(UnsafeRawBufferPointer(bytes))
        if writer.isFull { try flush(writer) }
    }

    /// Writes a reference to a line of a mapped input (form 4): its offset and length.
    func writeReference(sessionHash: UInt64, model: Int, location: LineLocation, offset: Int, length: Int) throws {
        let writer = writers[Int(sessionHash % UInt64(count))]
        SpillPartitions.appendReference(
            to: writer.buffer, sessionHash: sessionHash, model: model, location: location, offset: offset, length: length)
        if writer.isFull { try flush(writer) }
    }

    /// A reference record (form 4), `4 + referenceBytes` bytes; its line number is at
    /// `referenceLineOffset`.
    static func appendReference(to buffer: ByteBuffer, sessionHash: UInt64, model: Int, location: LineLocation, offset: Int, length: Int) {
        buffer.append(UInt32(referenceBytes))
        buffer.append(Int32(model))
        buffer.append(location.file)
        buffer.append(location.line)
        buffer.append(UInt8(4))
        buffer.append(tag(sessionHash: sessionHash))
        buffer.append(UInt64(offset))
        buffer.append(UInt32(length))
    }

    /// Whether a line can be referenced in place (its length fits the record's 32 bits).
    static func canReference(length: Int) -> Bool { length <= Int(UInt32.max) }

    /// Where a record's line number lies, from the record's start: after its length, model and file.
    static let referenceLineOffset = 4 + 4 + 4

    /// Appends a buffer of whole records (a chunk's references) to a partition, after what it
    /// holds: kept in memory while the budget allows, else written.
    func append(records: ByteBuffer, to partition: Int) throws {
        let writer = writers[partition]
        if inMemory {
            // What `keep` adds: these records, and the writer's buffer if it holds any.
            if keptBytes + records.capacity + (writer.buffer.count > 0 ? writer.buffer.capacity : 0) <= memoryBudget {
                keptBytes += writer.keep(records)
                return
            }
            try leaveMemory()
        }
        try writer.write(records: records)
    }

    /// A full buffer: kept in memory while the budget allows, else written (and, the first
    /// time, every partition's kept buffers with it).
    private func flush(_ writer: SpillFileWriter) throws {
        if inMemory {
            if keptBytes + writer.buffer.capacity <= memoryBudget {
                keptBytes += writer.keepBuffer()
                return
            }
            try leaveMemory()
        }
        try writer.flush()
    }

    /// Past the memory budget: every partition's kept buffers go to its file, and from now on
    /// full buffers are written.
    private func leaveMemory() throws {
        inMemory = false
        keptBytes = 0
        for writer in writers { try writer.writeKept() }
    }

    /// Writes one line to its session's partition: in `SpillCodec`'s binary form, or else as
    /// JSON (the original `raw` line if given, else the canonical form).
    func write(key: SessionKey, line: SessionLine, raw: UnsafeBufferPointer<UInt8>?) throws {
        let sessionHash = StableHash.string(key.id)
        let writer = writers[Int(sessionHash % UInt64(count))]
        let buffer = writer.buffer
        let start = buffer.count
        buffer.append(UInt32(0))  // the length, set below
        buffer.append(Int32(key.model))
        buffer.append(line.location.file)
        buffer.append(line.location.line)
        let form = buffer.count
        buffer.append(UInt8(1))
        buffer.append(SpillPartitions.tag(sessionHash: sessionHash))
        buffer.append(line.decoded.identity)
        buffer.append(line.decoded.contentIdentity)
        buffer.append(line.decoded.eventIDHash)
        buffer.append(line.decoded.correlationIDHash)
        if !SpillCodec.encode(line.event, into: buffer) {
            buffer.patch(UInt8(0), at: form)
            if let raw {
                buffer.append(UnsafeRawBufferPointer(raw))
            } else {
                var json = JSONWriter(reservingCapacity: 512)
                line.event.write(to: &json)
                buffer.append(json.bytes)
            }
        }
        buffer.patch(UInt32(buffer.count - start - 4), at: start)
        if writer.isFull { try flush(writer) }
    }

    /// How many partitions may be open at once: up to 4,096 (64 GB of input in 16 MB
    /// partitions), as the open-files limit allows once raised to its hard limit.
    static func maximumCount() -> Int {
        #if canImport(Glibc)
            let resource = Int32(RLIMIT_NOFILE.rawValue)
        #else
            let resource = RLIMIT_NOFILE
        #endif
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return 512 }
        let wanted = rlim_t(4096 + 256)
        if limit.rlim_cur < wanted && limit.rlim_max > limit.rlim_cur {
            var raised = limit
            raised.rlim_cur = min(wanted, limit.rlim_max)
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return max(8, min(4096, Int(limit.rlim_cur) - 256))
    }

    /// The record header after its length: model, file, line, the form and the session tag.
    static let headerBytes = 4 + 4 + 8 + 1 + 4
    /// The session tag ends the header: the high half of the session id's `StableHash` (whose
    /// remainder chose the partition), so that a partition's records can be grouped by session
    /// before any is decoded (`SpillRecord.tag`).
    static func tag(sessionHash: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: sessionHash >> 32) }
    /// A reference's record after its length: the header, the offset and the line's length.
    static let referenceBytes = headerBytes + 8 + 4
    /// The four hashes that follow the header of a decoded line (forms 0 and 1).
    static let hashBytes = 8 * 4
    /// How many references ahead a mapped line is prefetched.
    static let prefetchDistance = 4

    func closeWriters() throws {
        if inMemory {
            resident = writers.map { ResidentPartition(buffers: $0.takeAll()) }
        } else {
            for writer in writers { try writer.close() }
        }
        writers = []
    }

    /// Reads one partition back and hands its sessions to `fold`, one at a time, each with its
    /// lines in the partition's (line) order. Routed lines are decoded here; those that are not
    /// valid events come back as findings (and, with `keepQuarantine`, as quarantine records in
    /// the partition's `bad-` file, in line order).
    ///
    /// The records are first grouped by the session tag in their header, so that a session's
    /// lines are decoded together and folded at once, while their events are still in the
    /// cache, and only one session's events are in memory at a time. (Decoding the whole
    /// partition into a dictionary of sessions first cost a session lookup and a share of an
    /// array's regrowth per line, and the fold found the events evicted.)
    func read(
        partition: Int, files: [String], mapped: [MappedInput?] = [], keepQuarantine: Bool, buffer bytes: inout [UInt8],
        fold: (SessionKey, inout [SessionLine]) throws -> Void
    ) throws -> [Finding] {
        let kept = resident.isEmpty ? nil : resident[partition].take()
        if kept == nil {
            try LineReader.readWholeFile(path(partition), into: &bytes)
            // Gone as soon as it is read: its pages need never be written back to the disk (on
            // a 4 GB log, the kernel's writeback of partitions no longer needed cost more than
            // the fold).
            unlink(path(partition))
        }
        var invalid: [Finding] = []
        var quarantined: [(location: LineLocation, record: [UInt8])] = []
        let decoder = EventDecoder()
        let strings = StringCache()
        // The mappings' bytes, not the `MappedInput`s (which `mapped` keeps alive): retaining
        // one per line, from every job at once, was 2.4% of a 1 GB audit.
        let mappedBytes = mapped.map { $0?.bytes }
        let expanded = ByteBuffer(capacity: 4096)

        /// The body of a mapped line's reference record (form 4), if it lies inside its input.
        func mappedLine(_ record: SpillRecord) -> UnsafeBufferPointer<UInt8>? {
            let file = Int(record.location.file)
            let fields = SpillRecord.fieldsOffset
            let offset = Int(truncatingIfNeeded: record.bytes.load(UInt64.self, at: fields))
            let count = Int(record.bytes.load(UInt32.self, at: fields + 8))
            guard record.bytes.count == 4 + SpillPartitions.referenceBytes, mappedBytes.indices.contains(file), let input = mappedBytes[file],
                offset >= 0, offset <= input.count, count <= input.count - offset
            else { return nil }
            return UnsafeBufferPointer(rebasing: input[offset..<(offset + count)])
        }

        /// The event of one record (length field included), or `nil` for a routed line that is
        /// not a valid event (then recorded as a finding).
        func decode(_ spilled: SpillRecord, location: LineLocation) throws -> DecodedEvent? {
            let record = spilled.bytes
            let form = spilled.form
            let fields = SpillRecord.fieldsOffset
            var body = UnsafeBufferPointer(rebasing: record[fields...])
            if form == 0 || form == 1 {
                guard record.count >= fields + SpillPartitions.hashBytes else { throw corrupt(partition) }
                body = UnsafeBufferPointer(rebasing: record[(fields + SpillPartitions.hashBytes)...])
            } else if form == 5 {
                // A line in shorthand, expanded to its own bytes.
                expanded.removeAll()
                guard expanded.append(upTo: LineShorthand.expandedCapacity(body.count), { LineShorthand.expand(body, into: $0) }) != nil
                else { throw corrupt(partition) }
                body = expanded.byteBuffer
            } else if form == 4 {
                // A line of a mapped input, decoded in place.
                guard let line = mappedLine(spilled) else { throw corrupt(partition) }
                body = line
            }
            switch form {
            case 1:
                guard let event = SpillCodec.decode(body, strings: strings) else { throw corrupt(partition) }
                return DecodedEvent(
                    event, identity: record.load(UInt64.self, at: fields), contentIdentity: record.load(UInt64.self, at: fields + 8),
                    eventIDHash: record.load(UInt64.self, at: fields + 16), correlationIDHash: record.load(UInt64.self, at: fields + 24))
            case 0:
                guard case .success(var event) = decoder.decode(body, names: strings) else { throw corrupt(partition) }
                event.identity = record.load(UInt64.self, at: fields)
                event.contentIdentity = record.load(UInt64.self, at: fields + 8)
                return event
            case 2, 3, 4, 5:
                switch decoder.decode(body, names: strings) {
                case .success(let event): return event
                case .failure(let error):
                    let reason = InvalidLine.reason(error, unterminated: form == 3)
                    invalid.append(InvalidLine.finding(at: location, message: reason.message))
                    if keepQuarantine {
                        let file = files.indices.contains(Int(location.file)) ? files[Int(location.file)] : ""
                        quarantined.append(
                            (location, QuarantineWriter.record(file: file, line: location.line, field: reason.field, reason: reason.message, raw: body)))
                    }
                    return nil
                }
            default: throw corrupt(partition)
            }
        }

        /// Every record, by where it starts (its length field), in the partition's order.
        func records(in buffer: UnsafeBufferPointer<UInt8>, into records: inout [UnsafePointer<UInt8>]) {
            var offset = 0
            while offset + 4 + SpillPartitions.headerBytes <= buffer.count {
                let length = Int(buffer.load(UInt32.self, at: offset))
                guard length >= SpillPartitions.headerBytes, offset + 4 + length <= buffer.count else { break }
                records.append(buffer.baseAddress! + offset)
                offset += 4 + length
            }
        }

        func foldAll(_ records: [UnsafePointer<UInt8>]) throws {
            @inline(__always) func record(_ index: Int32) -> SpillRecord { SpillRecord(startingAt: records[Int(index)]) }
            let groups = SessionTagGroups(records.map { SpillRecord(startingAt: $0).tag })
            var lines: [SessionLine] = []
            var others: [SessionKey: [SessionLine]] = [:]
            for group in 0..<groups.count {
                let members = groups.members(of: group)
                lines.reserveCapacity(members.count)
                var key: SessionKey?
                for position in members.indices {
                    // The mapped lines a few records on are loaded meanwhile: they lie far apart.
                    let ahead = position + SpillPartitions.prefetchDistance
                    if ahead < members.endIndex {
                        let next = record(members[ahead])
                        if next.form == 4, let line = mappedLine(next) {
                            navreplay_prefetch(line.baseAddress!, min(512, line.count))
                        }
                    }
                    let current = record(members[position])
                    let location = current.location
                    guard let decoded = try decode(current, location: location) else { continue }
                    // Moved, not copied, into its session (a copy retained and released every string).
                    let lineKey = SessionKey(model: current.model, id: decoded.event.sessionID)
                    if key == nil { key = lineKey }
                    if lineKey == key {
                        lines.append(SessionLine(decoded: consume decoded, location: location))
                    } else {
                        // Another session with the same tag (or the same id under another model).
                        others[lineKey, default: []].append(SessionLine(decoded: consume decoded, location: location))
                    }
                }
                if let key { try fold(key, &lines) }
                lines.removeAll(keepingCapacity: true)
                for (otherKey, var otherLines) in others { try fold(otherKey, &otherLines) }
                others.removeAll()
            }
        }

        var starts: [UnsafePointer<UInt8>] = []
        if let kept {
            // Each kept buffer ends at a record's end.
            try withExtendedLifetime(kept) {
                for chunk in kept { records(in: chunk.byteBuffer, into: &starts) }
                try foldAll(starts)
            }
        } else {
            try bytes.withUnsafeBufferPointer {
                records(in: $0, into: &starts)
                try foldAll(starts)
            }
        }
        if !quarantined.isEmpty {
            // Sessions fold in tag order; the quarantine keeps line order.
            quarantined.sort { $0.location < $1.location }
            let quarantine = try SpillFileWriter(path: quarantinePath(partition), bufferBytes: 1 << 16)
            defer { quarantine.discard() }
            for (location, record) in quarantined { try quarantine.appendLocated(record, at: location) }
            try quarantine.close()
        }
        return invalid
    }

    private func corrupt(_ partition: Int) -> InputError {
        InputError(code: .unreadable, path: path(partition), message: "a spill record does not decode")
    }

    /// Writes the quarantine records kept aside (while reading, and per partition while
    /// folding) into `quarantine`, in line order: each file is in line order already.
    func mergeQuarantine(into quarantine: QuarantineWriter) throws {
        var readers: [SpillOutputReader] = []
        defer { for reader in readers { reader.close() } }
        for path in [readingQuarantinePath] + (0..<count).map(quarantinePath) where access(path, F_OK) == 0 {
            readers.append(try SpillOutputReader(path: path, bufferBytes: 1 << 16))
        }
        try SpillPartitions.merge(readers) { _, record in quarantine.write(record) }
    }

    /// Writes one partition's folded sessions (in session order) to its output file and
    /// returns their counts. Sessions with no output take no record.
    func writeOutput(partition: Int, _ folded: [FoldedSession]) throws -> SessionTally {
        let writer = try SpillFileWriter(path: outputPath(partition), bufferBytes: bufferBytes)
        var tally = SessionTally()
        for session in folded {
            tally.add(session.tally)
            guard !session.output.isEmpty else { continue }
            let id = Array(session.key.id.utf8)
            writer.buffer.append(UInt32(id.count))
            writer.buffer.append(id)
            writer.buffer.append(Int32(session.key.model))
            writer.buffer.append(UInt32(session.output.count))
            writer.buffer.append(session.output)
            try writer.flushIfFull()
        }
        try writer.close()
        return tally
    }

    /// Merges the sorted output files into one stream in session order (a k-way merge over a
    /// binary heap), handing each session's output to `deliver`.
    func mergeOutputs(_ deliver: (SessionKey, [UInt8]) throws -> Void) throws {
        var readers: [SpillOutputReader] = []
        defer { for reader in readers { reader.close() } }
        let readBuffer = max(4096, min(1 << 16, bufferBytes))
        for partition in 0..<count { readers.append(try SpillOutputReader(path: outputPath(partition), bufferBytes: readBuffer)) }
        try SpillPartitions.merge(readers, deliver)
    }

    /// A k-way merge of sorted record files over a binary heap, smallest key first.
    static func merge(_ readers: [SpillOutputReader], _ deliver: (SessionKey, [UInt8]) throws -> Void) throws {
        var heads: [(key: SessionKey, output: [UInt8])?] = []
        for reader in readers { heads.append(try reader.next()) }
        // The heap holds the files whose next record is pending.
        var heap = MinHeap<Int> { heads[$0]!.key < heads[$1]!.key }
        for index in readers.indices where heads[index] != nil { heap.push(index) }
        while let index = heap.pop() {
            let head = heads[index]!
            try deliver(head.key, head.output)
            heads[index] = try readers[index].next()
            if heads[index] != nil { heap.push(index) }
        }
    }

    /// Removes the partition files, the output files and their directory.
    func remove() {
        guard !removed else { return }
        removed = true
        for writer in writers { writer.discard() }
        writers = []
        resident = []
        for partition in 0..<count {
            unlink(path(partition))
            unlink(outputPath(partition))
            unlink(quarantinePath(partition))
        }
        unlink(readingQuarantinePath)
        rmdir(directory)
        SpillCleanup.unregister(cleanupSlot)
    }
}

/// One partition's records kept in memory, taken once by the job that folds it.
final class ResidentPartition: @unchecked Sendable {
    // @unchecked: only the job folding this partition touches `buffers`.
    private var buffers: [ByteBuffer]
    init(buffers: [ByteBuffer]) { self.buffers = buffers }
    func take() -> [ByteBuffer] {
        defer { buffers = [] }
        return buffers
    }
}

/// An append-only temporary file written through a buffer; or, for a partition that is kept
/// in memory, its full buffers kept in order instead of written.
final class SpillFileWriter {
    let path: String
    private(set) var buffer: ByteBuffer
    private var descriptor: Int32 = -1
    private let bufferBytes: Int
    /// Full buffers kept in memory instead of written, in order; each ends at a record's end.
    private(set) var kept: [ByteBuffer] = []

    /// Creates the file now, or (`createNow` false, for a partition that may stay in memory)
    /// when something is first written to it.
    init(path: String, bufferBytes: Int, createNow: Bool = true) throws {
        self.path = path
        self.bufferBytes = bufferBytes
        buffer = ByteBuffer(capacity: bufferBytes + 1024)
        if createNow { try create() }
    }

    private func create() throws {
        descriptor = SpillCleanup.creating { open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600) }
        guard descriptor >= 0 else {
            throw InputError(code: .unreadable, path: path, message: "cannot create a spill file: \(String(cString: strerror(errno)))")
        }
    }

    /// A record keyed by its place, in the output files' format, so that the same merge
    /// orders it: the key is the location as fixed-width digits (file, then line), which sort
    /// as the location does.
    func appendLocated(_ record: [UInt8], at location: LineLocation) throws {
        let key = Array(SpillFileWriter.sortKey(location).utf8)
        buffer.append(UInt32(key.count))
        buffer.append(key)
        buffer.append(Int32(0))
        buffer.append(UInt32(record.count))
        buffer.append(record)
        try flushIfFull()
    }

    static func sortKey(_ location: LineLocation) -> String {
        func digits(_ value: Int64, _ width: Int) -> String {
            let text = String(max(0, value))
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return digits(Int64(location.file), 10) + ":" + digits(location.line, 19)
    }

    var isFull: Bool { buffer.count >= bufferBytes }

    @inline(__always) func flushIfFull() throws {
        if isFull { try flush() }
    }

    /// Keeps the buffer in memory, as it is, and starts a new one; returns the bytes kept.
    func keepBuffer() -> Int {
        let size = buffer.capacity
        kept.append(buffer)
        buffer = ByteBuffer(capacity: bufferBytes + 1024)
        return size
    }

    /// Keeps `records` (whole records) after everything written to this writer so far;
    /// returns the bytes kept.
    func keep(_ records: ByteBuffer) -> Int {
        var size = records.capacity
        if buffer.count > 0 { size += keepBuffer() }
        kept.append(records)
        return size
    }

    /// Writes `records` (whole records) after everything written to this writer so far.
    func write(records: ByteBuffer) throws {
        if buffer.count > 0 { try flush() }
        try write(records.bytes)
    }

    /// Writes the kept buffers to the file (created even if there are none), in order, and
    /// lets them go.
    func writeKept() throws {
        if descriptor < 0 { try create() }
        for chunk in kept { try write(chunk.bytes) }
        kept = []
    }

    /// The kept buffers and what is buffered, in order; the writer is empty afterwards.
    func takeAll() -> [ByteBuffer] {
        var all = kept
        if buffer.count > 0 { all.append(buffer) }
        kept = []
        buffer = ByteBuffer(capacity: 16)
        return all
    }

    func flush() throws {
        try write(buffer.bytes)
        buffer.removeAll()
    }

    private func write(_ raw: UnsafeRawBufferPointer) throws {
        guard raw.count > 0 else { return }
        if descriptor < 0 { try create() }
        try ScratchDirectory.writeAll(raw, to: descriptor, path: path, what: "a spill file")
    }

    func close() throws {
        defer { discard() }
        try flush()
    }

    /// Closes without writing what is buffered or kept.
    func discard() {
        if descriptor >= 0 { systemClose(descriptor) }
        descriptor = -1
        buffer.removeAll()
        kept = []
    }
}

/// Reads the records of one partition's output file, in order, through a buffer.
final class SpillOutputReader {
    private let path: String
    private var descriptor: Int32
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0

    init(path: String, bufferBytes: Int) throws {
        self.path = path
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw InputError.opening(path, errno: errno) }
        buffer = [UInt8](repeating: 0, count: bufferBytes)
    }

    /// Makes at least `count` bytes available from `start`; false at the end of the file.
    private func fill(_ count: Int) throws -> Bool {
        if end - start >= count { return true }
        if start > 0 {
            buffer.withUnsafeMutableBufferPointer { raw in
                _ = memmove(raw.baseAddress!, raw.baseAddress! + start, end - start)
            }
            end -= start
            start = 0
        }
        if buffer.count < count { buffer += [UInt8](repeating: 0, count: count - buffer.count) }
        while end < count {
            let read = buffer.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress! + end, $0.count - end) }
            if read < 0 {
                if errno == EINTR { continue }
                throw InputError.opening(path, errno: errno)
            }
            if read == 0 { return false }
            end += read
        }
        return true
    }

    func next() throws -> (key: SessionKey, output: [UInt8])? {
        guard try fill(4) else { return nil }
        let idLength = Int(buffer.withUnsafeBufferPointer { $0.load(UInt32.self, at: start) })
        guard try fill(4 + idLength + 8) else { throw truncated() }
        let (id, model, outputLength) = buffer.withUnsafeBufferPointer { raw in
            (String(decoding: UnsafeBufferPointer(rebasing: raw[(start + 4)..<(start + 4 + idLength)]), as: UTF8.self),
             Int(raw.load(Int32.self, at: start + 4 + idLength)), Int(raw.load(UInt32.self, at: start + 8 + idLength)))
        }
        start += 12 + idLength
        guard try fill(outputLength) else { throw truncated() }
        let output = Array(buffer[start..<(start + outputLength)])
        start += outputLength
        return (SessionKey(model: model, id: id), output)
    }

    private func truncated() -> InputError {
        InputError(code: .unreadable, path: path, message: "a spill output file is truncated")
    }

    func close() {
        if descriptor >= 0 { systemClose(descriptor) }
        descriptor = -1
    }
}

/// A binary min-heap under a given order.
struct MinHeap<Element> {
    private var elements: [Element] = []
    private let precedes: (Element, Element) -> Bool

    init(by precedes: @escaping (Element, Element) -> Bool) { self.precedes = precedes }

    mutating func push(_ element: Element) {
        elements.append(element)
        var child = elements.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(elements[child], elements[parent]) else { break }
            elements.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> Element? {
        guard !elements.isEmpty else { return nil }
        elements.swapAt(0, elements.count - 1)
        let top = elements.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < elements.count, precedes(elements[left], elements[smallest]) { smallest = left }
            if right < elements.count, precedes(elements[right], elements[smallest]) { smallest = right }
            if smallest == parent { break }
            elements.swapAt(parent, smallest)
            parent = smallest
        }
        return top
    }
}

// File-scope wrappers: inside a type with its own `close()`, the C call would not resolve.
private func systemClose(_ descriptor: Int32) { _ = close(descriptor) }
private func systemRead(_ descriptor: Int32, _ bytes: UnsafeMutableRawPointer, _ count: Int) -> Int { read(descriptor, bytes, count) }

extension UnsafeBufferPointer<UInt8> {
    /// A little-endian integer at a byte offset, whatever its alignment.
    func load<T: FixedWidthInteger>(_ type: T.Type, at offset: Int) -> T {
        T(littleEndian: UnsafeRawPointer(baseAddress! + offset).loadUnaligned(as: T.self))
    }
}

/// Removes spill partitions when the process is interrupted (Ctrl-C, SIGTERM) or its output
/// pipe closes (SIGPIPE). The handler and the registry it reads are in C (`shim.h`): a handler
/// may not allocate nor enter Swift's runtime, since the thread it interrupts may hold a lock.
enum SpillCleanup {
    private static let lock = NSLockLike()
    nonisolated(unsafe) private static var installed = false

    /// Makes a spill directory with `mkdir` (which returns 0 when it made it), registered for
    /// removal before it exists, so that no signal can come in between; returns the result and
    /// the registration (-1 when the registry is full: that run's partitions then survive an
    /// interrupt, as a `kill -9` leaves them).
    static func makeDirectory(_ path: String, partitions: Int, _ mkdir: () -> Int32) -> (result: Int32, slot: Int32) {
        lock.withLock {
            installHandlers()
            var slot: Int32 = -1
            let result = creating {
                slot = navreplay_spill_register(path, partitions)
                let result = mkdir()
                if result != 0 {
                    navreplay_spill_unregister(slot)
                    slot = -1
                }
                return result
            }
            return (result, slot)
        }
    }

    static func unregister(_ slot: Int32) {
        lock.withLock { _ = creating { navreplay_spill_unregister(slot); return 0 } }
    }

    private static func installHandlers() {
        guard !installed else { return }
        installed = true
        signal(SIGINT, navreplay_spill_on_signal)
        signal(SIGTERM, navreplay_spill_on_signal)
        // Output is streamed while partitions exist: a reader that goes away (`| head`) ends
        // the run, and the partitions go with it. An ignored SIGPIPE stays ignored (then the
        // write fails and the run unwinds normally).
        let previous = signal(SIGPIPE, navreplay_spill_on_signal)
        if let previous, unsafeBitCast(previous, to: UnsafeRawPointer.self) == unsafeBitCast(SIG_IGN, to: UnsafeRawPointer.self) {
            signal(SIGPIPE, SIG_IGN)
        }
    }

    /// Creates a spill file or directory, unless the process is exiting: then the calling
    /// thread waits for the exit instead, so that nothing appears after the handler's unlinks.
    static func creating(_ create: () -> Int32) -> Int32 {
        guard navreplay_spill_enter() != 0 else {
            while true { pause() }
        }
        defer { navreplay_spill_leave() }
        return create()
    }

    /// Removes every registered spill directory, for another signal's handler (the process is
    /// about to exit): a C function, since the registry's state is this file's (`shim.h`).
    static let removeAllOnSignal: @convention(c) () -> Void = { navreplay_spill_remove_all() }
}

/// A pthread mutex, so the core of NavLog needs no Foundation.
package final class NSLockLike: @unchecked Sendable {
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

enum ProcessEnvironment {
    static var temporaryDirectory: String {
        if let value = getenv("TMPDIR"), value.pointee != 0 { return String(cString: value) }
        return "/tmp"
    }
}

/// How many bytes the inputs hold, for sizing spill partitions (gzip counted as 6x).
enum InputSize {
    static func estimate(_ paths: [String], gzipRatio: Int64 = 6) -> Int64 {
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
    static func readWholeFile(_ path: String, into bytes: inout [UInt8]) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw InputError.opening(path, errno: errno) }
        defer { close(fd) }
        var status = stat()
        let expected = fstat(fd, &status) == 0 ? max(0, Int(status.st_size)) : 0
        // Read straight into `bytes`, reusing its storage (a partition is read into the same
        // buffer as the last one of its job: no new pages to fault in).
        bytes.removeAll(keepingCapacity: true)
        bytes.append(contentsOf: repeatElement(0, count: max(4096, expected + 1)))
        var length = 0
        while true {
            if length == bytes.count { bytes.append(contentsOf: repeatElement(0, count: bytes.count)) }
            let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + length, $0.count - length) }
            if count < 0 {
                if errno == EINTR { continue }
                throw InputError.opening(path, errno: errno)
            }
            if count == 0 { break }
            length += count
        }
        bytes.removeSubrange(length...)    }
}

