import NavEvents
import NavModel
import NavReplay
import NavResults
import NavPartitions

/// When a session folds from disk (`LongSession`) rather than from its lines held in memory, and
/// how: what `SpillPartitions.read` is given on each fold job.
struct LongSessionPlan {
    /// A session whose lines take more bytes than this folds from disk.
    var sessionBytes: Int
    /// A partition file larger than this is read in pieces.
    var readLimit: Int
    /// What one long session's sorters may hold in memory.
    var budget: Int
    var temporaryDirectory: String?

    /// One fold job's handling of long sessions: each folded with `options` (for a refold, twice,
    /// with and without the owners of shared ids, and only the sessions it reads), its event ids
    /// recorded in `ledger`, and the folded session handed to `folded`.
    func sessions(
        models: [NavigationModel], options: SessionAuditOptions, refolding: RefoldRequest?, job: any FoldJob, ledger: EventIDLedger?,
        worker: Int, folded: @escaping (FoldedSession) -> Void
    ) -> LongSessions {
        let budget = self.budget
        let temporaryDirectory = self.temporaryDirectory
        return LongSessions(
            sessionBytes: sessionBytes, readLimit: readLimit, temporaryDirectory: temporaryDirectory,
            make: { key in
                try LongSession(key: key, model: model(of: key, in: models), budget: budget, temporaryDirectory: temporaryDirectory)
            },
            add: { session, line in
                try session.add(line)
                let key = session.key
                ledger?.record(
                    eventIDHash: EventIDLedger.idHash(line.decoded.eventIDHash, model: key.model), session: EventIDLedger.hash(key),
                    worker: worker)
            },
            fold: { session in
                let key = session.key
                if let refolding {
                    guard refolding.reads(sessionID: key.id, model: key.model) else { return }
                    var known = options
                    known.earlierOccurrences = refolding.owners[key.model] ?? [:]
                    guard let session = session as? LongSession else { return }
                    refolding.add(try refoldLongSession(session, options: known, job: job))
                    return
                }
                guard let session = session as? LongSession else { return }
                folded(job.folded(key, try session.audit(options: options)))
            })
    }
}

/// `refoldSession` for a session folded from disk: audited twice, without and with the owners
/// of shared event ids.
func refoldLongSession(_ session: LongSession, options: SessionAuditOptions, job: any FoldJob) throws -> FoldedSession {
    var first = options
    first.earlierOccurrences = [:]
    let previous = try session.audit(options: first)
    let audit = options.earlierOccurrences.isEmpty ? previous : try session.audit(options: options)
    return job.refolded(session.key, previous: previous, audit)
}
