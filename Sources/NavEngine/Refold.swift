import NavEvents
import NavModel
import NavReplay
import NavInput
import NavResults
import NavPartitions

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
    /// The asking run's sink, so that the output is formatted (or accumulated) as its own.
    let sink: FoldJobs
    /// For `fold`: where the sessions' output waits for the asking run's merge, past a budget
    /// (a log whose sessions all share ids folds them all again).
    let outputs: OutputStore?
    private let lock = NSLockLike()
    private var gathered: [Int: EarlierOccurrence.Owners] = [:]
    private var folded: [SessionKey: FoldedSession] = [:]

    init(
        pass: Pass, sharing: EventIDLedger.Sharing, owners: [Int: [UInt64: [EarlierOccurrence]]] = [:], outputs: OutputStore? = nil,
        sink: FoldJobs
    ) {
        self.pass = pass
        self.sharing = sharing
        self.owners = owners
        self.outputs = outputs
        self.sink = sink
        // One per session to fold again (they may be every session): grown by doubling, the
        // table held both sizes at once, 40% of a refold's peak.
        if pass == .fold { folded.reserveCapacity(sharing.sessions.count) }
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
        var session = session
        outputs?.setAside(&session)
        lock.withLock { folded[session.key] = session }
    }

    var gatheredOwners: [Int: [UInt64: [EarlierOccurrence]]] { lock.withLock { gathered.mapValues(\.shared) } }
    var sessions: [SessionKey: FoldedSession] { lock.withLock { folded } }
}

/// Folds again the sessions that share event ids (`EventIDLedger.Sharing`), read again from the
/// inputs, with the owners of their shared ids known; each comes with the tally of its first
/// fold (`previous`).
typealias Refold = (_ sharing: EventIDLedger.Sharing) throws -> [SessionKey: FoldedSession]

/// Audits a session folded again (`Refold`) twice: as it was first folded (without the owners of
/// shared event ids in `options`) and with them; the asking run's fold job takes both.
func refoldSession(
    _ key: SessionKey, _ lines: inout [SessionLine], models: [NavigationModel], options: SessionAuditOptions, job: any FoldJob
) -> FoldedSession {
    let model = model(of: key, in: models)
    var first = options
    first.earlierOccurrences = [:]
    let previous = SessionAuditor.audit(sessionID: key.id, lines: &lines, model: model, options: first)
    let audit =
        options.earlierOccurrences.isEmpty
        ? previous : SessionAuditor.audit(sessionID: key.id, lines: &lines, model: model, options: options)
    return job.refolded(key, previous: previous, audit)
}

/// Folds again the sessions that share event ids (docs/events-and-rules.md): the first fold kept no line,
/// so they are read again, by two runs over the same inputs that read only them: one gathers
/// the owners of the shared ids, the other folds those sessions with the owners known
/// (`RefoldRequest`). Their output is made by the asking run's sink.
struct Refolder {
    let plan: RunPlan
    /// Inputs that cannot be read twice, and where each was copied as it was read.
    let unrepeatable: [String]
    let copies: [String: String]
    /// What the first run read of each input: the refold reads as far.
    let firstReads: [InputFileReport]
    let sink: FoldJobs

    func refold(_ sharing: EventIDLedger.Sharing) throws -> [SessionKey: FoldedSession] {
        if let lost = unrepeatable.first(where: { copies[$0] == nil }) {
            throw InputError(
                code: .unreadable, path: lost,
                message: "sessions that share event ids must be read again, and this input could not be copied to the temporary directory",
                remedy: .chooseTemporaryDirectory)
        }
        let configuration = plan.configuration
        let gather = RefoldRequest(pass: .gather, sharing: sharing, sink: sink)
        try read(gather)
        let fold = RefoldRequest(
            pass: .fold, sharing: sharing, owners: gather.gatheredOwners,
            outputs: OutputStore(budget: configuration.heldOutputBudget, temporaryDirectory: configuration.temporaryDirectory),
            sink: sink)
        try read(fold)
        return fold.sessions
    }

    private func read(_ request: RefoldRequest) throws {
        var again = plan.configuration
        again.refolding = request
        again.onlySession = nil
        again.quarantinePath = nil
        again.preGrouped = false
        again.readPaths = copies
        again.firstReads = firstReads
        // Read line by line, so that other sessions' lines are skipped before they are
        // decoded or routed (a mapped file's chunks are routed whole).
        again.mapsInputs = false
        again.tuning.routesInParallel = false
        _ = try AuditEngine(configuration: again).run(inputs: plan.inputs, models: plan.models)
    }
}
