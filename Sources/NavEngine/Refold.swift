import NavEvents
import NavModel
import NavReplay
public import NavInput
public import NavResults

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
    /// For `fold`: where the sessions' output waits for the asking run's merge, past a budget
    /// (a log whose sessions all share ids folds them all again).
    let outputs: OutputStore?
    private let lock = NSLockLike()
    private var gathered: [Int: EarlierOccurrence.Owners] = [:]
    private var folded: [SessionKey: FoldedSession] = [:]

    init(
        pass: Pass, sharing: EventIDLedger.Sharing, owners: [Int: [UInt64: [EarlierOccurrence]]] = [:], outputs: OutputStore? = nil,
        product: @escaping RefoldProduct
    ) {
        self.pass = pass
        self.sharing = sharing
        self.owners = owners
        self.outputs = outputs
        self.product = product
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
