import Foundation
import NavAnalytics
import NavEngine
import NavEvents
import NavModel
import NavReplay
import NavResults
import NavRouter
import NavSamples
import NavTestSupport
import Testing

/// The journey of one session folded alone with its steps, as the engine folds it for the
/// analytics commands (outlined), or with each step's state (as for `report`).
func folded(_ events: [NavigationEvent], model: NavigationModel = .poc, outlined: Bool = true) throws -> Journey {
    let audit = SessionAuditor.audit(
        sessionID: events.first?.sessionID ?? "", lines: try sessionLines(events), model: model,
        options: SessionAuditOptions(recordSteps: true, keepStates: false, recordScreens: false, outlineSteps: outlined))
    return try Journey(audit)
}

@Suite struct JourneyTests {
    /// A PoC session driven by the router: every view with its operation and state.
    static func routerSession(id: String = "session-1") -> [NavigationEvent] {
        let harness = RouterHarness(sessionID: id)
        harness.expectAction { $0.push("welcome") }
        harness.expectAction { $0.apply(command: "goAuthorizedTab1Root") }
        harness.expectAction { $0.push("list") }
        harness.expectAction { $0.push("detail") }
        harness.expectAction { $0.selectTab("tab2") }
        harness.expectAction { $0.selectTab("tab1") }
        harness.expectAction { $0.pop() }
        harness.expectAction { $0.present("success") }
        harness.expectAction { $0.dismiss("success") }
        return harness.events
    }

    @Test func viewsCarryTheScreenTheOperationAndTheState() throws {
        let events = Self.routerSession()
        let journey = try folded(events, model: .pocWithDeepLinks)
        #expect(journey.sessionID == "session-1")
        #expect(journey.appVersion == "1.0.0")
        #expect(journey.platform == "test")
        #expect(journey.events == events.count)
        #expect(journey.findingsByRule.isEmpty)
        #expect(journey.flows == ["onboarding", "authorized"])
        #expect(journey.deepestStack == 2)
        #expect(journey.start == events.first?.timestamp.epochMilliseconds)
        #expect(journey.end == events.last?.timestamp.epochMilliseconds)
        let labels = journey.views.map { "\($0.screen.label) \($0.operation.rawValue)" }
        #expect(
            labels == [
                "onboarding/(root) start", "onboarding/welcome push", "tab1/(root) command", "tab1/list push",
                "tab1/detail push", "tab2/(root) tab", "tab1/detail tab", "tab1/list pop", "modal:success modal_present",
                "tab1/list modal_dismiss",
            ])
        // One view a screen_view, at its seq and time.
        let views = events.filter { $0.name == .screenView }
        #expect(journey.views.map(\.seq) == views.map(\.seq))
        #expect(journey.views.map(\.time) == views.map(\.timestamp.epochMilliseconds))
        let command = journey.views[2]
        #expect(command.command == "goAuthorizedTab1Root")
        #expect(command.flow == "authorized")
        #expect(command.tab == "tab1")
        #expect(journey.views[8].modals == ["success"])
        #expect(journey.views[9].modals.isEmpty)
        #expect(journey.views.filter { $0.command != nil }.count == 1)
    }

    @Test func findingsAreCountedByRuleAndARestoreIsItsOwnOperation() throws {
        var builder = EventBuilder()
        let snapshot = NavigationState(flow: "authorized", tab: "tab2", stacks: ["tab2": ["feed"]])
        let events =
            builder.group([.sessionStart(snapshot: snapshot), .screenView(.stack("tab2", route: "feed"), params: nil)])
            + [builder.make(.screenView(.stack("tab1", route: nil), params: nil))]
        let journey = try folded(events)
        #expect(journey.views.map(\.operation) == [.restore, JourneyOperation.none])
        #expect(journey.findingsByRule == [.screenNotVisible: 1])
        #expect(journey.flows == ["authorized"])
    }

    /// The seam: the engine's journeys, through `JourneyAccumulator`, are the journeys of each
    /// session audited alone, whatever the jobs.
    @Test(arguments: [1, 3]) func theEngineFeedsEverySessionOnce(jobs: Int) throws {
        let directory = try TemporaryDirectory()
        var lines: [String] = []
        var expected: [Journey] = []
        for index in 0..<40 {
            let events = Self.routerSession(id: "s-\(index)")
            lines += events.map(\.canonicalJSON)
            expected.append(try folded(events, model: .pocWithDeepLinks))
        }
        let path = try directory.write("log.ndjson", lines.shuffled().joined(separator: "\n") + "\n")
        var configuration = AuditConfiguration(model: .pocWithDeepLinks, jobs: jobs)
        configuration.sessionOptions = SessionAuditOptions(
            recordSteps: true, keepStates: false, recordScreens: false, outlineSteps: true)
        let accumulator = JourneyAccumulator(JourneyList())
        _ = try AuditEngine(configuration: configuration).run(paths: [path], sink: .accumulating(accumulator))
        let journeys = try accumulator.tally().journeys
        #expect(journeys.map(\.sessionID) == expected.map(\.sessionID).sorted())
        #expect(journeys == expected.sorted { $0.sessionID < $1.sessionID })
    }

    @Test(arguments: SeedSystems.all.map(\.id))
    func outlinedStepsGiveTheJourneyOfTheStates(system id: String) throws {
        let system = try #require(SeedSystems.named(id))
        var random = SeededRandom(seed: 50)
        var sessions = system.clean().map(\.events) + system.violating().map(\.events)
        for index in 0..<40 { sessions.append(JourneyCorpus.session(model: system.model, id: "\(id)-r\(index)", random: &random)) }
        for events in sessions where !events.isEmpty {
            let outlined = try folded(events, model: system.model)
            #expect(!outlined.views.isEmpty)
            #expect(outlined == (try folded(events, model: system.model, outlined: false)))
        }
    }

    @Test func aSessionFoldedAgainReplacesItsFirstJourney() {
        let list = JourneyList()
        let first = Journey(sessionID: "a", events: 1)
        let second = Journey(sessionID: "a", events: 2)
        var one = list.makeTally()
        var other = list.makeTally()
        list.add(first, weight: 1, to: &one)
        list.add(first, weight: -1, to: &other)
        list.add(second, weight: 1, to: &other)
        list.merge(other, into: &one)
        #expect(one.journeys == [second])
    }
}
