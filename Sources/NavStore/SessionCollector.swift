import NavEvents
import NavReplay
import NavReport
import NavResults
import NavInput
import NavSQLite
import NavJSON

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

    init(
        sessionID: String, findings: [Finding], record: [UInt8], events: Int, redeliveries: Int, duplicates: Int, firstSeq: Int64?,
        lastSeq: Int64?, start: String?, end: String?, durationMilliseconds: Int64?, findingCount: Int, droppedFindings: [Rule: Int]
    ) {
        self.sessionID = sessionID
        self.findings = findings
        self.record = record
        self.events = events
        self.redeliveries = redeliveries
        self.duplicates = duplicates
        self.firstSeq = firstSeq
        self.lastSeq = lastSeq
        self.start = start
        self.end = end
        self.durationMilliseconds = durationMilliseconds
        self.findingCount = findingCount
        self.droppedFindings = droppedFindings
    }

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

/// Every session a batch folded, kept in temporary tables of the store's connection as each
/// folds, on its fold job (under a lock: the run's thread does not use the connection while the
/// jobs fold). Held in the jobs' memory until the fold ends, the batch's summaries were most of
/// an ingest's memory past the engine's own. A session folded again (one that shares event ids
/// with another) replaces its first audit: the newest generation wins.
final class FoldedSessions: SessionAccumulator, @unchecked Sendable {
    // @unchecked: the statements and `failure` are used under `lock` only.
    struct Folder: SessionFolder {
        let keeper: FoldedSessions

        func makeLocal() {}

        func add(_ audit: SessionAudit, model: Int, files: [String], to local: inout Void) {
            keeper.keep(FoldedSessionSummary(audit), generation: 1, files: files)
        }

        func replace(_ previous: SessionAudit, with audit: SessionAudit, model: Int, files: [String], in local: inout Void) {
            keeper.keep(FoldedSessionSummary(audit), generation: 2, files: files)
        }
    }

    var folder: Folder { Folder(keeper: self) }
    private let database: SQLiteDatabase
    private let lock = NSLockLike()
    private let insertSession: SQLiteStatement
    private let insertFinding: SQLiteStatement
    private let selectSession: SQLiteStatement
    private let selectFindings: SQLiteStatement
    /// The fold's files (its located paths in sorted order), which its findings' locations index.
    private(set) var files: [String] = []
    private(set) var invalid: [Finding] = []
    /// The first failure to keep a summary (a fold job cannot throw): thrown once the fold is done.
    private var firstFailure: SQLiteError?
    var failure: SQLiteError? { lock.withLock { firstFailure } }

    /// The tables start empty and without indexes: `indexForReading` makes those once the fold
    /// has written every row, rather than each fold job keeping them up under the lock.
    init(database: SQLiteDatabase) throws(SQLiteError) {
        self.database = database
        try database.execute(
            """
            CREATE TEMP TABLE IF NOT EXISTS folded_sessions (
              session_id TEXT NOT NULL, generation INTEGER NOT NULL, events INTEGER NOT NULL, redeliveries INTEGER NOT NULL,
              duplicates INTEGER NOT NULL, first_seq INTEGER, last_seq INTEGER, start TEXT, "end" TEXT, duration_ms INTEGER,
              finding_count INTEGER NOT NULL, dropped TEXT NOT NULL, record BLOB NOT NULL);
            CREATE TEMP TABLE IF NOT EXISTS folded_findings (folded_id TEXT NOT NULL, generation INTEGER NOT NULL, \(StoredFindings.columns));
            DROP INDEX IF EXISTS temp.folded_sessions_id;
            DROP INDEX IF EXISTS temp.folded_findings_id;
            DELETE FROM temp.folded_sessions;
            DELETE FROM temp.folded_findings;
            """)
        insertSession = try database.prepare(
            "INSERT INTO temp.folded_sessions VALUES (\(Array(repeating: "?", count: 13).joined(separator: ", ")))")
        insertFinding = try database.prepare(
            "INSERT INTO temp.folded_findings VALUES (\(Array(repeating: "?", count: 19).joined(separator: ", ")))")
        selectSession = try database.prepare(
            """
            SELECT generation, events, redeliveries, duplicates, first_seq, last_seq, start, "end", duration_ms, finding_count,
              dropped, record FROM temp.folded_sessions WHERE session_id = ? ORDER BY generation DESC LIMIT 1
            """)
        selectFindings = try database.prepare(
            "SELECT \(StoredFindings.columns) FROM temp.folded_findings WHERE folded_id = ? AND generation = ? ORDER BY ordinal")
    }

    /// The indexes the results are read back by, made once the fold has written every row.
    func indexForReading() throws(SQLiteError) {
        try database.execute(
            """
            CREATE INDEX IF NOT EXISTS temp.folded_sessions_id ON folded_sessions(session_id, generation);
            CREATE INDEX IF NOT EXISTS temp.folded_findings_id ON folded_findings(folded_id, generation, ordinal);
            """)
    }

    func begin(invalid: [Finding], files: [String]) {
        self.invalid = invalid
        self.files = files
    }

    func combine(_ local: consuming Void) {}

    /// Keeps one folded session, on its fold job.
    func keep(_ summary: FoldedSessionSummary, generation: Int64, files: [String]) {
        var dropped = JSONWriter()
        dropped.beginObject()
        for (rule, count) in summary.droppedFindings.sorted(by: { $0.key < $1.key }) { dropped.member(rule.rawValue, count) }
        dropped.endObject()
        let findings = summary.findings.enumerated().map { ordinal, finding in
            StoredFindings.values(
                finding, session: nil, ordinal: ordinal, batch: 0, line: StoredFindings.line(finding, files: files), files: files)
        }
        lock.withLock {
            guard firstFailure == nil else { return }
            do {
                try insertSession.run([
                    .text(summary.sessionID), .integer(generation), .integer(Int64(summary.events)),
                    .integer(Int64(summary.redeliveries)), .integer(Int64(summary.duplicates)), .optional(summary.firstSeq),
                    .optional(summary.lastSeq), .optional(summary.start), .optional(summary.end),
                    .optional(summary.durationMilliseconds), .integer(Int64(summary.findingCount)),
                    .text(String(decoding: dropped.bytes, as: UTF8.self)), .blob(summary.record),
                ])
                for values in findings { try insertFinding.run([.text(summary.sessionID), .integer(generation)] + values) }
            } catch let error as SQLiteError {
                firstFailure = error
            } catch {
                firstFailure = SQLiteError("\(error)")
            }
        }
    }

    /// A folded session's summary (its newest generation, which it returns too), read back;
    /// `nil` if it did not fold. `fileIndex` numbers the paths as the batch's files do. Without
    /// `findings`, the summary's findings are left in the table (`StoreWriter.copyFindings`).
    func summary(
        of sessionID: String, fileIndex: [String: Int32], findings: Bool = true
    ) throws(SQLiteError)
        -> (summary: FoldedSessionSummary, generation: Int64)?
    {
        var found: FoldedSessionSummary?
        var generation: Int64 = 0
        try selectSession.forEachRow([.text(sessionID)]) { row in
            generation = row.integer(0)
            var dropped: [Rule: Int] = [:]
            if case .object(let object)? = try? JSONValue.parse(row.text(10)) {
                for (key, value) in object.members {
                    if let rule = Rule(rawValue: key), case .number(let text) = value { dropped[rule] = Int(text) ?? 0 }
                }
            }
            found = FoldedSessionSummary(
                sessionID: sessionID, findings: [], record: row.blob(11), events: Int(row.integer(1)),
                redeliveries: Int(row.integer(2)), duplicates: Int(row.integer(3)), firstSeq: row.optionalInteger(4),
                lastSeq: row.optionalInteger(5), start: row.optionalText(6), end: row.optionalText(7),
                durationMilliseconds: row.optionalInteger(8), findingCount: Int(row.integer(9)), droppedFindings: dropped)
        }
        guard var summary = found else { return nil }
        if findings {
            try selectFindings.forEachRow([.text(sessionID), .integer(generation)]) { row in
                if let finding = StoredFindings.finding(row, fileIndex: fileIndex) { summary.findings.append(finding) }
            }
        }
        return (summary, generation)
    }
}
