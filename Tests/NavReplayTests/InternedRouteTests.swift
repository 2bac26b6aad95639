import NavEvents
import NavJSON
import NavModel
import NavReplay
import Testing

/// The fold keeps routes as symbols: the model's routes have theirs from the model, any other
/// route gets one the first time the session names it, and every name comes back unchanged in
/// the state and the findings.
@Suite("Interned routes")
struct InternedRouteTests {
    @Test func undeclaredRoutesComeBackByName() throws {
        var log = SessionLog.authorized()
        log.add(.push("tab1", from: nil, to: "ghost"))
        log.add(.push("tab1", from: "ghost", to: "list"))
        log.add(.push("tab1", from: "list", to: "ghost"))
        log.add(.pop("tab1", from: "ghost", to: "list"))

        let result = try audit(log)

        #expect(summary(result) == ["route.unknown@1", "route.unknown@3"])
        #expect(result.finalState.stacks["tab1"] == ["ghost", "list"])
    }

    @Test func aWrongFromRouteNamesBothRoutes() throws {
        var log = SessionLog.authorized(routes: ["list"])
        log.add(.push("tab1", from: "ghost", to: "detail"))

        let mismatch = try onlyFinding(.stateMismatch, in: try audit(log))

        #expect(mismatch.expected == .string("list"))
        #expect(mismatch.found == .string("ghost"))
    }

    @Test func aRouteNoEventNamedIsInNoStack() throws {
        var log = SessionLog.authorized(routes: ["list"])
        log.add(.remove("tab1", "phantom"))
        log.add(.popTo("tab1", from: "list", to: "phantom"))

        let result = try audit(log)

        #expect(summary(result) == ["stack.out_of_range@2"])
        #expect(result.finalState.stacks["tab1"] == ["list"])
    }

    @Test func aGivenStateKeepsItsUndeclaredRoutes() throws {
        let restored = NavigationState(
            flow: "authorized", tab: "tab1", stacks: ["onboarding": [], "tab1": ["list", "ghost"], "tab2": []], modals: [])
        var fold = NavigationFold(model: .poc, state: restored)
        #expect(fold.state == restored)
        var log = SessionLog()
        log.nextSeq = 5
        log.add(.push("tab1", from: "ghost", to: "detail"))

        let findings = try sessionLines(log.lines).flatMap { fold.apply($0.event) }

        #expect(findings.isEmpty)
        #expect(fold.state == restored.with(stack: "tab1", ["list", "ghost", "detail"]))
    }
}
