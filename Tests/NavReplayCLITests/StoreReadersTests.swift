import Foundation
import NavTestSupport
import Testing

/// The store's readers count what an audit of the same logs counts (issue 46, items 4 and 9).
@Suite struct StoreReadersTests {
    /// `report --store`'s summary is `audit --store`'s, and both are the audit's of the logs:
    /// the same lines, invalid lines (the store holds them), findings and input bytes.
    @Test func reportAndAuditOfAStoreCountAsTheAuditOfItsLogs() throws {
        let scratch = try TemporaryDirectory()
        let log = try scratch.write(
            "v.ndjson",
            try String(contentsOfFile: Repository.path("SampleLogs/violations/app-2026-11-20-broken.ndjson"), encoding: .utf8))
        let store = scratch.path("s.db")
        let ingest = try navreplay(["ingest", "--store", store, "--close-all", "--fail-on", "never", "--quiet", log])
        #expect(ingest.status == 0, "\(ingest.stderr)")
        var summaries: [String: String] = [:]
        for (name, arguments) in [
            ("report", ["report", "--store", store, "--output", scratch.path("r.html")]),
            ("audit --store", ["audit", "--store", store, "--output", "/dev/null"]),
            ("audit", ["audit", "--output", "/dev/null", log]),
        ] {
            let summary = scratch.path("summary-\(summaries.count).json")
            let result = try navreplay(arguments + ["--summary", summary, "--quiet", "--fail-on", "never"])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            summaries[name] = try String(contentsOfFile: summary, encoding: .utf8)
        }
        #expect(summaries["audit"]?.contains("\"invalid_lines\":4") == true, "\(summaries["audit"] ?? "")")
        #expect(summaries["report"] == summaries["audit"], "report --store: \(summaries["report"] ?? "")")
        #expect(summaries["audit --store"] == summaries["audit"], "audit --store: \(summaries["audit --store"] ?? "")")
    }
}

/// `audit --store` prints what `audit` of the same logs prints, in every format: the states
/// around each finding come from the held sessions folded again (issue 46, item 9).
@Suite struct StoreAuditFormatTests {
    @Test func everyFormatOfAStoreIsTheAuditsOfItsLogs() throws {
        let scratch = try TemporaryDirectory()
        let broken = try scratch.write(
            "v.ndjson",
            try String(contentsOfFile: Repository.path("SampleLogs/violations/app-2026-11-20-broken.ndjson"), encoding: .utf8))
        let clean = try scratch.write(
            "c.ndjson",
            try String(contentsOfFile: Repository.path("SampleLogs/clean/app-2026-11-20-upload1.ndjson"), encoding: .utf8))
        let store = scratch.path("s.db")
        for batch in [[broken], [clean], ["--close-all"]] {
            let ingest = try navreplay(["ingest", "--store", store, "--fail-on", "never", "--quiet", "--output", "/dev/null"] + batch)
            #expect(ingest.status == 0, "\(ingest.stderr)")
        }
        for format in [["text"], ["json"], ["sarif"], ["ndjson"], ["ndjson", "--explain"], ["junit"], ["github"]] {
            let options = ["--format"] + format + ["--quiet", "--fail-on", "never"]
            let logs = try navreplay(["audit"] + options + [broken, clean])
            let stored = try navreplay(["audit", "--store", store] + options)
            #expect(logs.status == 0 && stored.status == 0, "\(format): \(logs.stderr) \(stored.stderr)")
            #expect(stored.stdout == logs.stdout, "\(format.joined(separator: " ")): the store's differs")
        }
        let text = try navreplay(["audit", "--store", store, "--format", "json", "--quiet", "--fail-on", "never"])
        #expect(text.stdout.contains("\"state_before\""), "no states: \(text.stdout.prefix(300))")
    }

    /// A pruned session's findings keep no events to fold: they print without their states.
    @Test func aPrunedSessionsFindingsPrintWithoutStates() throws {
        let scratch = try TemporaryDirectory()
        let broken = try scratch.write(
            "v.ndjson",
            try String(contentsOfFile: Repository.path("SampleLogs/violations/app-2026-11-20-broken.ndjson"), encoding: .utf8))
        let store = scratch.path("s.db")
        let ingest = try navreplay(["ingest", "--store", store, "--close-all", "--retain", "0s", "--fail-on", "never", "--quiet", broken])
        #expect(ingest.status == 0, "\(ingest.stderr)")
        let stored = try navreplay(["audit", "--store", store, "--format", "ndjson", "--explain", "--quiet", "--fail-on", "never"])
        #expect(stored.status == 0, "\(stored.stderr)")
        // Six of the seven sessions are pruned; the one held keeps its states.
        let sessions = stored.stdout.split(separator: "\n").filter { !$0.contains("\"session_id\":null") }
        let explained = sessions.filter { $0.contains("\"state_before\"") }
        #expect(!explained.isEmpty && explained.count < sessions.count, "\(explained.count) of \(sessions.count) explained")
        #expect(explained.allSatisfy { $0.contains("\"state_after\"") })
    }
}
