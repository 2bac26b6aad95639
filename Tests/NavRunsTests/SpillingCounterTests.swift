import Foundation
import NavJSON
import NavInput
@testable import NavRuns
import NavTestSupport
import Testing

/// The report's counts by label: held in memory, or written to run files past a budget and
/// merged; the top counts must be the same either way, whatever the order labels come in.
@Suite struct SpillingCounterTests {
    /// Labels of three groups, many repeated, some sharing long prefixes, some equal but for
    /// their Unicode normalization (distinct: labels compare by bytes), in random order.
    func labels(_ random: inout SeededRandom) -> [(label: String, group: Int)] {
        let screens = ["onboarding/(root)", "tab1/detail", "tab1/settings", "é", "e\u{301}", "tab2/post", ""]
        var labels: [(String, Int)] = []
        for _ in 0..<3_000 {
            let length = Int.random(in: 1...6, using: &random)
            let path = (0..<length).map { _ in screens.randomElement(using: &random)! }.joined(separator: " → ")
            labels.append((path, Int.random(in: 0...2, using: &random)))
        }
        return labels
    }

    /// Every group's counts sorted the way `top` ranks them, by a plain dictionary of bytes.
    func expected(_ labels: [(label: String, group: Int)], limit: Int) -> [Int: [SpillingCounter.Entry]] {
        var counts: [Int: [[UInt8]: Int]] = [:]
        for (label, group) in labels { counts[group, default: [:]][Array(label.utf8), default: 0] += 1 }
        return counts.mapValues { byLabel in
            byLabel.map { SpillingCounter.Entry(label: String(decoding: $0.key, as: UTF8.self), count: $0.value) }
                .sorted { $0.count != $1.count ? $0.count > $1.count : $0.label.utf8.lexicographicallyPrecedes($1.label.utf8) }
                .prefix(limit).map { $0 }
        }
    }

    @Test(arguments: [Int.max, 4_000, 1])
    func topCountsAreTheSameInMemoryOrWrittenOut(budget: Int) throws {
        var random = SeededRandom(seed: 7)
        let labels = labels(&random)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("navreplay-counter-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for limit in [1, 10, 10_000] {
            let counter = SpillingCounter(budgetBytes: budget, temporaryDirectory: directory)
            for (label, group) in labels.shuffled(using: &random) { counter.add(label, group: group) }
            // A budget of 1 byte writes a run a new label: more than `maximumRuns`, so runs
            // are merged into one on the way.
            if budget == 1 { #expect(counter.runCount >= 1 && counter.runCount <= SpillingCounter.maximumRuns) }
            if budget == .max { #expect(counter.runCount == 0) }
            let top = try counter.top([0: limit, 1: limit, 2: limit])
            #expect(top == expected(labels, limit: limit), "budget \(budget), limit \(limit)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty, "run files left behind")
        }
    }

    @Test func aGroupWithoutALimitKeepsNothing() throws {
        let counter = SpillingCounter(budgetBytes: 1)
        counter.add("a", group: 0)
        counter.add("b", count: 3, group: 1)
        counter.add("a", count: 2, group: 0)
        #expect(try counter.top([0: 5]) == [0: [SpillingCounter.Entry(label: "a", count: 3)]])
    }

    @Test func aRunThatCannotBeWrittenIsReportedByTop() throws {
        let counter = SpillingCounter(budgetBytes: 1, temporaryDirectory: "/nonexistent-navreplay-directory")
        counter.add("a", group: 0)
        counter.add("b", group: 0)
        #expect(throws: InputError.self) { try counter.top([0: 5]) }
    }
}
