import Foundation
import NavTestSupport
import Testing

/// `navreplay paths` and `navreplay funnel` as a user runs them: logs and a store of the same
/// logs give the same numbers, trees and funnels add up, and usage errors say what to give.
@Suite struct JourneyCommandTests {
    static func json(_ result: ProcessResult) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    static let funnel = [
        "--step", "screen:tab1/(root)", "--step", "screen:tab1/list", "--step", "screen:tab1/detail", "--by", "app_version",
    ]

    @Test func logsAndAStoreOfThemGiveTheSameNumbers() throws {
        let directory = try TemporaryDirectory()
        let log = try IngestCommandTests.generatedLog(directory, "bench.ndjson", megabytes: 2, seed: 49)
        let store = directory.path("nav.db")
        let ingest = try navreplay(["ingest", "--store", store, "--close-all", "--fail-on", "never", log])
        #expect(ingest.status == 0, "\(ingest.stderr)")
        for arguments in [
            ["paths", "--format", "json"], ["paths", "--from", "tab1/list", "--steps", "3", "--format", "json"],
            ["paths", "--to", "tab1/detail", "--format", "json"], ["funnel", "--format", "json"] + Self.funnel,
            ["funnel", "--within", "1m", "--format", "json"] + Self.funnel,
        ] {
            let fromLog = try navreplay(arguments + ["-q", log])
            let fromStore = try navreplay(arguments + ["-q", "--store", store])
            #expect(fromLog.status == 0, "\(arguments): \(fromLog.stderr)")
            #expect(fromStore.status == 0, "\(arguments): \(fromStore.stderr)")
            #expect(fromLog.stdout == fromStore.stdout, "\(arguments)")
            #expect(fromLog.stdout.count > 200)
        }
        // With one job or three, within a small memory limit, the same document.
        let one = try navreplay(["paths", "--format", "json", "-q", "--jobs", "1", log])
        let three = try navreplay(["paths", "--format", "json", "-q", "--jobs", "3", "--memory-limit", "8M", log])
        #expect(one.stdout == three.stdout)
    }

    @Test func everyTreeNodesChildrenAndEveryFunnelAddUp() throws {
        let directory = try TemporaryDirectory()
        let log = try IngestCommandTests.generatedLog(directory, "bench.ndjson", megabytes: 1, seed: 7)
        for direction in ["--from", "--to"] {
            let tree = try Self.json(try navreplay(["paths", direction, "tab1/(root)", "--steps", "4", "--format", "json", "-q", log]))
            let root = try #require(tree["tree"] as? [String: Any])
            #expect((root["sessions"] as? Int ?? 0) > 50)
            var nodes = 0
            Self.expectChildrenAddUp(root, nodes: &nodes)
            #expect(nodes > 20)
            // The root's sessions are the sessions that reached the anchor.
            let screens = try #require(tree["screens"] as? [[String: Any]])
            let anchor = screens.first {
                ($0["screen"] as? [String: Any])?["stack"] as? String == "tab1" && ($0["screen"] as? [String: Any])?["route"] is NSNull
            }
            #expect(anchor?["sessions"] as? Int == root["sessions"] as? Int)
        }
        let paths = try Self.json(try navreplay(["paths", "--format", "json", "-q", log]))
        for transition in try #require(paths["transitions"] as? [[String: Any]]) {
            let operations = try #require(transition["operations"] as? [String: Int])
            #expect(operations.values.reduce(0, +) == transition["count"] as? Int)
        }
        let funnel = try Self.json(try navreplay(["funnel", "--format", "json", "-q", log] + Self.funnel))
        var previous = funnel["entered"] as? Int
        for (index, step) in try #require(funnel["steps"] as? [[String: Any]]).enumerated() {
            let sessions = try #require(step["sessions"] as? Int)
            if index > 0 {
                #expect(step["drop_off"] as? Int == (previous ?? 0) - sessions)
                let places = try #require(step["dropped_to"] as? [[String: Any]])
                #expect(places.reduce(0) { $0 + ($1["sessions"] as? Int ?? 0) } == step["drop_off"] as? Int)
            }
            previous = sessions
        }
        // The groups add up to the whole, step by step.
        let groups = try #require(funnel["groups"] as? [[String: Any]])
        #expect(groups.count == 4)
        let whole = try #require(funnel["steps"] as? [[String: Any]]).map { $0["sessions"] as? Int ?? -1 }
        let sums = groups.map { ($0["steps"] as? [[String: Any]] ?? []).map { $0["sessions"] as? Int ?? 0 } }
            .reduce(Array(repeating: 0, count: whole.count)) { zip($0, $1).map(+) }
        #expect(sums == whole)
    }

    static func expectChildrenAddUp(_ node: [String: Any], nodes: inout Int) {
        let children = node["children"] as? [[String: Any]] ?? []
        nodes += children.count
        if !children.isEmpty {
            #expect(children.reduce(0) { $0 + ($1["sessions"] as? Int ?? 0) } == node["sessions"] as? Int)
        }
        for child in children {
            if !(child["screen"] is NSNull) {
                let operations = child["operations"] as? [String: Int] ?? [:]
                #expect(operations.values.reduce(0, +) == child["sessions"] as? Int)
            }
            expectChildrenAddUp(child, nodes: &nodes)
        }
    }

    @Test func textShowsTheTopRowsWithAnOtherRowThatAddsUp() throws {
        let result = try navreplay(["paths", "--from", "tab1/(root)", "--steps", "2", "--top", "2", "-q", "SampleLogs"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Transitions, by count:"))
        #expect(result.stdout.contains("other ("))
        #expect(result.stdout.contains("Paths of 2 step(s) out of tab1/(root)"))
    }

    @Test func usageErrorsSayWhatToGive() throws {
        let screen = try navreplay(["paths", "--from", "detail", "SampleLogs"])
        #expect(screen.status == 2)
        #expect(screen.stderr.contains("'detail' is not a screen: give STACK/ROUTE, STACK/(root) or modal:NAME."))
        let both = try navreplay(["paths", "--from", "tab1/list", "--to", "tab1/list", "SampleLogs"])
        #expect(both.status == 2)
        let step = try navreplay(["funnel", "--step", "screen:tab1/list", "--step", "page:x", "SampleLogs"])
        #expect(step.status == 2)
        #expect(step.stderr.contains("'page:x' is not a step"))
        let one = try navreplay(["funnel", "--step", "screen:tab1/list", "SampleLogs"])
        #expect(one.status == 2)
        #expect(one.stderr.contains("two --step options or more"))
        let within = try navreplay(["funnel", "--step", "tab:tab1", "--step", "tab:tab2", "--within", "soon", "SampleLogs"])
        #expect(within.status == 2)
    }
}

/// docs/analytics.md's worked examples: each block's command, run, prints the block's output.
@Suite struct AnalyticsDocExampleTests {
    @Test(arguments: ["paths-example", "funnel-example"])
    func theWorkedExamplesNumbersAreWhatTheCommandPrints(block name: String) throws {
        let page = try String(contentsOfFile: Repository.path("docs/analytics.md"), encoding: .utf8)
        let begin = try #require(page.range(of: "<!-- BEGIN \(name) -->\n```\n"))
        let end = try #require(page.range(of: "```\n<!-- END \(name) -->", range: begin.upperBound..<page.endIndex))
        let block = page[begin.upperBound..<end.lowerBound]
        let command = try #require(block.split(separator: "\n").first)
        #expect(command.hasPrefix("$ navreplay "))
        let expected = block.dropFirst(command.count + 1)
        let result = try DocumentedExamplesTests.shell([String(command.dropFirst(2))], in: Repository.root)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == String(expected))
    }
}

/// The report's paths section: entries as the first screen after the initial one, and a funnel
/// with --step.
@Suite struct ReportJourneysTests {
    @Test func theReportEntersPastTheInitialScreenAndShowsAFunnel() throws {
        let directory = try TemporaryDirectory()
        let log = try IngestCommandTests.generatedLog(directory, "bench.ndjson", megabytes: 1, seed: 3)
        let page = directory.path("report.html")
        let result = try navreplay(
            ["report", "-q", "--step", "screen:tab1/(root)", "--step", "screen:tab1/list", "--output", page, log])
        #expect(result.status == 0, "\(result.stderr)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        let entries = try #require(html.range(of: "<h3>Where sessions enter</h3>"))
        let firstEntry = try #require(html.range(of: "<code>", range: entries.upperBound..<html.endIndex))
        // Every generated session starts on onboarding's root: it is not where they enter.
        #expect(!html[firstEntry.upperBound...].hasPrefix("onboarding/(root)<"))
        #expect(html.contains("<h3>Funnel of "))
        #expect(html.contains("<td><code>screen:tab1/list</code></td>"))
        #expect(html.contains("next screen") && html.contains("before screen"))
    }
}
