import NavEvents
import NavJSON
package import NavModel
package import NavReplay
import NavInput
package import NavResults

/// One folded session as a fold job hands it on: its counts, and either the whole audit
/// (collected for reports) or only its formatted output (streamed).
package struct FoldedSession: Sendable {
    package var key: SessionKey
    package var tally: SessionTally
    /// Boxed: a `SessionAudit` is some 300 bytes inline, and a run that folds every session
    /// again (they all share event ids) holds one `FoldedSession` per session until it merges.
    private let auditBox: AuditBox?
    package var audit: SessionAudit? { auditBox?.audit }
    /// Empty once set aside (`stored`): read it with `loadedOutput()`.
    package var output: [UInt8]
    /// For a session folded again (`Refold`): the tally of its first fold, which this replaces.
    package var previous: SessionTally?
    /// Where `output` went if it was set aside until it is written (`OutputStore`).
    package var stored: (store: OutputStore, place: OutputStore.Place)?

    /// Whether the session's output is made when it is written, from `audit` (`isDeferred`), not
    /// on its fold job: a session audited from disk, whose steps are walked from there.
    package private(set) var isDeferred = false

    package init(key: SessionKey, tally: SessionTally, audit: SessionAudit?, output: [UInt8], previous: SessionTally? = nil) {
        self.key = key
        self.tally = tally
        auditBox = audit.map(AuditBox.init)
        self.output = output
        self.previous = previous
    }

    /// A session whose output is made when it is written, from its audit.
    package init(deferring audit: SessionAudit, key: SessionKey, tally: SessionTally, previous: SessionTally? = nil) {
        self.init(key: key, tally: tally, audit: audit, output: [], previous: previous)
        isDeferred = true
    }

    private final class AuditBox: Sendable {
        let audit: SessionAudit
        init(_ audit: SessionAudit) { self.audit = audit }
    }
}

/// A session's model: the one its app's files named (the PoC model if the index is off).
package func model(of key: SessionKey, in models: [NavigationModel]) -> NavigationModel {
    models.indices.contains(key.model) ? models[key.model] : .poc
}
