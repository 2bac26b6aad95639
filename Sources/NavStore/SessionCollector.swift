import NavEvents
import NavReplay
import NavReport
import NavResults

/// What the store keeps of a folded session: its record as `sessions` writes it, its findings
/// and its counts. Made on the fold job, so that a batch holds these, not the sessions' states
/// and screens.
struct FoldedSessionSummary: Sendable {
    var sessionID: String
    var findings: [Finding]
    var record: [UInt8]
    var events: Int
    var redeliveries: Int
    var duplicates: Int
    var firstSeq: Int64?
    var lastSeq: Int64?
    var start: String?
    var end: String?
    var durationMilliseconds: Int64?
    var findingCount: Int
    var droppedFindings: [Rule: Int]

    init(_ audit: SessionAudit) {
        sessionID = audit.sessionID
        findings = audit.findings
        record = SessionWriter.ndjsonLine(audit)
        record.removeLast()  // the line end
        events = audit.events
        redeliveries = audit.redeliveries
        duplicates = audit.duplicates
        firstSeq = audit.firstSeq
        lastSeq = audit.lastSeq
        start = audit.start?.text
        end = audit.end?.text
        durationMilliseconds = audit.durationMilliseconds
        findingCount = audit.findingCount
        droppedFindings = audit.droppedFindings
    }
}

/// Every session a batch folded, for the store to write once the fold is done. A session
/// folded again (one that shares event ids with another) replaces its first audit.
final class FoldedSessions: SessionAccumulator {
    struct Entry: Sendable {
        let summary: FoldedSessionSummary
        let replaces: Bool
    }

    struct Folder: SessionFolder {
        func makeLocal() -> [Entry] { [] }

        func add(_ audit: SessionAudit, model: Int, files: [String], to local: inout [Entry]) {
            local.append(Entry(summary: FoldedSessionSummary(audit), replaces: false))
        }

        func replace(_ previous: SessionAudit, with audit: SessionAudit, model: Int, files: [String], in local: inout [Entry]) {
            local.append(Entry(summary: FoldedSessionSummary(audit), replaces: true))
        }
    }

    let folder = Folder()
    private var entries: [Entry] = []
    private(set) var invalid: [Finding] = []

    func begin(invalid: [Finding], files: [String]) { self.invalid = invalid }

    func combine(_ local: consuming [Entry]) { entries.append(contentsOf: local) }

    /// The sessions by id: a replacing audit wins over the first.
    func finalize() -> [String: FoldedSessionSummary] {
        var summaries: [String: FoldedSessionSummary] = [:]
        for entry in entries where summaries[entry.summary.sessionID] == nil { summaries[entry.summary.sessionID] = entry.summary }
        for entry in entries where entry.replaces { summaries[entry.summary.sessionID] = entry.summary }
        entries = []
        return summaries
    }
}
