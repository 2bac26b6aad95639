import Foundation
import NavTestSupport
import Testing

/// `navreplay sessions --format sqlite`, read back with the `sqlite3` shell: the tables agree with
/// the ndjson records, the indexes exist, and the README's three queries give what it shows.
@Suite struct SessionsDatabaseTests {
    static let inputs = ["SampleLogs/clean", "SampleLogs/violations"]

    /// Runs SQL with `sqlite3 -json` and returns the rows.
    func query(_ database: String, _ sql: String) throws -> [[String: Any]] {
        let result = try run("/usr/bin/env", ["sqlite3", "-json", database, sql])
        #expect(result.status == 0, "\(result.stderr)")
        if result.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return [] }
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
    }

    func writeDatabase(_ scratch: TemporaryDirectory) throws -> String {
        let path = scratch.url.appendingPathComponent("sessions.db").path
        let result = try navreplay(["sessions", "--quiet", "--format", "sqlite", "--output", path] + Self.inputs)
        #expect(result.status == 0)  // a data export: findings do not fail it without --fail-on
        #expect(result.stdout == "")
        return path
    }

    @Test func aSpilledAuditWritesTheSameDatabase() throws {
        // The database is written as the sessions fold (no session kept): partitioned and
        // merged back in session order, it holds exactly the rows of an in-memory run.
        let scratch = try TemporaryDirectory()
        var dumps: [String] = []
        for path in try StreamedOutputTests.writtenInMemoryAndSpilled(
            ["sessions", "--quiet", "--format", "sqlite"], scratch, extension: "db")
        {
            let dump = try run("/usr/bin/env", ["sqlite3", path, ".dump"])
            #expect(dump.status == 0, "\(dump.stderr)")
            dumps.append(dump.stdout)
        }
        #expect(try query(scratch.path("spilled.db"), "SELECT count(*) AS n FROM sessions").first?["n"] as? Int == 150 * 7)
        #expect(dumps[0].contains("INSERT INTO events"))
        let lastLine = 150 * 80 + 1  // the "not json" line after the copies
        #expect(
            try query(scratch.path("spilled.db"), "SELECT rule FROM findings WHERE line = \(lastLine)").first?["rule"] as? String
                == "schema.invalid")
        let same = dumps[0] == dumps[1]
        #expect(same, "the two databases differ")
    }

    @Test func tablesAgreeWithTheNdjsonRecordsAndFindings() throws {
        let scratch = try TemporaryDirectory()
        let database = try writeDatabase(scratch)

        let records = try navreplay(["sessions", "--quiet", "--format", "ndjson"] + Self.inputs).stdout
            .split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let sessions = try query(database, "SELECT session_id, events, duration_ms, findings, final_state FROM sessions ORDER BY rowid")
        #expect(sessions.count == records.count)
        for (row, record) in zip(sessions, records) {
            #expect(row["session_id"] as? String == record["session_id"] as? String)
            #expect(row["events"] as? Int == record["events"] as? Int)
            #expect(row["duration_ms"] as? Int == record["duration_ms"] as? Int)
            #expect(row["findings"] as? Int == record["findings"] as? Int)
            let state = try JSONSerialization.jsonObject(with: Data(((row["final_state"] as? String) ?? "").utf8)) as? NSDictionary
            #expect(state == record["final_state"] as? NSDictionary)
        }

        // One events row per folded event, and the state after the last one is the final state.
        let events = try query(database, "SELECT count(*) AS n FROM events")
        let summary = try navreplay(["audit", "--quiet", "--format", "json"] + Self.inputs).stdout
        let document = try #require(try JSONSerialization.jsonObject(with: Data(summary.utf8)) as? [String: Any])
        let counts = try #require(document["summary"] as? [String: Any])
        #expect(events.first?["n"] as? Int == counts["events"] as? Int)
        let last = try query(
            database,
            "SELECT s.session_id FROM sessions s JOIN events e ON e.session_id = s.session_id AND e.seq = s.last_seq "
                + "WHERE json(e.state_after) != json(s.final_state)")
        #expect(last.isEmpty)
        // The stack column names the event's stack: a stack operation's, or a viewed screen's.
        let stacks = try query(
            database,
            "SELECT count(*) AS n, sum(stack IS json_extract(event, '$.stack')) AS same, "
                + "sum(event_name = 'screen_view' AND stack IS NOT NULL) AS views FROM events")
        #expect(stacks.first?["n"] as? Int == stacks.first?["same"] as? Int, "\(stacks)")
        #expect((stacks.first?["views"] as? Int ?? 0) > 0, "\(stacks)")

        // The findings table is the audit's findings, in order, with fingerprints.
        let findings = try query(database, "SELECT rule, session_id, seq, line, fingerprint FROM findings ORDER BY rowid")
        let audit = try navreplay(["audit", "--quiet", "--format", "ndjson"] + Self.inputs).stdout.split(separator: "\n")
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(findings.count == audit.count)
        for (row, finding) in zip(findings, audit) {
            #expect(row["rule"] as? String == finding["rule"] as? String)
            #expect(row["session_id"] as? String == finding["session_id"] as? String)
            #expect(row["line"] as? Int == finding["line"] as? Int)
            #expect((row["fingerprint"] as? String)?.hasPrefix("nr1-") == true)
        }

        let indexes = try query(
            database, "SELECT name, tbl_name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        #expect(
            indexes.compactMap { $0["name"] as? String } == ["events_session", "findings_rule", "findings_session", "sessions_session"])
        let meta = try query(database, "SELECT value FROM meta WHERE key = 'tool_version'")
        #expect(meta.first?["value"] as? String == "0.1.0")
    }

    /// The ```sql blocks of the sessions-database section of docs/outputs.md, each followed by
    /// the output block that `sqlite3 -box` prints for it.
    func documentedQueries() throws -> [(sql: String, output: String)] {
        let readme = try String(contentsOfFile: Repository.path("docs/outputs.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "## The sessions database\n"))
        let section = readme[start.upperBound...].prefix { _ in true }
        let end = section.range(of: "\n## ")?.lowerBound ?? section.endIndex
        let blocks = section[..<end].components(separatedBy: "```")
        var result: [(String, String)] = []
        // components: text, "sql\n…", text, "\n…output…", …
        var index = 1
        while index + 2 < blocks.count {
            if blocks[index].hasPrefix("sql\n") {
                result.append((String(blocks[index].dropFirst(4)), String(blocks[index + 2].drop { $0 == "\n" })))
                index += 4
            } else {
                index += 2
            }
        }
        return result
    }

    @Test func theDocumentedQueriesGiveWhatTheDocsShow() throws {
        let scratch = try TemporaryDirectory()
        let database = try writeDatabase(scratch)
        let queries = try documentedQueries()
        #expect(queries.count == 3)
        for (sql, output) in queries {
            // A boxed table is shown as `sqlite3 -box` prints it, anything else as plain `sqlite3`.
            let mode = output.hasPrefix("┌") ? ["-box"] : []
            let result = try run("/usr/bin/env", ["sqlite3"] + mode + [database, sql])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == output, "\(sql)")
        }
    }

    @Test func aDatabaseNeedsAnOutputFile() throws {
        let result = try navreplay(["sessions", "--format", "sqlite", "SampleLogs/clean"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("Please give --output FILE"))
    }

    /// Two nights into one database: the second run adds its sessions to the first's, in one
    /// transaction; a session the database already holds is refused and nothing is added.
    @Test func aSecondRunAddsItsSessionsAndNeverDropsTheFirst() throws {
        let scratch = try TemporaryDirectory()
        let path = scratch.url.appendingPathComponent("nights.db").path
        let first = try navreplay(["sessions", "--quiet", "--format", "sqlite", "--output", path, "SampleLogs/clean"])
        #expect(first.status == 0, "\(first.stderr)")
        let second = try navreplay(["sessions", "--quiet", "--format", "sqlite", "--output", path, "SampleLogs/violations"])
        #expect(second.status == 0, "\(second.stderr)")
        let sessions = { try self.query(path, "SELECT count(*) AS n, count(DISTINCT session_id) AS ids FROM sessions").first }
        #expect(try sessions()?["n"] as? Int == 4 + 7)
        #expect(try sessions()?["ids"] as? Int == 4 + 7)
        let events = try query(path, "SELECT count(*) AS n FROM events").first?["n"] as? Int
        #expect(events == 113 + 73)

        let again = try navreplay(["sessions", "--quiet", "--format", "sqlite", "--output", path, "SampleLogs/clean"])
        #expect(again.status == 2)
        #expect(again.stderr.contains("already holds session"), "\(again.stderr)")
        #expect(again.stderr.contains("--replace"), "\(again.stderr)")
        #expect(try sessions()?["n"] as? Int == 11)
        #expect(try query(path, "SELECT count(*) AS n FROM events").first?["n"] as? Int == events)

        let replaced = try navreplay(["sessions", "--quiet", "--format", "sqlite", "--replace", "--output", path, "SampleLogs/clean"])
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(try sessions()?["n"] as? Int == 4)
    }

    @Test func aFileThatIsNotASessionsDatabaseIsLeftAlone() throws {
        let scratch = try TemporaryDirectory()
        let path = try scratch.write("notes.db", "my notes\n")
        let result = try navreplay(["sessions", "--quiet", "--format", "sqlite", "--output", path, "SampleLogs/clean"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("is not a navreplay sessions database"), "\(result.stderr)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "my notes\n")
        let empty = try scratch.write("empty.db", "")
        #expect(try navreplay(["sessions", "--quiet", "--format", "sqlite", "--output", empty, "SampleLogs/clean"]).status == 0)
        #expect(try query(empty, "SELECT count(*) AS n FROM sessions").first?["n"] as? Int == 4)
    }

    @Test func replaceIsForTheDatabaseOnly() throws {
        let result = try navreplay(["sessions", "--replace", "--format", "csv", "SampleLogs/clean"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--replace is for --format sqlite"))
    }
}
