import Foundation
import NavAnalytics
import NavModel
import NavReplay
import NavTestSupport
import Testing

/// Generated journeys, built directly: a session's views, findings and measures drawn from
/// fixed rates.
enum DiffCorpus {
    static let screens: [Screen] = [
        .stack("tab1", route: nil), .stack("tab1", route: "list"), .stack("tab1", route: "detail"), .stack("tab2", route: nil),
        .stack("tab2", route: "feed"), .modal("paywall"), .stack("tab3", route: nil), .stack("tab3", route: "settings"),
    ]
    /// Rules and the share of sessions that break each.
    static let ruleRates: [(Rule, Double)] = [
        (.seqGap, 0.02), (.stateMismatch, 0.04), (.commandPostcondition, 0.035), (.modalAlreadyPresented, 0.03),
        (.screenNotVisible, 0.08), (.clockRegression, 0.01), (.analyticsDuplicate, 0.005), (.stackOutOfRange, 0.015),
    ]

    static func view(_ screen: Screen, _ index: Int) -> JourneyView {
        JourneyView(screen: screen, seq: Int64(index), time: Int64(index) * 1000, operation: .push, flow: "authorized")
    }

    /// A random walk over `screens`, with findings at `ruleRates` (one rule's rate replaced by
    /// `rule`), and, with probability `backToList`, a return from detail to list and back.
    static func journey(
        _ index: Int, version: String, random: inout SeededRandom, rule: (Rule, Double)? = nil, backToList: Double = 0.1
    ) -> Journey {
        var views = [view(screens[0], 0), view(screens[1], 1), view(screens[2], 2)]
        if Double.random(in: 0..<1, using: &random) < backToList {
            views += [view(screens[1], 3), view(screens[2], 4)]
        }
        for step in 0..<Int.random(in: 0...4, using: &random) {
            views.append(view(screens[3 + Int.random(in: 0..<5, using: &random)], 5 + step))
        }
        var findings: [Rule: Int] = [:]
        for (name, rate) in ruleRates {
            let rate = rule?.0 == name ? rule!.1 : rate
            if Double.random(in: 0..<1, using: &random) < rate { findings[name] = Int.random(in: 1...3, using: &random) }
        }
        let events = Int.random(in: 5...60, using: &random)
        let start = Int64(index) * 10_000
        return Journey(
            sessionID: "s-\(version)-\(index)", appVersion: version, platform: "ios", start: start,
            end: start + Int64.random(in: 1_000...600_000, using: &random), events: events, findingsByRule: findings,
            deepestStack: Int.random(in: 0...3, using: &random), flows: ["onboarding", "authorized"], views: views)
    }

    static func tally(_ journeys: [Journey], grouping: DiffAnalysis.Grouping = .appVersion) -> DiffAnalysis.Tally {
        let analysis = DiffAnalysis(grouping: grouping)
        var tally = analysis.makeTally()
        for journey in journeys { analysis.add(journey, weight: 1, to: &tally) }
        return tally
    }
}

@Suite struct DiffTests {
    /// The candidate raises one transition from 10% to 13% of sessions and one rule from 2% to
    /// 3%, 20,000 sessions a side: both are found, and nothing else.
    @Test func aPlantedChangeIsFound() throws {
        var random = SeededRandom(seed: 48)
        var journeys: [Journey] = []
        for index in 0..<20_000 {
            journeys.append(DiffCorpus.journey(index, version: "4.1.0", random: &random))
            journeys.append(
                DiffCorpus.journey(index, version: "4.2.0", random: &random, rule: (.seqGap, 0.03), backToList: 0.13))
        }
        let tally = DiffCorpus.tally(journeys)
        #expect(tally.labels == ["4.1.0", "4.2.0"])
        let result = DiffResult(tally, baseline: "4.1.0", candidate: "4.2.0")
        let found = result.significant.map { "\($0.direction.rawValue) \($0.indicator.kind.rawValue) \($0.indicator.key)" }
        #expect(Set(found) == ["regression rule seq.gap", "change transition tab1/detail → tab1/list"])
        let rule = try #require(result.comparisons.first { $0.indicator == Indicator(.rule, "seq.gap") })
        #expect(rule.baseline.sessions == 20_000 && rule.candidate.sessions == 20_000)
        #expect(abs(rule.baseline.rate! - 0.02) < 0.003 && abs(rule.candidate.rate! - 0.03) < 0.003)
        #expect(rule.interval!.low > 0 && rule.interval!.high < 0.02)
        #expect(rule.test == .z && rule.q < 1e-4)
        // Significant rows first, by q.
        #expect(result.comparisons.prefix(2).allSatisfy { $0.significant })
        #expect(result.comparisons[0].q <= result.comparisons[1].q)
        #expect(result.hasRegression)
    }

    /// A/A: one corpus split at random into two versions, 100 times: a comparison is found
    /// significant in at most 10 splits (Benjamini-Hochberg keeps it under 5% on average).
    @Test func randomSplitsOfOneCorpusRarelyDiffer() {
        var random = SeededRandom(seed: 4_100)
        let corpus = (0..<5_000).map { DiffCorpus.journey($0, version: "", random: &random) }
        let analysis = DiffAnalysis(grouping: .appVersion)
        var splitsWithFindings: [UInt64] = []
        var comparisons = 0
        for seed in UInt64(1)...100 {
            var split = SeededRandom(seed: seed)
            var tally = analysis.makeTally()
            for var journey in corpus {
                journey.appVersion = Bool.random(using: &split) ? "4.1.0" : "4.2.0"
                analysis.add(journey, weight: 1, to: &tally)
            }
            let result = DiffResult(tally, baseline: "4.1.0", candidate: "4.2.0")
            comparisons = result.comparisons.count
            if !result.significant.isEmpty { splitsWithFindings.append(seed) }
        }
        #expect(comparisons > 50, "the corpus is too plain to test much: \(comparisons) comparisons")
        #expect(splitsWithFindings.count <= 10, "splits with a significant comparison: \(splitsWithFindings)")
    }

    /// Without the thresholds, the same splits would list rules: the A/A test can fail.
    @Test func theRawRiseTheOldTableListedIsCommonInTheSameSplits() {
        var random = SeededRandom(seed: 4_100)
        let corpus = (0..<5_000).map { DiffCorpus.journey($0, version: "", random: &random) }
        var split = SeededRandom(seed: 1)
        let tally = DiffCorpus.tally(
            corpus.map { journey in
                var journey = journey
                journey.appVersion = Bool.random(using: &split) ? "4.1.0" : "4.2.0"
                return journey
            })
        let loose = DiffResult(tally, baseline: "4.1.0", candidate: "4.2.0", thresholds: DiffThresholds(alpha: 1.01, minEffect: 0))
        #expect(loose.comparisons.filter { $0.indicator.kind == .rule && $0.effect > 0 }.count >= 2)
        #expect(loose.comparisons.filter { $0.indicator.kind == .rule }.allSatisfy { $0.significant })
    }

    @Test func indicatorsArePerSessionAndTransitionsJoinDifferentScreens() {
        let list = Screen.stack("tab1", route: "list")
        let detail = Screen.stack("tab1", route: "detail")
        let journey = Journey(
            sessionID: "a", appVersion: "1", events: 9, findingsByRule: [.seqGap: 4, .stateMismatch: 0],
            flows: ["onboarding", "authorized"],
            views: [list, list, detail, list, detail, detail].enumerated().map { DiffCorpus.view($1, $0) })
        let indicators = DiffAnalysis.indicators(of: journey)
        #expect(
            indicators == [
                Indicator(.rule, "seq.gap"), Indicator(.screen, "tab1/list"), Indicator(.screen, "tab1/detail"),
                Indicator(.transition, "tab1/list → tab1/detail"), Indicator(.transition, "tab1/detail → tab1/list"),
                Indicator(.exit, "tab1/detail"), Indicator(.flow, "onboarding"), Indicator(.flow, "authorized"),
            ])
    }

    @Test func aSessionTakenBackOutLeavesNoTrace() {
        var random = SeededRandom(seed: 7)
        let analysis = DiffAnalysis(grouping: .appVersion)
        let kept = (0..<30).map { DiffCorpus.journey($0, version: $0 % 2 == 0 ? "1.0" : "1.1", random: &random) }
        let dropped = DiffCorpus.journey(99, version: "1.2", random: &random)
        var one = analysis.makeTally()
        var other = analysis.makeTally()
        for journey in kept.prefix(10) { analysis.add(journey, weight: 1, to: &one) }
        analysis.add(dropped, weight: 1, to: &one)
        analysis.add(dropped, weight: -1, to: &other)
        for journey in kept.dropFirst(10) { analysis.add(journey, weight: 1, to: &other) }
        analysis.merge(other, into: &one)
        var expected = DiffCorpus.tally(kept)
        expected.groups["1.2"] = DiffAnalysis.Group()
        #expect(one.groups["1.0"] == expected.groups["1.0"] && one.groups["1.1"] == expected.groups["1.1"])
        #expect(one.labels == ["1.0", "1.1"])
    }

    @Test func versionsAreInReleaseOrder() {
        let versions = ["4.10.0", "4.9.1", "4.2", "4.2.0", "10.0", "4.2.0-beta", "beta"]
        #expect(versions.sorted(by: DiffAnalysis.precedes) == ["4.2", "4.2.0", "4.2.0-beta", "4.9.1", "4.10.0", "10.0", "beta"])
    }

    @Test func theJSONHasARowForEverythingSeenOnEitherSide() throws {
        var random = SeededRandom(seed: 11)
        let journeys = (0..<400).map { DiffCorpus.journey($0, version: $0 % 2 == 0 ? "4.1.0" : "4.2.0", random: &random) }
        let tally = DiffCorpus.tally(journeys)
        let result = DiffResult(tally, baseline: "4.1.0", candidate: "4.2.0")
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(DiffWriter.json(result, by: "app_version").utf8)) as? [String: Any])
        #expect(document["by"] as? String == "app_version")
        #expect(document["baseline"] as? String == "4.1.0" && document["candidate"] as? String == "4.2.0")
        let rows = try #require(document["comparisons"] as? [[String: Any]])
        var seen = Set<Indicator>()
        for journey in journeys { seen.formUnion(DiffAnalysis.indicators(of: journey)) }
        let keys = Set(
            rows.compactMap { row in (row["kind"] as? String).flatMap(Indicator.Kind.init).map { Indicator($0, row["key"] as! String) } })
        #expect(keys == seen.union(Indicator.distributions.map { Indicator(.distribution, $0) }))
        for row in rows where row["kind"] as? String == "rule" {
            let baseline = try #require(row["baseline"] as? [String: Any])
            let key = row["key"] as! String
            let expected = journeys.filter { $0.appVersion == "4.1.0" && ($0.findingsByRule[Rule(rawValue: key)!] ?? 0) > 0 }.count
            #expect(baseline["with"] as? Int == expected && baseline["sessions"] as? Int == 200)
            #expect((row["ci"] as? [Double])?.count == 2)
            #expect(row["p"] is Double && row["q"] is Double && row["significant"] is Bool && row["direction"] is String)
        }
        #expect(DiffWriter.ndjson(result).split(separator: "\n").count == rows.count)
    }
}

/// docs/analytics.md's worked example: its numbers are the diff's.
@Suite struct DiffDocumentationTests {
    static func exampleTally() -> DiffAnalysis.Tally {
        var tally = DiffAnalysis.Tally()
        for (label, gap, detail, back) in [("4.1.0", 100, 2_000, 500), ("4.2.0", 150, 2_050, 650)] {
            var group = DiffAnalysis.Group()
            group.sessions = 5_000
            group.with = [
                Indicator(.rule, "seq.gap"): gap, Indicator(.screen, "tab1/detail"): detail,
                Indicator(.transition, "tab1/detail → tab1/list"): back,
            ]
            group.lengths = [12: 5_000]
            tally.groups[label] = group
        }
        return tally
    }

    @Test func theWorkedExampleIsWhatDiffPrints() throws {
        let result = DiffResult(Self.exampleTally(), baseline: "4.1.0", candidate: "4.2.0")
        let documentation = try String(contentsOfFile: Repository.path("docs/analytics.md"), encoding: .utf8)
        let text = DiffWriter.text(result, by: "app_version")
        let markdown = DiffWriter.markdown(result, by: "app_version")
        #expect(documentation.contains("```\n$ navreplay diff --by app_version logs/\n" + text + "```"), "\(text)")
        #expect(documentation.contains(markdown), "\(markdown)")
        #expect(result.significant.map(\.indicator.key) == ["tab1/detail → tab1/list", "seq.gap"])
    }
}
