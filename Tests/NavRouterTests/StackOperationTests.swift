import NavEvents
import NavJSON
import NavModel
import NavReplay
import NavRouter
import NavTestSupport
import Testing

@Suite("Stack operations")
struct StackOperationTests {
    @Test func startWritesSessionStartThenTheFirstScreen() {
        let harness = RouterHarness(start: false)
        let events = harness.expectAction { #expect($0.start() == .applied) }
        #expect(events.payloads == [.sessionStart(snapshot: nil), screen("onboarding", nil)])
        #expect(events.map(\.seq) == [0, 1])
        #expect(events.allSatisfy { $0.appVersion == "1.0.0" && $0.platform == "test" })
        #expect(harness.state == NavigationModel.poc.initialState)
        harness.expectCleanReplay()
    }

    @Test func operationsBeforeStartAndASecondStartAreRefused() {
        let harness = RouterHarness(start: false)
        #expect(harness.router.push("welcome") == .refused(.sessionNotStarted))
        #expect(harness.router.open(deepLink: "poc://tab1") == .refused(.sessionNotStarted))
        #expect(harness.events.isEmpty)
        harness.router.start()
        #expect(harness.router.start() == .refused(.sessionAlreadyStarted))
        #expect(harness.router.restore(from: harness.state) == .refused(.sessionAlreadyStarted))
        #expect(harness.events.count == 2)
    }

    @Test func pushAppendsToTheActiveStack() {
        let harness = RouterHarness()
        let events = harness.expectAction { #expect($0.push("welcome") == .applied) }
        #expect(
            events.payloads == [
                .routePush(stack: "onboarding", from: nil, to: "welcome", params: nil), screen("onboarding", "welcome"),
            ])
        harness.expectAction { $0.push("signup", on: "onboarding") }
        #expect(harness.state.stacks["onboarding"] == ["welcome", "signup"])
        #expect(harness.state.stacks["tab1"] == [] && harness.state.stacks["tab2"] == [])
        harness.expectCleanReplay()
    }

    struct Refusal: CustomTestStringConvertible, Sendable {
        var id: String
        var action: @Sendable (NavigationRouter) -> NavigationResult
        var expected: NavigationRefusal
        var testDescription: String { id }
    }

    static let pushRefusals: [Refusal] = [
        Refusal(id: "route of another stack", action: { $0.push("welcome") }, expected: .unknownRoute("welcome", stack: "tab1")),
        Refusal(id: "unknown stack", action: { $0.push("x", on: "nope") }, expected: .unknownStack("nope")),
        Refusal(
            id: "stack of another flow", action: { $0.push("welcome", on: "onboarding") },
            expected: .stackNotOwned(stack: "onboarding", flow: "authorized")),
        Refusal(id: "empty route", action: { $0.push("") }, expected: .unknownRoute("", stack: "tab1")),
        Refusal(
            id: "second singleton", action: { $0.push("settings") },
            expected: .singletonAlreadyPresent("settings", stack: "tab1")),
        Refusal(
            id: "duplicate parameter", action: { $0.push("detail", params: RouteParams([("id", .string("1")), ("id", .string("2"))])) },
            expected: .invalidRouteParams("the name \"id\" is given twice")),
        Refusal(
            id: "bad number", action: { $0.push("detail", params: RouteParams([("id", .number("01"))])) },
            expected: .invalidRouteParams("\"01\" (parameter \"id\") is not a JSON number")),
        Refusal(id: "insert below 0", action: { $0.insert("list", at: -1) }, expected: .indexOutOfRange(index: -1, depth: 2)),
        Refusal(id: "insert beyond depth", action: { $0.insert("list", at: 3) }, expected: .indexOutOfRange(index: 3, depth: 2)),
        Refusal(
            id: "insert a second singleton", action: { $0.insert("settings", at: 0) },
            expected: .singletonAlreadyPresent("settings", stack: "tab1")),
        Refusal(
            id: "replace below a singleton with it",
            action: {
                $0.push("list")
                return $0.replaceLast("settings")
            },
            expected: .singletonAlreadyPresent("settings", stack: "tab1")),
        Refusal(
            id: "pop a foreign stack", action: { $0.pop(on: "onboarding") },
            expected: .stackNotOwned(stack: "onboarding", flow: "authorized")),
    ]

    @Test(arguments: pushRefusals)
    func refusedOperationsWriteNothing(_ refusal: Refusal) {
        let harness = authorizedHarness()
        harness.router.push("list")
        harness.router.push("settings")
        let state = harness.state
        let count = harness.events.count
        let result = refusal.action(harness.router)
        #expect(result == .refused(refusal.expected))
        // The replace case pushed "list" first: only that push may have been written.
        if refusal.id.hasPrefix("replace") {
            #expect(harness.events.count == count + 2)
        } else {
            #expect(harness.events.count == count)
            #expect(harness.state == state)
        }
        harness.expectCleanReplay()
    }

    struct PopCase: CustomTestStringConvertible, Sendable {
        var count: Int
        var remaining: [String]
        var testDescription: String { "pop(\(count)) of 3" }
    }

    @Test(arguments: [
        PopCase(count: 0, remaining: ["welcome", "signup", "permissions"]),
        PopCase(count: -2, remaining: ["welcome", "signup", "permissions"]),
        PopCase(count: .min, remaining: ["welcome", "signup", "permissions"]),
        PopCase(count: 1, remaining: ["welcome", "signup"]),
        PopCase(count: 2, remaining: ["welcome"]),
        PopCase(count: 3, remaining: []),
    ])
    func popClampsAndWritesTheRequestedCount(_ popCase: PopCase) {
        let harness = onboardingHarness(["welcome", "signup", "permissions"])
        let (result, events) = harness.expectActionResult { $0.pop(popCase.count) }
        #expect(harness.state.stacks["onboarding"] == popCase.remaining)
        if popCase.count <= 0 {
            #expect(result == .unchanged)
            #expect(events.isEmpty)
        } else {
            #expect(result == .applied)
            #expect(
                events.payloads == [
                    .routePop(stack: "onboarding", from: "permissions", to: popCase.remaining.last, amount: .count(Int64(popCase.count))),
                    screen("onboarding", popCase.remaining.last),
                ])
        }
        harness.expectCleanReplay()
    }

    @Test func popOfAnEmptyStackIsANoOp() {
        let harness = RouterHarness()
        #expect(harness.expectActionResult { $0.pop(3) }.events.isEmpty)
        #expect(harness.router.pop() == .unchanged)
    }

    @Test func popBeyondTheDepthClampsAndIsOneOutOfRangeWarningOffline() throws {
        let harness = onboardingHarness(["welcome", "signup"])
        #expect(harness.router.pop(5) == .applied)
        let last = try #require(harness.events.dropLast().last)
        #expect(last.payload == .routePop(stack: "onboarding", from: "signup", to: nil, amount: .count(5)))
        #expect(harness.state.stacks["onboarding"] == [])
        // The live fold sees exactly what navreplay will see.
        #expect(harness.router.violations.map(\.rule) == [.stackOutOfRange])
        let audit = try #require(
            expectReplay(harness.events, findings: [.stackOutOfRange]) { $0.stacks["onboarding"] = [] })
        let finding = try #require(audit.findings.first)
        #expect(finding.severity == .warning)
        #expect(finding.seq == last.seq)
        #expect(finding.found == .number("5"))
        #expect(audit.finalState == harness.state)
    }

    @Test func popToRootEmptiesTheStack() {
        let harness = onboardingHarness(["welcome", "signup"])
        let events = harness.expectAction { #expect($0.popToRoot() == .applied) }
        #expect(
            events.payloads == [
                .routePop(stack: "onboarding", from: "signup", to: nil, amount: .toRoot), screen("onboarding", nil),
            ])
        let again = harness.expectActionResult { $0.popToRoot() }
        #expect(again.result == .unchanged && again.events.isEmpty)
        harness.expectCleanReplay()
    }

    @Test func popToGoesBackToTheRouteOrDoesNothing() {
        let harness = onboardingHarness(["welcome", "signup", "permissions"])
        #expect(harness.expectActionResult { $0.popTo("profileSetup") }.result == .unchanged)
        #expect(harness.expectActionResult { $0.popTo("permissions") }.result == .unchanged)
        let events = harness.expectAction { #expect($0.popTo("welcome") == .applied) }
        #expect(
            events.payloads == [
                .routePopTo(stack: "onboarding", from: "permissions", to: "welcome"), screen("onboarding", "welcome"),
            ])
        #expect(harness.state.stacks["onboarding"] == ["welcome"])
        #expect(harness.events.count == 2 + 3 * 2 + 2)
        harness.expectCleanReplay()
    }

    @Test func popToFirstOpenedKeepsTheFirstRoute() {
        let harness = onboardingHarness(["welcome", "signup", "permissions"])
        let events = harness.expectAction { #expect($0.popToFirstOpened() == .applied) }
        #expect(
            events.payloads == [
                .routePop(stack: "onboarding", from: "permissions", to: "welcome", amount: .count(2)),
                screen("onboarding", "welcome"),
            ])
        #expect(harness.router.popToFirstOpened() == .unchanged)
        #expect(harness.state.stacks["onboarding"] == ["welcome"])
        harness.expectCleanReplay()
    }

    @Test func replaceLastReplacesTheTopOrPushesOnAnEmptyStack() {
        let harness = RouterHarness()
        var events = harness.expectAction { #expect($0.replaceLast("welcome") == .applied) }
        #expect(
            events.payloads == [
                .routeReplace(stack: "onboarding", from: nil, to: "welcome", params: nil), screen("onboarding", "welcome"),
            ])
        harness.router.push("signup")
        events = harness.expectAction { $0.replaceLast("permissions") }
        #expect(
            events.payloads == [
                .routeReplace(stack: "onboarding", from: "signup", to: "permissions", params: nil),
                screen("onboarding", "permissions"),
            ])
        #expect(harness.router.replaceLast("permissions") == .unchanged)
        #expect(harness.state.stacks["onboarding"] == ["welcome", "permissions"])
        harness.expectCleanReplay()
    }

    @Test func replacingASingletonWithItselfIsAllowed() {
        let harness = authorizedHarness()
        harness.router.push("settings")
        let params = RouteParams([("section", .string("privacy"))])
        let events = harness.expectAction { #expect($0.replaceLast("settings", params: params) == .applied) }
        #expect(
            events.payloads == [
                .routeReplace(stack: "tab1", from: "settings", to: "settings", params: params),
                screen("tab1", "settings", params: params),
            ])
        harness.expectCleanReplay()
    }

    @Test func insertPutsARouteAtAnIndex() {
        let harness = onboardingHarness(["welcome", "permissions"])
        var events = harness.expectAction { #expect($0.insert("signup", at: 1) == .applied) }
        // The top did not change: no screen_view.
        #expect(events.payloads == [.routeInsert(stack: "onboarding", route: "signup", index: 1, params: nil)])
        events = harness.expectAction { $0.insert("profileSetup", at: 3) }
        #expect(
            events.payloads == [
                .routeInsert(stack: "onboarding", route: "profileSetup", index: 3, params: nil),
                screen("onboarding", "profileSetup"),
            ])
        harness.expectAction { $0.insert("welcome", at: 0) }
        #expect(harness.state.stacks["onboarding"] == ["welcome", "welcome", "signup", "permissions", "profileSetup"])
        harness.expectCleanReplay()
    }

    @Test func removeTakesOutEveryOccurrence() {
        let harness = onboardingHarness(["welcome", "signup", "welcome"])
        var events = harness.expectAction { #expect($0.remove("welcome") == .applied) }
        #expect(events.payloads == [.routeRemove(stack: "onboarding", route: "welcome"), screen("onboarding", "signup")])
        #expect(harness.state.stacks["onboarding"] == ["signup"])
        #expect(harness.router.remove("permissions") == .unchanged)
        harness.router.insert("permissions", at: 0)
        events = harness.expectAction { $0.remove("permissions", from: "onboarding") }
        #expect(events.payloads == [.routeRemove(stack: "onboarding", route: "permissions")])
        harness.expectCleanReplay()
    }

    @Test func openOnceTakesBothBranches() {
        let harness = authorizedHarness()
        var events = harness.expectAction { #expect($0.openOnce("settings") == .applied) }
        #expect(events.payloads == [.routePush(stack: "tab1", from: nil, to: "settings", params: nil), screen("tab1", "settings")])
        #expect(harness.router.openOnce("settings") == .unchanged)
        harness.router.push("list")
        harness.router.push("detail")
        events = harness.expectAction { $0.openOnce("settings") }
        #expect(events.payloads == [.routePopTo(stack: "tab1", from: "detail", to: "settings"), screen("tab1", "settings")])
        #expect(harness.state.stacks["tab1"] == ["settings"])
        harness.expectCleanReplay()
    }

    @Test func routeParametersTravelWithTheirRoute() {
        let harness = authorizedHarness()
        let first = RouteParams([("id", .number("42")), ("pinned", .bool(true))])
        let second = RouteParams([("id", .number("43"))])
        var events = harness.expectAction { $0.push("detail", params: first) }
        #expect(
            events.payloads == [
                .routePush(stack: "tab1", from: nil, to: "detail", params: first), screen("tab1", "detail", params: first),
            ])
        // Same route, new parameters: the screen changed.
        events = harness.expectAction { $0.replaceLast("detail", params: second) }
        #expect(
            events.payloads == [
                .routeReplace(stack: "tab1", from: "detail", to: "detail", params: second),
                screen("tab1", "detail", params: second),
            ])
        harness.router.push("settings")
        events = harness.expectAction { $0.pop() }
        #expect(events.last?.payload == screen("tab1", "detail", params: second))
        #expect(harness.router.routeParams(on: "tab1") == [second])
        harness.expectCleanReplay()
    }

    @Test func pushOnAnOwnedStackThatIsNotVisibleWritesNoScreenView() {
        let harness = authorizedHarness()
        let events = harness.expectAction { $0.push("feed", on: "tab2") }
        #expect(events.payloads == [.routePush(stack: "tab2", from: nil, to: "feed", params: nil)])
        harness.expectCleanReplay()
    }

    @Test func positionalRequirementsHoldAfterEveryShift() throws {
        // In the space hub, the screen just above the hub is the widgets or the chat.
        let model = try NavigationModel.load(
            json: """
                {"model_version": 1, "name": "hub", "initial": {"flow": "hub"},
                 "flows": {"hub": {"stack": "space"}},
                 "stacks": {"space": {"routes": ["widgets", "chat", "editor"], "singletons": ["widgets", "chat"],
                                      "positions": [{"index": 0, "one_of": ["widgets", "chat"]}]}}}
                """)
        let harness = RouterHarness(model: model)
        let required = ["widgets", "chat"]
        #expect(harness.router.push("editor") == .refused(.positionRequired(route: "editor", stack: "space", index: 0, oneOf: required)))
        harness.router.push("widgets")
        harness.router.push("editor")
        #expect(harness.router.remove("widgets") == .refused(.positionRequired(route: "editor", stack: "space", index: 0, oneOf: required)))
        #expect(
            harness.router.insert("editor", at: 0)
                == .refused(.positionRequired(route: "editor", stack: "space", index: 0, oneOf: required)))
        #expect(harness.router.insert("chat", at: 0) == .applied)
        #expect(harness.router.replaceLast("chat") == .refused(.singletonAlreadyPresent("chat", stack: "space")))
        #expect(harness.router.openOnce("widgets") == .applied)
        #expect(harness.state.stacks["space"] == ["chat", "widgets"])
        #expect(harness.router.remove("chat") == .applied)
        #expect(harness.state.stacks["space"] == ["widgets"])
        harness.expectCleanReplay()
    }
}
