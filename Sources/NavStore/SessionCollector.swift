import NavReplay
import NavResults

/// Every session a batch folded, whole (findings, record, counts), for the store to write once
/// the fold is done. A session folded again (one that shares event ids with another) replaces
/// its first audit.
final class FoldedSessions: SessionAccumulator {
    struct Entry: Sendable {
        let audit: SessionAudit
        let replaces: Bool
    }

    struct Folder: SessionFolder {
        func makeLocal() -> [Entry] { [] }

        func add(_ audit: SessionAudit, model: Int, files: [String], to local: inout [Entry]) {
            local.append(Entry(audit: audit, replaces: false))
        }

        func replace(_ previous: SessionAudit, with audit: SessionAudit, model: Int, files: [String], in local: inout [Entry]) {
            local.append(Entry(audit: audit, replaces: true))
        }
    }

    let folder = Folder()
    private var entries: [Entry] = []
    private(set) var invalid: [Finding] = []

    func begin(invalid: [Finding], files: [String]) { self.invalid = invalid }

    func combine(_ local: consuming [Entry]) { entries.append(contentsOf: local) }

    /// The sessions by id: a replacing audit wins over the first.
    func finalize() -> [String: SessionAudit] {
        var audits: [String: SessionAudit] = [:]
        for entry in entries where entry.replaces || audits[entry.audit.sessionID] == nil {
            audits[entry.audit.sessionID] = entry.audit
        }
        for entry in entries where entry.replaces { audits[entry.audit.sessionID] = entry.audit }
        entries = []
        return audits
    }
}
