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
        try sql { () throws(SQLiteError) in
            let statements = try Statements(database)
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
                guard let row = sessionRow(sessionID) else { continue }
                guard let audit = try results.summary(of: sessionID, fileIndex: fileIndex) else {
                    // Lines that named the session but were no valid event: no session yet.
                    try statements.dropUnfolded.run([.integer(row)])
                    try statements.dropUnfoldedChunks.run([.integer(row)])
                    continue
                }
                let before = status(of: sessionID)
                let nowOpen = plan.isOpen(sessionID, status: before)
                if !nowOpen && (before == .open || plan.reopened.contains(sessionID)) { report.sessionsClosed += 1 }
                try replaceFindings(
                    of: audit, row: row, appVersion: plan.appVersions[sessionID], batch: batch, files: files, fileIndex: fileIndex,
                    statements, report: &report)
                try statements.updateSession.run(
                    Self.sessionValues(audit, plan: plan, open: nowOpen, batch: batch, row: row))
            }
        }
        report.sessionsTouched = plan.touched.count
        report.sessionsReopened = plan.reopened.count
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
