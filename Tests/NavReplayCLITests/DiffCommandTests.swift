import Foundation
import NavEvents
import NavRouter
import NavTestSupport
import Testing

/// `navreplay diff` end to end, on sessions the router writes: the candidate version presents a
/// modal from the detail screen in 30% of sessions against 10%, and loses an event in 10% against
/// 2%, 800 sessions a side.
@Suite(.serialized) struct DiffCommandTests {
    static func session(_ index: Int, version: String, random: inout SeededRandom) -> [NavigationEvent] {
        let harness = RouterHarness(sessionID: "\(version)-\(index)")
        let candidate = version == "4.2.0"
        harness.expectAction { $0.push("welcome") }
        harness.expectAction { $0.apply(command: "goAuthorizedTab1Root") }
        harness.expectAction { $0.push("list") }
        harness.expectAction { $0.push("detail") }
        if Double.random(in: 0..<1, using: &random) < (candidate ? 0.3 : 0.1) {
            harness.expectAction { $0.present("success") }
            harness.expectAction { $0.dismiss("success") }
        }
        harness.expectAction { $0.selectTab("tab2") }
        harness.expectAction { $0.selectTab("tab1") }
        harness.expectAction { $0.pop() }
        var events = harness.events
        for position in events.indices { events[position].appVersion = version }
        if Double.random(in: 0..<1, using: &random) < (candidate ? 0.1 : 0.02) {
            // A lost screen_view in the middle: a seq.gap, and nothing else broken.
            let lost = events.indices.filter { events[$0].name == .screenView && $0 > 2 && $0 < events.count - 2 }
            events.remove(at: lost[Int.random(in: 0..<lost.count, using: &random)])
        }
        return events
    }

    /// The logs: `baseline.ndjson` (4.1.0) and `candidate.ndjson` (4.2.0).
    static func corpus(_ directory: TemporaryDirectory) throws -> (baseline: String, candidate: String) {
        var random = SeededRandom(seed: 4_842)
        var files: [String] = []
        for version in ["4.1.0", "4.2.0"] {
            let lines = (0..<800).flatMap { session($0, version: version, random: &random).map(\.canonicalJSON) }
            files.append(
                try directory.write(version == "4.1.0" ? "baseline.ndjson" : "candidate.ndjson", lines.joined(separator: "\n") + "\n"))
        }
        return (files[0], files[1])
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    static func significantRules(_ document: [String: Any]) -> [String] {
        (document["comparisons"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "rule" && $0["significant"] as? Bool == true }
            .map { "\($0["key"]!) \($0["direction"]!)" }
    }

    @Test func thePlantedChangesAreFoundAndTheStoreGivesTheSameDiff() throws {
        let directory = try TemporaryDirectory()
        let (baseline, candidate) = try Self.corpus(directory)
        let logs = try navreplay(["diff", "-q", "--format", "json", baseline, candidate])
        #expect(logs.status == 0, "\(logs.stderr)")
        let document = try Self.json(logs.stdout)
        #expect(document["by"] as? String == "app_version")
        #expect(document["baseline"] as? String == "4.1.0" && document["candidate"] as? String == "4.2.0")
        let rows = try #require(document["comparisons"] as? [[String: Any]])
        let significant = rows.filter { $0["significant"] as? Bool == true }.map { "\($0["kind"]!) \($0["key"]!) \($0["direction"]!)" }
        #expect(significant.contains("rule seq.gap regression"))
        #expect(significant.contains("transition tab1/detail → modal:success change"))
        #expect(!significant.contains { $0.hasPrefix("rule") && !$0.hasPrefix("rule seq.gap") }, "\(significant)")
        let gap = try #require(rows.first { $0["key"] as? String == "seq.gap" })
        let side = try #require(gap["candidate"] as? [String: Any])
        #expect(side["sessions"] as? Int == 800)
        #expect(!rows.contains { $0["key"] as? String == "schema.invalid" })

        #expect(try navreplay(["diff", "-q", "--fail-on-regression", baseline, candidate]).status == 1)
        #expect(
            try navreplay(["diff", "-q", "--fail-on-regression", "--baseline", "4.2.0", "--candidate", "4.1.0", baseline, candidate]).status
                == 0)

        // The same sessions through a store: the same document, byte for byte.
        let store = directory.path("store.navstore")
        #expect(try navreplay(["ingest", "-q", "--store", store, baseline, candidate]).status == 0)
        let stored = try navreplay(["diff", "-q", "--format", "json", "--store", store])
        #expect(stored.status == 0, "\(stored.stderr)")
        #expect(stored.stdout == logs.stdout)

        // The report's table is the diff's significant rule rows, over logs and over the store.
        let markdown = try navreplay(["diff", "-q", "--format", "markdown", baseline, candidate])
        #expect(markdown.stdout.contains("| regression | rule | `seq.gap` |"))
        for arguments in [[baseline, candidate], ["--store", store]] {
            let page = directory.path("report.html")
            #expect(try navreplay(["report", "-q", "-o", page] + arguments).status == 0)
            let html = try String(contentsOfFile: page, encoding: .utf8)
            let section = try #require(html.components(separatedBy: "<section id=\"regressions\">").dropFirst().first)
            let table = section.components(separatedBy: "</section>")[0]
            let regex = /<tr><td><code>([a-z_.]+)<\/code><\/td><td>([a-z]+)<\/td>/
            let listed = table.matches(of: regex).map { "\($0.1) \($0.2)" }
            #expect(listed == Self.significantRules(document), "\(arguments)")
            #expect(table.contains("\(rows.count) comparison(s) of 4.1.0 against 4.2.0"))
        }
    }

    @Test func aStoresBatchesAreTheTwoLogSets() throws {
        let directory = try TemporaryDirectory()
        let (baseline, candidate) = try Self.corpus(directory)
        let store = directory.path("store.navstore")
        #expect(try navreplay(["ingest", "-q", "--store", store, baseline]).status == 0)
        #expect(try navreplay(["ingest", "-q", "--store", store, candidate]).status == 0)
        let batches = try navreplay(["diff", "-q", "--format", "ndjson", "--store", store, "--by", "batch"])
        #expect(batches.status == 0, "\(batches.stderr)")
        let sets = try navreplay(["diff", "-q", "--format", "ndjson", "--baseline-logs", baseline, "--candidate-logs", candidate])
        #expect(sets.status == 0, "\(sets.stderr)")
        #expect(batches.stdout == sets.stdout)
        #expect(batches.stdout.contains("\"key\":\"seq.gap\""))
        let text = try navreplay(["diff", "-q", "--store", store, "--by", "batch"])
        #expect(text.stdout.hasPrefix("batch 1 (800 sessions) against 2 (800 sessions)"))
        // A window that holds no session leaves no groups to compare.
        let empty = try navreplay(["diff", "-q", "--store", store, "--since", "2100-01-01"])
        #expect(empty.status == 2 && empty.stderr.contains("needs two groups"))
    }

    @Test func usageErrorsAndUnreadableInputsExit2() throws {
        let directory = try TemporaryDirectory()
        let log = try directory.write("a.ndjson", "{not json}\n")
        #expect(try navreplay(["diff", "--by", "batch", log]).status == 2)
        #expect(try navreplay(["diff", "--baseline-logs", log]).status == 2)
        #expect(try navreplay(["diff", "--since", "yesterday", log]).status == 2)
        #expect(try navreplay(["diff", "-q", directory.path("missing.ndjson")]).status == 2)
        let unknown = try navreplay(["diff", "-q", "--baseline", "9.9", "SampleLogs"])
        #expect(unknown.status == 2 && unknown.stderr.contains("the groups found: 3.2.0"))
    }
}
