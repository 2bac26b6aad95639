import NavAnalytics
import NavModel
import NavReplay
import NavRouter
import NavTestSupport
import Testing

/// The semantics of paths and funnels on sessions written by hand.
@Suite struct PathsFunnelTests {
    static func view(
        _ label: String, at seconds: Int64, _ operation: JourneyOperation = .push, flow: String = "authorized",
        tab: String? = "tab1", modals: [String] = [], command: String? = nil
    ) -> JourneyView {
        JourneyView(
            screen: Screen(label: label)!, seq: seconds, time: seconds * 1000, operation: operation, command: command, flow: flow,
            tab: tab, modals: modals)
    }

    static func journey(_ id: String, _ views: [JourneyView], version: String = "1.0", findings: [Rule: Int] = [:]) -> Journey {
        Journey(sessionID: id, appVersion: version, platform: "ios", findingsByRule: findings, views: views)
    }

    static func paths(_ journeys: [Journey], anchor: PathsAnalysis.Anchor? = nil) -> PathsResult {
        let analysis = PathsAnalysis(anchor: anchor)
        var tally = analysis.makeTally()
        for journey in journeys { analysis.add(journey, weight: 1, to: &tally) }
        return PathsResult(tally, anchor: anchor)
    }

    @Test func aTransactionThroughATabAndAPopIsOneTransitionOfItsFirstOperation() throws {
        let harness = RouterHarness(sessionID: "s")
        harness.expectAction { $0.apply(command: "goAuthorizedTab1Root") }
        harness.expectAction { $0.push("list") }
        harness.expectAction { router in
            router.transaction { tx in
                try tx.selectTab("tab2")
                try tx.selectTab("tab1")
                try tx.pop()
            }
        }
        let journey = try folded(harness.events, model: .pocWithDeepLinks)
        #expect(journey.views.map(\.screen.label) == ["onboarding/(root)", "tab1/(root)", "tab1/list", "tab1/(root)"])
        let result = Self.paths([journey])
        let back = try #require(result.transitions.first { $0.from.label == "tab1/list" })
        #expect(back.to.label == "tab1/(root)")
        #expect(back.operations.map(\.operation) == [.tab])
        #expect(result.screens.first { $0.screen.label == "tab1/(root)" }.map { [$0.sessions, $0.views] } == [1, 2])
    }

    @Test func repeatedViewsAreViewsNotTransitionsAndEntriesSkipTheFirstScreen() {
        let once = Self.journey("a", [Self.view("onboarding/(root)", at: 0, .start), Self.view("onboarding/(root)", at: 1, .none)])
        let twice = Self.journey(
            "b",
            [
                Self.view("onboarding/(root)", at: 0, .start), Self.view("onboarding/(root)", at: 1, .none),
                Self.view("tab1/(root)", at: 2, .command),
            ])
        let result = Self.paths([once, twice])
        #expect(result.screens.map { "\($0.screen.label) \($0.sessions) \($0.views)" } == ["onboarding/(root) 2 4", "tab1/(root) 1 1"])
        #expect(result.transitions.map(\.count) == [1])
        #expect(result.entries.map { "\($0.screen.label) \($0.sessions)" } == ["onboarding/(root) 1", "tab1/(root) 1"])
        #expect(result.exits.map { "\($0.screen.label) \($0.sessions)" } == ["onboarding/(root) 1", "tab1/(root) 1"])
    }

    @Test func aTreeFollowsTheFirstViewOfItsScreenBothWays() throws {
        let views = ["a/(root)", "a/x", "a/y", "a/x", "a/z"].enumerated().map { Self.view($1, at: Int64($0)) }
        let from = try #require(
            Self.paths([Self.journey("s", views)], anchor: .init(screen: .stack("a", route: "x"), direction: .from, steps: 5)).tree)
        #expect(from.sessions == 1)
        var labels: [String] = []
        var node = from.children.first
        while let current = node {
            labels.append(current.screen?.label ?? "end")
            node = current.children.first
        }
        #expect(labels == ["a/y", "a/x", "a/z", "end"])
        let into = try #require(
            Self.paths([Self.journey("s", views)], anchor: .init(screen: .stack("a", route: "x"), direction: .to, steps: 3)).tree)
        #expect(into.children.map { $0.screen?.label } == ["a/(root)"])
        #expect(into.children.first?.children.map(\.screen) == [nil])
    }

    /// A session taken back out on one tally and added again, changed, on another: the merged
    /// tallies are those of the changed session alone.
    @Test func tallyingIsAdditive() {
        let first = Self.journey("s", [Self.view("a/(root)", at: 0), Self.view("a/x", at: 5)], findings: [.stateMismatch: 1])
        let second = Self.journey("s", [Self.view("a/(root)", at: 0), Self.view("a/x", at: 5)])
        let other = Self.journey("t", [Self.view("a/x", at: 0), Self.view("b/(root)", at: 9)])
        let paths = PathsAnalysis(anchor: .init(screen: .stack("a", route: "x"), direction: .from, steps: 2))
        let funnel = FunnelAnalysis(steps: [FunnelStep("screen:a/(root)")!, FunnelStep("screen:a/x")!], by: .appVersion)
        var one = (paths.makeTally(), funnel.makeTally())
        var two = (paths.makeTally(), funnel.makeTally())
        var alone = (paths.makeTally(), funnel.makeTally())
        paths.add(first, weight: 1, to: &one.0)
        funnel.add(first, weight: 1, to: &one.1)
        for journey in [other] {
            paths.add(journey, weight: 1, to: &two.0)
            funnel.add(journey, weight: 1, to: &two.1)
        }
        paths.add(first, weight: -1, to: &two.0)
        funnel.add(first, weight: -1, to: &two.1)
        paths.add(second, weight: 1, to: &two.0)
        funnel.add(second, weight: 1, to: &two.1)
        paths.merge(two.0, into: &one.0)
        funnel.merge(two.1, into: &one.1)
        for journey in [other, second] {
            paths.add(journey, weight: 1, to: &alone.0)
            funnel.add(journey, weight: 1, to: &alone.1)
        }
        #expect(PathsResult(one.0, anchor: paths.anchor) == PathsResult(alone.0, anchor: paths.anchor))
        #expect(FunnelResult(one.1, analysis: funnel) == FunnelResult(alone.1, analysis: funnel))
        #expect(FunnelResult(one.1, analysis: funnel).rules.isEmpty)
    }

    @Test func aWindowTriesEachStartAndKeepsTheOneThatReachesMost() {
        let views = [
            Self.view("a/(root)", at: 0), Self.view("b/(root)", at: 10), Self.view("a/(root)", at: 100),
            Self.view("a/x", at: 130), Self.view("a/y", at: 200),
        ]
        let steps = ["screen:a/(root)", "screen:a/x", "screen:a/y"].map { FunnelStep($0)! }
        func result(within: Int64?) -> FunnelResult {
            let analysis = FunnelAnalysis(steps: steps, within: within)
            var tally = analysis.makeTally()
            analysis.add(Self.journey("s", views), weight: 1, to: &tally)
            return FunnelResult(tally, analysis: analysis)
        }
        let open = result(within: nil)
        #expect(open.all.steps.map(\.sessions) == [1, 1, 1])
        #expect(open.all.steps[1].time == [130_000, 130_000, 130_000])
        let windowed = result(within: 60_000)
        #expect(windowed.all.steps.map(\.sessions) == [1, 1, 0])
        #expect(windowed.all.steps[1].time == [30_000, 30_000, 30_000])
        #expect(windowed.all.steps[2].droppedTo.map { [$0.screen?.label ?? "", "\($0.sessions)"] } == [["a/y", "1"]])
    }

    @Test func stepsMatchTheRoutersStateAtEachView() {
        let view = Self.view("tab1/list", at: 0, flow: "authorized", tab: "tab1", modals: ["paywall"], command: "buy")
        for (text, matches) in [
            ("screen:tab1/list", true), ("screen:tab1/(root)", false), ("modal:paywall", true), ("modal:success", false),
            ("flow:authorized", true), ("flow:onboarding", false), ("tab:tab1", true), ("tab:tab2", false), ("command:buy", true),
            ("command:sell", false),
        ] {
            #expect(FunnelStep(text)?.matches(view) == matches, "\(text)")
            #expect(FunnelStep(text)?.description == text)
        }
        for invalid in ["screen:list", "screen:modal:paywall", "page:x", "tab:", "flow"] {
            #expect(FunnelStep(invalid) == nil, "\(invalid)")
        }
        #expect(Screen(label: "tab1/(root)") == .stack("tab1", route: nil))
        #expect(Screen(label: "modal:paywall") == .modal("paywall"))
        #expect(Screen(label: "detail") == nil)
    }

    @Test func operationsCountInTheirDeclaredOrder() {
        let journeys = JourneyOperation.allCases.enumerated().map { index, operation in
            Self.journey("s\(index)", [Self.view("a/(root)", at: 0), Self.view("a/x", at: 1, operation)])
        }
        let row = Self.paths(journeys).transitions.first
        #expect(row?.operations.map(\.operation) == JourneyOperation.allCases)
        #expect(row?.operations.allSatisfy { $0.count == 1 } == true)
    }
}
