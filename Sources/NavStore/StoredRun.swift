import NavEvents
import NavInput
import NavJSON
public import NavReplay
public import NavResults
import NavSQLite

/// A store read back as an audit's result: what `audit --store` and `sessions --store` write,
/// equal to an audit of every file the store has read.
public enum StoredRun {
    /// Every finding the store holds, in output order, with the summary's counts. Files are
    /// numbered in path order, as an audit numbers its inputs.
    public static func audit(_ store: EventStore) throws -> AuditRun {
        try read(store) { () throws(SQLiteError) -> AuditRun in
            let database = store.database
            let (files, reports) = try self.files(database)
            var fileIndex: [String: Int32] = [:]
            for (index, path) in files.enumerated() { fileIndex[path] = Int32(index) }
            var invalid: [Finding] = []
            try database.prepare("SELECT \(StoredFindings.columns) FROM findings WHERE session IS NULL").forEachRow([]) { row in
                if let finding = StoredFindings.finding(row, fileIndex: fileIndex) { invalid.append(finding) }
            }
            invalid.sortForOutput()
            var sessions: [SessionAudit] = []
            try database.prepare(
                """
                SELECT \(StoredFindings.columns) FROM findings WHERE session IS NOT NULL ORDER BY session_id, session, ordinal
                """
            ).forEachRow([]) { row in
                guard let finding = StoredFindings.finding(row, fileIndex: fileIndex), let sessionID = finding.sessionID else { return }
                if sessions.last?.sessionID != sessionID { sessions.append(SessionAudit(sessionID: sessionID, findings: [])) }
                sessions[sessions.count - 1].findings.append(finding)
            }
            var counts = AuditCounts()
            counts.files = files.count
            for report in reports {
                counts.lines += report.lines
            }
            try database.prepare("SELECT coalesce(sum(blank_lines), 0) FROM files").forEachRow([]) { counts.blankLines = $0.integer(0) }
            try database.prepare(
                "SELECT count(*), coalesce(sum(events), 0), coalesce(sum(redeliveries), 0), coalesce(sum(duplicates), 0) FROM sessions WHERE record != ''"
            ).forEachRow([]) { row in
                counts.sessions = Int(row.integer(0))
                counts.events = row.integer(1)
                counts.redeliveries = row.integer(2)
                counts.duplicates = row.integer(3)
            }
            counts.invalidLines = Int64(invalid.count)
            try database.prepare("SELECT rule, count(*) FROM findings GROUP BY rule").forEachRow([]) { row in
                if let rule = Rule(rawValue: row.text(0)) { counts.findingsByRule[rule, default: 0] += Int(row.integer(1)) }
            }
            try database.prepare("SELECT dropped_findings FROM sessions WHERE dropped_findings != '{}'").forEachRow([]) { row in
                guard case .object(let object)? = try? JSONValue.parse(row.text(0)) else { return }
                for (key, value) in object.members {
                    if let rule = Rule(rawValue: key), case .number(let text) = value, let count = Int(text) {
                        counts.findingsByRule[rule, default: 0] += count
                    }
                }
            }
            counts.findings = counts.findingsByRule.values.reduce(0, +)
            return AuditRun(files: files, fileReports: reports, invalidFindings: invalid, sessions: sessions, counts: counts)
        }
    }

    /// The cap of findings per session the store folds with (`--max-findings-per-session` of its
    /// first batch).
    public static func maxFindingsPerSession(_ store: EventStore) throws -> Int {
        try read(store) { () throws(SQLiteError) -> Int in
            var value = IngestOptions.defaultMaxFindingsPerSession
            try store.database.prepare("SELECT value FROM meta WHERE key = 'max_findings_per_session'").forEachRow([]) {
                value = Int($0.text(0)) ?? value
            }
            return value
        }
    }

    /// Gives each of `run`'s stored findings the states around it (`stateBefore`, `stateAfter`,
    /// `changes`) from `refolded`, the held sessions folded again with their states: a finding
    /// takes those of the refolded finding of its session with the same NDJSON line. A finding
    /// that no refold finds again (a pruned session's, whose events are gone) keeps none.
    public static func explain(_ run: inout AuditRun, with refolded: [SessionAudit]) {
        var bySession: [String: [String: [Finding]]] = [:]
        for session in refolded {
            var byLine: [String: [Finding]] = [:]
            for finding in session.findings { byLine[StoredFindings.line(finding, files: run.files), default: []].append(finding) }
            bySession[session.sessionID] = byLine
        }
        for index in run.sessions.indices {
            guard var byLine = bySession.removeValue(forKey: run.sessions[index].sessionID) else { continue }
            for position in run.sessions[index].findings.indices {
                let line = StoredFindings.line(run.sessions[index].findings[position], files: run.files)
                guard var matches = byLine[line], !matches.isEmpty else { continue }
                run.sessions[index].findings[position] = matches.removeFirst()
                byLine[line] = matches
            }
        }
    }

    /// Each session's record (`sessions --format ndjson`'s line, without its line end), in
    /// session order.
    public static func sessionRecords(_ store: EventStore, _ body: (String) throws -> Void) throws {
        var records: [String] = []
        try read(store) { () throws(SQLiteError) in
            try store.database.prepare("SELECT session, record FROM sessions WHERE record != '' ORDER BY session_id").forEachRow([]) {
                (row) throws(SQLiteError) in
                records.append(try StoreChecks.record(row))
            }
        }
        for record in records { try body(record) }
    }

    /// How many sessions are open (events may still come for them).
    public static func openSessions(_ store: EventStore) throws -> Int {
        Int(try read(store) { () throws(SQLiteError) in try store.database.integer("SELECT count(*) FROM sessions WHERE status = 'open'") })
    }

    private static func files(_ database: SQLiteDatabase) throws(SQLiteError) -> ([String], [InputFileReport]) {
        var reports: [InputFileReport] = []
        try database.prepare("SELECT path, lines, bytes FROM files").forEachRow([]) {
            reports.append(InputFileReport(path: $0.text(0), lines: $0.integer(1), bytes: $0.integer(2)))
        }
        reports.sort { $0.path.utf8Precedes($1.path) }
        return (reports.map(\.path), reports)
    }

    /// Reads in one transaction, so that an ingest that commits meanwhile is seen whole or not at all.
    static func read<T>(_ store: EventStore, _ body: () throws(SQLiteError) -> T) throws -> T {
        do {
            try store.database.execute("BEGIN")
            defer { try? store.database.execute("COMMIT") }
            return try body()
        } catch {
            throw StoreError(store: store.path, error)
        }
    }
}
