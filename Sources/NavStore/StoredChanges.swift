public import NavReplay
import NavSQLite

/// A batch's changed findings, read back from `finding_changes`: what `ingest` prints. They
/// are read a session at a time, so that printing a batch of many findings holds one
/// session's.
public enum StoredChanges {
    public enum Change: String, Sendable { case new, withdrawn }

    /// The columns a change holds of its finding, in `StoredFindings.columns` order (the
    /// finding's own first batch as `first_batch`).
    static let findingColumns =
        "session, ordinal, rule, severity, session_id, seq, event_id, file, line, message, expected, found, after_gap, event_name, witness, first_batch, finding"

    /// Calls `body` with the batch's changed findings of one kind, a group at a time, in output
    /// order: the unreadable lines' findings, then each session's, sessions in `session_id`
    /// order. `files` numbers the paths as the findings' locations do.
    public static func forEachGroup(
        _ store: EventStore, batch: Int64, change: Change, files: [String], _ body: ([Finding]) throws -> Void
    ) throws {
        var fileIndex: [String: Int32] = [:]
        for (index, path) in files.enumerated() { fileIndex[path] = Int32(index) }
        var group: [Finding] = []
        var failure: (any Error)?
        func hand(_ group: inout [Finding]) {
            guard failure == nil, !group.isEmpty else { return }
            group.sortForOutput()
            do { try body(group) } catch { failure = error }
            group.removeAll(keepingCapacity: true)
        }
        do {
            // The unreadable lines' first (no session id), then sessions in `session_id` order (the
            // byte order of UTF-8, as the output's); a session's findings are sorted below.
            try store.database.prepare(
                "SELECT \(findingColumns) FROM finding_changes WHERE batch = ? AND change = ? ORDER BY session_id, rowid"
            ).forEachRow([.integer(batch), .text(change.rawValue)]) { row in
                guard failure == nil, let finding = StoredFindings.finding(row, fileIndex: fileIndex) else { return }
                if let last = group.last, last.sessionID != finding.sessionID { hand(&group) }
                group.append(finding)
            }
        } catch {
            throw StoreError(store: store.path, error)
        }
        hand(&group)
        if let failure { throw failure }
    }

    /// Every changed finding of one kind, in output order.
    public static func findings(_ store: EventStore, batch: Int64, change: Change, files: [String]) throws -> [Finding] {
        var all: [Finding] = []
        try forEachGroup(store, batch: batch, change: change, files: files) { all += $0 }
        return all
    }
}
