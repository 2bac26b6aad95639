import NavEvents
import NavJSON
import NavReplay
import NavReport
import NavSQLite

extension StoreWriter {
    /// Writes what the fold found: each folded session's record and findings in place of the
    /// old ones, and the unreadable lines' findings the store does not hold yet; the
    /// differences go to `finding_changes` (in output order: the unreadable lines', then each
    /// session's, sessions in `session_id` order), and are counted in the report.
    func apply(
        _ results: FoldedSessions, folded: Set<String>, plan: FoldPlan, batch: Int64,
        files: [String], report: inout IngestReport
    ) throws {
        var fileIndex: [String: Int32] = [:]
        for (index, path) in files.enumerated() { fileIndex[path] = Int32(index) }
        // Sessions the store did not hold before the batch (most of a batch's): every finding
        // of theirs is new, and is copied from the fold's table as it stands (`copyFindings`).
        let fresh = try Set(folded.filter { try stored($0) == nil })
        try sql { () throws(SQLiteError) in
            let statements = try Statements(database)
            try database.execute(
                """
                CREATE TEMP TABLE IF NOT EXISTS fresh_sessions (
                  session_id TEXT PRIMARY KEY, session INTEGER NOT NULL, generation INTEGER NOT NULL, app_version TEXT) WITHOUT ROWID;
                DELETE FROM temp.fresh_sessions;
                """)
            let addFresh = try database.prepare("INSERT INTO temp.fresh_sessions VALUES (?, ?, ?, ?)")
            for var finding in results.invalid {
                // Located in the fold's own file list; the batch's numbers its files by id.
                if let location = finding.location, let index = fileIndex[results.files[Int(location.file)]] {
                    finding.location = LineLocation(file: index, line: location.line)
                }
                let line = StoredFindings.line(finding, files: files)
                guard
                    !(try statements.invalidHeld.returnsRow([
                        .optional(StoredFindings.path(finding.location, files)), .optional(finding.location?.line),
                    ]))
                else { continue }
                let values = StoredFindings.values(finding, session: nil, ordinal: 0, batch: batch, line: line, files: files)
                try statements.insertFinding.run(values)
                try statements.addChange(batch, .new, values, appVersion: nil)
                report.newBySeverity[finding.severity, default: 0] += 1
                report.invalidLines += 1
            }
            for sessionID in folded.sorted(by: { $0.utf8Precedes($1) }) {
                // A pruned session folds with the lines of the ids it owned only (`prune`):
                // for the others' conflicts; its own record and findings stay as they were.
                guard let row = sessionRow(sessionID), status(of: sessionID) != .pruned else { continue }
                let isFresh = fresh.contains(sessionID)
                guard let (audit, generation) = try results.summary(of: sessionID, fileIndex: fileIndex, findings: !isFresh) else {
                    // Lines that named the session but were no valid event: no session yet.
                    try statements.dropUnfolded.run([.integer(row)])
                    try statements.dropUnfoldedChunks.run([.integer(row)])
                    continue
                }
                let before = status(of: sessionID)
                let nowOpen = plan.isOpen(sessionID, status: before)
                if !nowOpen && (before == .open || plan.reopened.contains(sessionID)) { report.sessionsClosed += 1 }
                if isFresh {
                    try addFresh.run([.text(sessionID), .integer(row), .integer(generation), .optional(plan.appVersions[sessionID])])
                } else {
                    try replaceFindings(
                        of: audit, row: row, appVersion: plan.appVersions[sessionID], batch: batch, files: files,
                        fileIndex: fileIndex, statements, report: &report)
                }
                try statements.updateSession.run(
                    Self.sessionValues(audit, plan: plan, open: nowOpen, batch: batch, row: row))
            }
            try copyFindings(batch: batch, report: &report)
        }
        report.sessionsTouched = plan.touched.count
        report.sessionsReopened = plan.reopened.count
    }

    /// The findings of the batch's fresh sessions (`temp.fresh_sessions`), all new: copied from
    /// the fold's table into `findings` and `finding_changes` in two statements. The fold
    /// stored each row as `apply` would write it (its line and witness name files by path).
    private func copyFindings(batch: Int64, report: inout IngestReport) throws(SQLiteError) {
        let fields =
            "f.rule, f.severity, f.session_id, f.seq, f.event_id, f.file, f.line, f.message, f.expected, f.found, f.after_gap, f.event_name, f.witness"
        let joined =
            "FROM temp.fresh_sessions n JOIN temp.folded_findings f ON f.folded_id = n.session_id AND f.generation = n.generation"
        let source = joined + " ORDER BY n.session_id, f.ordinal"
        try database.prepare(
            "INSERT INTO findings (\(StoredFindings.columns)) SELECT n.session, f.ordinal, \(fields), ?1, f.finding \(source)"
        ).run([.integer(batch)])
        try database.prepare(
            """
            INSERT INTO finding_changes (batch, change, app_version, \(StoredChanges.findingColumns))
            SELECT ?1, 'new', n.app_version, n.session, f.ordinal, \(fields), ?1, f.finding \(source)
            """
        ).run([.integer(batch)])
        try database.prepare("SELECT f.severity, count(*) \(joined) GROUP BY f.severity").forEachRow([]) { row in
            if let severity = Severity(rawValue: row.text(0)) { report.newBySeverity[severity, default: 0] += Int(row.integer(1)) }
        }
    }

    private func replaceFindings(
        of audit: FoldedSessionSummary, row: Int64, appVersion newVersion: String?, batch: Int64, files: [String],
        fileIndex: [String: Int32],
        _ statements: Statements,
        report: inout IngestReport
    ) throws(SQLiteError) {
        // The old findings by their NDJSON line (a multiset: a line may repeat), with the batch
        // that first reported each and their place in the session.
        var old: [String: [(batch: Int64, ordinal: Int, finding: Finding?)]] = [:]
        var appVersion = newVersion
        try statements.sessionFindings.forEachRow([.integer(row)]) { stored in
            old[stored.text(16), default: []].append(
                (stored.integer(15), Int(stored.integer(1)), StoredFindings.finding(stored, fileIndex: fileIndex)))
        }
        if appVersion == nil { try statements.appVersion.forEachRow([.integer(row)]) { appVersion = $0.optionalText(0) } }
        try statements.deleteFindings.run([.integer(row)])
        for (ordinal, finding) in audit.findings.enumerated() {
            let line = StoredFindings.line(finding, files: files)
            var firstBatch = batch
            var isNew = true
            if var earlier = old[line], !earlier.isEmpty {
                firstBatch = earlier.removeFirst().batch
                old[line] = earlier
                isNew = false
            }
            let values = StoredFindings.values(finding, session: row, ordinal: ordinal, batch: firstBatch, line: line, files: files)
            if isNew {
                try statements.addChange(batch, .new, values, appVersion: appVersion)
                report.newBySeverity[finding.severity, default: 0] += 1
            }
            try statements.insertFinding.run(values)
        }
        for (line, withdrawn) in old.sorted(by: { $0.key < $1.key }) {
            for entry in withdrawn {
                guard let finding = entry.finding else { continue }
                let values = StoredFindings.values(
                    finding, session: row, ordinal: entry.ordinal, batch: entry.batch, line: line, files: files)
                try statements.addChange(batch, .withdrawn, values, appVersion: appVersion)
                report.withdrawnFindings += 1
            }
        }
    }

    private static func sessionValues(_ audit: FoldedSessionSummary, plan: FoldPlan, open: Bool, batch: Int64, row: Int64) -> [SQLiteValue]
    {
        var dropped = JSONWriter()
        dropped.beginObject()
        for (rule, count) in audit.droppedFindings.sorted(by: { $0.key < $1.key }) { dropped.member(rule.rawValue, count) }
        dropped.endObject()
        return [
            .text(open ? "open" : "closed"), .optional(plan.appVersions[audit.sessionID]), .integer(Int64(audit.events)),
            .integer(Int64(audit.redeliveries)), .integer(Int64(audit.duplicates)), .optional(audit.firstSeq), .optional(audit.lastSeq),
            .optional(audit.start), .optional(audit.end), .optional(audit.durationMilliseconds),
            .optional(plan.newest[audit.sessionID]), .integer(Int64(audit.findingCount)),
            .text(String(decoding: dropped.bytes, as: UTF8.self)), .text(String(decoding: audit.record, as: UTF8.self)), .integer(batch),
            open ? .null : .integer(batch), .integer(row),
        ]
    }

    /// The statements a batch's results use, prepared once.
    struct Statements {
        let invalidHeld: SQLiteStatement
        let insertFinding: SQLiteStatement
        let sessionFindings: SQLiteStatement
        let deleteFindings: SQLiteStatement
        let insertChange: SQLiteStatement
        let updateSession: SQLiteStatement
        let appVersion: SQLiteStatement
        let dropUnfolded: SQLiteStatement
        let dropUnfoldedChunks: SQLiteStatement

        init(_ database: SQLiteDatabase) throws(SQLiteError) {
            invalidHeld = try database.prepare("SELECT 1 FROM findings WHERE session IS NULL AND file IS ? AND line IS ?")
            insertFinding = try database.prepare(
                "INSERT INTO findings (\(StoredFindings.columns)) VALUES (\(Array(repeating: "?", count: 17).joined(separator: ", ")))")
            sessionFindings = try database.prepare("SELECT \(StoredFindings.columns) FROM findings WHERE session = ? ORDER BY ordinal")
            deleteFindings = try database.prepare("DELETE FROM findings WHERE session = ?")
            insertChange = try database.prepare(
                """
                INSERT INTO finding_changes (batch, change, app_version, \(StoredChanges.findingColumns))
                VALUES (\(Array(repeating: "?", count: 20).joined(separator: ", ")))
                """)
            updateSession = try database.prepare(
                """
                UPDATE sessions SET status = ?, app_version = coalesce(?, app_version), events = ?, redeliveries = ?, duplicates = ?,
                  first_seq = ?, last_seq = ?, start = ?, "end" = ?, duration_ms = ?, last_event_ms = coalesce(?, last_event_ms),
                  findings = ?, dropped_findings = ?, record = ?, last_batch = ?, closed_batch = ? WHERE session = ?
                """)
            appVersion = try database.prepare("SELECT app_version FROM sessions WHERE session = ?")
            dropUnfolded = try database.prepare("DELETE FROM sessions WHERE session = ? AND record = ''")
            dropUnfoldedChunks = try database.prepare(
                "DELETE FROM event_chunks WHERE session = ? AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.session = event_chunks.session)"
            )
        }

        /// A changed finding, as its `findings` row (`values`) with the batch and the change.
        func addChange(_ batch: Int64, _ change: StoredChanges.Change, _ values: [SQLiteValue], appVersion: String?) throws(SQLiteError) {
            try insertChange.run([.integer(batch), .text(change.rawValue), .optional(appVersion)] + values)
        }
    }
}
