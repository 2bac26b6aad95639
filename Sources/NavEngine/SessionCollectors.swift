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
import NavInput
import NavResults
import NavPartitions

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

/// Folds sessions held in memory, in parallel, `jobs` at a time; returns them in session order,
/// each job's sink state combined.
///
/// They are held whole, so the event ids they share are resolved before they fold
/// (`EarlierOccurrence.resolve`). With `refolding` (the sessions are being folded again for another
/// run, `RefoldRequest`), each is also folded without them, as that run first folded it, and
/// that run's sink takes both.
func foldInParallel(
    _ sessions: consuming [SessionKey: [SessionLine]], models: [NavigationModel], options: SessionAuditOptions, jobs: Int,
    refolding: RefoldRequest? = nil, sink: FoldJobs
) -> [FoldedSession] {
    let keys = sessions.keys.sorted()
    // Event ids are an app's own: each model's sessions are resolved apart. The references
    // taken here are gone before the folds, which need each array unshared.
    var resolved: [Int: [UInt64: [EarlierOccurrence]]] = [:]
    if let refolding {
        resolved = refolding.owners
    } else {
        for model in Set(keys.map(\.model)).sorted() {
            resolved[model] = EarlierOccurrence.resolve(keys.filter { $0.model == model }.compactMap { sessions[$0] })
        }
    }
    let earlier = resolved
    // Each session's lines are moved out of the dictionary, so that its audit holds the only
    // reference to them and folds the events in place (see `SessionAuditor`). Callers pass
    // their dictionary with `consume`: a second reference would make each array a copy.
    let groups = ParallelResults<[SessionLine]>(count: keys.count)
    for (index, key) in keys.enumerated() { groups[index] = sessions.removeValue(forKey: key) }
    let results = ParallelResults<FoldedSession>(count: keys.count)
    let workers = max(1, jobs > 0 ? jobs : System.coreCount)
    let stripes = workers == 1 || keys.count < 2 ? 1 : workers
    let done = ParallelResults<any FoldJob>(count: stripes)
    let make = sink.make
    let work: @Sendable (Int, any FoldJob) -> Void = { index, job in
        var lines = groups.take(index) ?? []
        let key = keys[index]
        var sessionOptions = options
        sessionOptions.earlierOccurrences = earlier[key.model] ?? [:]
        if refolding != nil {
            results[index] = refoldSession(key, &lines, models: models, options: sessionOptions, job: job)
        } else {
            results[index] = foldSession(key, &lines, models: models, options: sessionOptions, job: job)
        }
    }
    // Sessions are independent once grouped; each job writes only its own slots.
    DispatchQueue.concurrentPerform(iterations: stripes) { stripe in
        let job = make()
        for index in stride(from: stripe, to: keys.count, by: stripes) { work(index, job) }
        done[stripe] = job
    }
    for job in done.values { sink.combine(job) }
    return results.values
}

/// Audits one session's lines (folding their events in place: they are the same after).
func foldSession(
    _ key: SessionKey, _ lines: inout [SessionLine], models: [NavigationModel], options: SessionAuditOptions, job: any FoldJob
) -> FoldedSession {
    job.folded(key, SessionAuditor.audit(sessionID: key.id, lines: &lines, model: model(of: key, in: models), options: options))
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
    private let sink: FoldJobs
    /// The one fold job: sessions fold on the reading thread, one at a time.
    private let job: any FoldJob
    private var currentKey: SessionKey?
    private var currentStart = LineLocation(file: 0, line: 0)
    private var current: [SessionLine] = []
    private var flushed = 0
    /// Streamed output: each session's record waits for session order here, on disk past a
    /// budget. Kept audits (a report of every session) are held in `folded` instead.
    private let runs: SessionRuns?
    private var folded: [(session: FoldedSession, start: LineLocation)] = []
    /// The event ids of the sessions folded, to find those that share one.
    private let ledger: EventIDLedger
    private let jobs: Int
    /// Sessions met again after another session had begun: the input was not grouped. Known
    /// once `finish` has put the sessions in order.
    private(set) var regroupedSessions: [(sessionID: String, location: LineLocation)] = []
    /// A session whose lines pass `longPlan.sessionBytes` (as held) folds from disk.
    private let longPlan: LongSessionPlan
    private var currentBytes = 0
    private var long: LongSession?
    /// Sessions whose output is made when it is written (`FoldedSession.isDeferred`), by where
    /// they began: their records in `runs` have no output.
    private var deferred: [LineLocation: FoldedSession] = [:]

    init(
        models: [NavigationModel], options: SessionAuditOptions, ledger: EventIDLedger, runs: SessionRuns?, jobs: Int,
        sink: FoldJobs, longPlan: LongSessionPlan
    ) {
        self.models = models
        self.options = options
        self.ledger = ledger
        self.runs = runs
        self.jobs = jobs
        self.sink = sink
        self.longPlan = longPlan
        job = sink.make()
    }

    var sessionCount: Int { flushed + (currentKey == nil ? 0 : 1) }

    func add(_ key: SessionKey, _ line: SessionLine, raw: UnsafeBufferPointer<UInt8>) throws {
        if key != currentKey {
            try flush()
            currentKey = key
            currentStart = line.location
        }
        if let long {
            try addLong(line, to: long)
            return
        }
        current.append(line)
        currentBytes += SpillingCollector.heldCost(rawBytes: raw.count)
        if currentBytes > longPlan.sessionBytes {
            // Too large to hold: the session goes on from disk.
            let long = try LongSession(
                key: key, model: model(of: key, in: models), budget: longPlan.budget, temporaryDirectory: longPlan.temporaryDirectory)
            for line in current { try addLong(line, to: long) }
            current.removeAll()
            self.long = long
        }
    }

    private func addLong(_ line: SessionLine, to long: LongSession) throws {
        try long.add(line)
        ledger.record(
            eventIDHash: EventIDLedger.idHash(line.decoded.eventIDHash, model: long.key.model), session: EventIDLedger.hash(long.key))
    }

    private func flush() throws {
        guard let key = currentKey else { return }
        let session: FoldedSession
        if let long {
            self.long = nil
            session = job.folded(key, try long.audit(options: options))
        } else {
            session = foldSession(key, &current, models: models, options: options, job: job)
        }
        currentBytes = 0
        if let runs {
            try runs.add(SessionRuns.Record(key: key, start: currentStart, tally: session.tally, output: session.output))
            if session.isDeferred { deferred[currentStart] = session }
        } else {
            folded.append((session, currentStart))
        }
        current.withUnsafeBufferPointer { ledger.record(key, lines: $0) }
        flushed += 1
        current.removeAll(keepingCapacity: true)
        currentKey = nil
    }

    func finish(
        into results: SessionResults, progress: @escaping @Sendable (FoldProgress) -> Void, refold: Refold,
        beforeOutput: (_ lateInvalid: [Finding]) throws -> Void
    ) throws {
        try flush()
        // Before any session is folded again: a refold replaces what the job took.
        sink.combine(job)
        let sharing = try ledger.sharing(jobs: jobs)
        let refolded = sharing.isEmpty ? [:] : try refold(sharing)
        try beforeOutput([])
        // Output order is session order whatever order the groups came in; a session that
        // comes twice (the input was not grouped) is written twice, and reported.
        var previous: SessionKey?
        var regrouped: [(sessionID: String, location: LineLocation)] = []
        func deliver(_ key: SessionKey, start: LineLocation, _ session: () throws -> Void) throws {
            if key == previous { regrouped.append((key.id, start)) }
            previous = key
            if let again = refolded[key] { try results.deliver(again) } else { try session() }
        }
        if let runs {
            try runs.drain { record in
                try deliver(record.key, start: record.start) {
                    results.add(record.tally)
                    if let session = deferred.removeValue(forKey: record.start) {
                        try results.deliverOutput(of: session)
                    } else {
                        try results.deliver(key: record.key, audit: nil, output: record.output)
                    }
                }
            }
        } else {
            for index in sessionOrder(folded.count, key: { folded[$0].session.key }) {
                try deliver(folded[index].session.key, start: folded[index].start) { try results.deliver(folded[index].session) }
            }
            folded = []
        }
        regroupedSessions = regrouped.sorted { $0.location < $1.location }
    }
}
