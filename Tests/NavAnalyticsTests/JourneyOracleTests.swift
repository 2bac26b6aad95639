import Foundation
import NavAnalytics
import NavModel
import NavSamples
import NavTestSupport
import Testing

/// `paths` and `funnel` against an independent count: DuckDB SQL over the screen_view events of
/// the same NDJSON, and numpy for the percentiles (scripts/journeys_oracle.py), on a generated
/// corpus of every sample system.
@Suite(.enabled(if: JourneyCorpus.oracleAvailable, "needs python3 with duckdb and numpy (scripts/install-test-deps)"))
struct JourneyOracleTests {
    @Test(arguments: SeedSystems.all.map(\.id))
    func pathsAndFunnelEqualDuckDBOverTheScreenViews(system id: String) throws {
        let system = try #require(SeedSystems.named(id))
        let directory = try TemporaryDirectory()
        let lines = JourneyCorpus.lines(system, sessions: 150, seed: 49)
        let path = try directory.write("log.ndjson", lines.joined(separator: "\n") + "\n")
        let paths = PathsResult(try JourneyCorpus.fold(PathsAnalysis(), path: path, model: system.model), anchor: nil)
        let steps = Self.funnelSteps(paths)
        let analysis = FunnelAnalysis(steps: steps.map { .screen($0) })
        let funnel = FunnelResult(try JourneyCorpus.fold(analysis, path: path, model: system.model), analysis: analysis)
        let oracle = try JourneyCorpus.oracle(path, steps: steps.map(\.label))

        #expect(paths.sessions == oracle["sessions"] as? Int)
        let screens = try #require(oracle["screens"] as? [[String: Any]])
        let expectedScreens = Dictionary(
            uniqueKeysWithValues: screens.map { ($0["screen"] as! String, [$0["sessions"] as! Int, $0["views"] as! Int]) })
        let actualScreens = Dictionary(uniqueKeysWithValues: paths.screens.map { ($0.screen.label, [$0.sessions, $0.views]) })
        #expect(actualScreens == expectedScreens)
        let transitions = try #require(oracle["transitions"] as? [[String: Any]])
        var expectedTransitions: [String: [String: Int]] = [:]
        for row in transitions {
            var counts = row["operations"] as! [String: Int]
            counts["(sessions)"] = row["sessions"] as? Int
            counts["(count)"] = row["count"] as? Int
            expectedTransitions["\(row["from"]!) → \(row["to"]!)"] = counts
        }
        var actualTransitions: [String: [String: Int]] = [:]
        for row in paths.transitions {
            var counts = Dictionary(uniqueKeysWithValues: row.operations.map { ($0.operation.rawValue, $0.count) })
            counts["(sessions)"] = row.sessions
            counts["(count)"] = row.count
            actualTransitions[row.from.label + " → " + row.to.label] = counts
            #expect(row.operations.reduce(0) { $0 + $1.count } == row.count)
        }
        #expect(actualTransitions == expectedTransitions)
        #expect(paths.transitions.count >= 8, "a corpus with few transitions proves little")

        let expectedFunnel = try #require(oracle["funnel"] as? [String: Any])
        #expect(funnel.all.steps.map(\.sessions) == expectedFunnel["reached"] as? [Int])
        #expect(funnel.all.steps[1].sessions > 0, "the funnel's second step is reached: \(steps)")
        let times = try #require(expectedFunnel["times"] as? [Any])
        for (row, expected) in zip(funnel.all.steps, times) {
            #expect(row.time == (expected as? [String])?.map { Double($0)! }, "\(row.step)")
        }
        let dropped = try #require(expectedFunnel["dropped"] as? [[String: Int]])
        for (row, expected) in zip(funnel.all.steps, dropped) {
            Self.expectDestinations(row.droppedTo, equal: expected, dropOff: row.dropOff ?? 0)
        }
    }

    /// The funnel of three stack screens along the busiest transitions: the top transition between
    /// stack screens, then the top one out of its target to a third screen.
    static func funnelSteps(_ paths: PathsResult) -> [Screen] {
        func isStack(_ screen: Screen) -> Bool { if case .stack = screen { true } else { false } }
        guard let first = paths.transitions.first(where: { isStack($0.from) && isStack($0.to) }) else { return [] }
        let next = paths.transitions.first { $0.from == first.to && isStack($0.to) && $0.to != first.from }
        return [first.from, first.to] + (next.map { [$0.to] } ?? [first.from])
    }

    /// The top places are the oracle's most frequent ones (ties by label), and the "other" row holds
    /// the rest; together they add up to the drop-off.
    static func expectDestinations(_ places: [FunnelResult.Destination], equal expected: [String: Int], dropOff: Int) {
        #expect(places.reduce(0) { $0 + $1.sessions } == dropOff)
        #expect(expected.values.reduce(0, +) == dropOff)
        let ranked = expected.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
        let named = places.filter { $0.other == 0 }
        #expect(named.map { $0.screen?.label ?? "(exit)" } == ranked.prefix(5).map(\.key))
        #expect(named.map(\.sessions) == ranked.prefix(5).map(\.value))
        let rest = ranked.dropFirst(5)
        if rest.isEmpty {
            #expect(places.count == named.count)
        } else {
            #expect(places.last?.other == rest.count)
            #expect(places.last?.sessions == rest.reduce(0) { $0 + $1.value })
        }
    }

    /// Percentiles of many shapes of sample (one value, ties, negatives, even and odd sizes)
    /// equal numpy.percentile's default, bit for bit.
    @Test func percentilesEqualNumpys() throws {
        var random = SeededRandom(seed: 7)
        var samples: [[Int64]] = [[5], [1, 2], [3, 3, 3], [-40, 0, 17], [0, 1_000_000_007]]
        for size in [4, 10, 11, 99, 100, 101, 257, 1000] {
            samples.append((0..<size).map { _ in Int64.random(in: -500...90_000, using: &random) })
            samples.append((0..<size).map { _ in Int64.random(in: 0...6, using: &random) * 333 })
        }
        let percents = [0, 1, 25, 50, 90, 99, 100]
        let script = """
            import json, sys, numpy
            samples = json.load(sys.stdin)
            print(json.dumps([[repr(float(v)) for v in numpy.percentile(numpy.array(s, dtype=numpy.int64), \(percents))] for s in samples]))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: samples))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        // As text: Foundation's JSON numbers are not always the nearest double.
        let expected = try #require(try JSONSerialization.jsonObject(with: data) as? [[String]]).map { $0.map { Double($0)! } }
        for (sample, numpy) in zip(samples, expected) {
            let counts = sample.reduce(into: [Int64: Int]()) { $0[$1, default: 0] += 1 }
            #expect(Percentiles.linear(counts, percents: percents) == numpy, "\(sample.count) values")
        }
    }
}
