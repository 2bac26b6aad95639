import NavEvents
import NavJSON
import NavModel
import NavReplay
import Testing

/// Stack operations (docs/events-and-rules.md, "Stack operations" and "Order of checks in one stack
/// event"): `state.mismatch` and resync, `stack.unknown`, `stack.not_owned`, `route.unknown`,
/// `route.singleton`, `route.position`, `stack.out_of_range`.
@Suite("Stack rules")
struct StackRuleTests {
    // MARK: state.mismatch on from_route, and resync

    @Test func aWrongFromRouteIsAStateMismatchWithExpectedAndFound() throws {
        var log = SessionLog.authorized(routes: ["list"])
        log.add(.push("tab1", from: "detail", to: "settings"))

        let result = try audit(log)

        #expect(summary(result) == ["state.mismatch@1"])
        let mismatch = try onlyFinding(.stateMismatch, in: result)
        #expect(mismatch.severity == .error)
        #expect(mismatch.expected == .string("list"))
        #expect(mismatch.found == .string("detail"))
        #expect(mismatch.eventName == .routePush)
        #expect(mismatch.afterGap == false)
    }

    @Test func aFromRouteThatMatchesTheTopIsClean() throws {
        var log = SessionLog.authorized(routes: ["list"])
        log.add(.push("tab1", from: "list", to: "detail"))
        log.add(.pop("tab1", from: "detail", to: "list"))
        log.add(.replace("tab1", from: "list", to: "detail"))
        log.add(.popTo("tab1", from: "detail", to: nil))
        log.add(.push("tab1", from: nil, to: "list"))

        let result = try audit(log)

        #expect(summary(result) == [])
        #expect(result.finalState.stacks["tab1"] == ["list"])
    }

    @Test func aRootClaimIsNullAndMatchesAnEmptyStack() throws {
        var log = SessionLog.authorized()
        log.add(.push("tab1", from: nil, to: "list"))
        log.add(.push("tab1", from: nil, to: "detail"))

        let result = try audit(log)

        let mismatch = try onlyFinding(.stateMismatch, in: result)
        #expect(mismatch.seq == 2)
        #expect(mismatch.expected == .string("list"))
        #expect(mismatch.found == .null)
    }

    @Test func oneLostPushYieldsOneMismatchNotACascade() throws {
        var log = SessionLog.authorized()
        log.add(.push("tab1", from: nil, to: "detail"))
        // The push of settings was never logged.
        log.add(.pop("tab1", from: "settings", to: "detail"))
        log.add(.view("tab1", "detail"))
        log.add(.push("tab1", from: "detail", to: "settings"))
        log.add(.view("tab1", "settings"))
        log.add(.pop("tab1", from: "settings", to: "detail"))
        log.add(.pop("tab1", from: "detail", to: nil))

        let result = try audit(log)

        #expect(summary(result) == ["state.mismatch@2"])
        let mismatch = try onlyFinding(.stateMismatch, in: result)
        #expect(mismatch.expected == .string("detail"))
        #expect(mismatch.found == .string("settings"))
        #expect(mismatch.stateAfter?.stacks["tab1"] == ["detail"])
        #expect(result.finalState.stacks["tab1"] == [])
    }

    @Test func oneLostPushInTransitIsOneGapAndOneMismatch() throws {
        var log = SessionLog.authorized()
        log.add(.push("tab1", from: nil, to: "detail"))
        log.lose()
        log.add(.pop("tab1", from: "settings", to: "detail"))
        log.add(.push("tab1", from: "detail", to: "settings"))
        log.add(.view("tab1", "settings"))

        let result = try audit(log)

        #expect(summary(result) == ["seq.gap@3", "state.mismatch@3"])
        #expect(result.findings.map(\.afterGap) == [true, true])
    }

    struct Adoption: CustomTestStringConvertible, Sendable {
        var id: String
        var routes: [String]
        var claimedFrom: String?
        var adopted: [String]
        var testDescription: String { id }
    }

    static let adoptions: [Adoption] = [
        Adoption(id: "null empties the stack", routes: ["list", "detail"], claimedFrom: nil, adopted: []),
        Adoption(
            id: "a route in the stack cuts after its last occurrence", routes: ["list", "detail", "list", "settings"],
            claimedFrom: "list", adopted: ["list", "detail", "list"]),
        Adoption(id: "a route not in the stack is pushed", routes: ["list"], claimedFrom: "detail", adopted: ["list", "detail"]),
    ]

    @Test("adopting a claimed top route", arguments: adoptions)
    func adoptingAClaimedTop(_ adoption: Adoption) throws {
        var log = SessionLog.authorized(routes: adoption.routes)
        log.add(.push("tab1", from: adoption.claimedFrom, to: "detail"))
        log.add(.pop("tab1", from: "detail", to: adoption.adopted.last))

        let result = try audit(log)

        #expect(summary(result) == ["state.mismatch@1"])
        #expect(result.findings.first?.stateAfter?.stacks["tab1"] == adoption.adopted + ["detail"])
        #expect(result.finalState.stacks["tab1"] == adoption.adopted)
    }

    @Test func aPopsToRouteIsCheckedAfterApplyingAndAdopted() throws {
        var log = SessionLog.authorized(routes: ["list", "detail", "settings"])
        log.add(.pop("tab1", from: "settings", to: "list"))
        log.add(.push("tab1", from: "list", to: "detail"))

        let result = try audit(log)

        #expect(summary(result) == ["state.mismatch@1"])
        let mismatch = try onlyFinding(.stateMismatch, in: result)
        #expect(mismatch.expected == .string("detail"))
        #expect(mismatch.found == .string("list"))
        #expect(mismatch.stateAfter?.stacks["tab1"] == ["list"])
        #expect(result.finalState.stacks["tab1"] == ["list", "detail"])
    }

    @Test func aPopsToRouteThatMatchesTheNewTopIsClean() throws {
        var log = SessionLog.authorized(routes: ["list", "detail", "settings"])
        log.add(.pop("tab1", from: "settings", to: "list", count: 2))
        log.add(.popToRoot("tab1", from: "list"))

        let result = try audit(log)

        #expect(summary(result) == [])
        #expect(result.finalState.stacks["tab1"] == [])
    }

    @Test func aPopsWrongToRouteIsWitnessedByTheEventBeforeThePop() throws {
        // The pop itself changed the top; the witness is what left the stack as it found it.
        var log = SessionLog.authorized()
        log.add(.push("tab1", from: nil, to: "list"))
        log.add(.push("tab1", from: "list", to: "detail"))
        log.add(.pop("tab1", from: "detail", to: "settings"))

        let result = try audit(log)

        let mismatch = try onlyFinding(.stateMismatch, in: result)
        #expect(mismatch.seq == 3)
        #expect(mismatch.expected == .string("list"))
        #expect(mismatch.found == .string("settings"))
        #expect(mismatch.witness == EventReference(seq: 2, eventID: "e2", name: .routePush, location: LineLocation(file: 0, line: 3)))
        #expect(mismatch.message.contains("route_push at seq 2"), "\(mismatch.message)")
    }

    @Test func aMismatchCarriesTheStatesAndTheWitnessThatLastSetTheTop() throws {
        var log = SessionLog.authorized()
        log.add(.push("tab1", from: nil, to: "list"))
        log.add(.push("tab1", from: "list", to: "detail"))
        log.add(.tab(from: "tab1", to: "tab2"))
        log.add(.tab(from: "tab2", to: "tab1"))
        log.add(.push("tab1", from: "settings", to: "list"))

        let result = try audit(log)

        let mismatch = try onlyFinding(.stateMismatch, in: result)
        #expect(mismatch.seq == 5)
        #expect(mismatch.eventID == "e5")
        #expect(mismatch.location == LineLocation(file: 0, line: 6))
        #expect(mismatch.witness == EventReference(seq: 2, eventID: "e2", name: .routePush, location: LineLocation(file: 0, line: 3)))
        let before = NavigationState(
            flow: "authorized", tab: "tab1", stacks: ["onboarding": [], "tab1": ["list", "detail"], "tab2": []])
        #expect(mismatch.stateBefore == before)
        #expect(mismatch.stateAfter == before.with(stack: "tab1", ["list", "detail", "settings", "list"]))
    }

    // MARK: Order of checks

    @Test func anUnknownStackStopsEveryOtherCheckAndIsNotApplied() throws {
        var log = SessionLog.authorized(routes: ["list"])
        log.add(.push("tab9", from: "wrong", to: "nowhere"))
        log.add(.pop("tab9", from: "x", to: "y", count: 7))
        log.add(.view("tab1", "list"))

        let result = try audit(log)

        #expect(summary(result) == ["stack.unknown@1", "stack.unknown@2"])
        let unknown = try #require(result.findings.first)
        #expect(unknown.severity == .error)
        #expect(unknown.found == .string("tab9"))
        #expect(unknown.stateAfter == unknown.stateBefore)
        #expect(result.finalState.stacks["tab9"] == nil)
        #expect(result.finalState.stacks["tab1"] == ["list"])
    }

    @Test func aStackOfAnotherFlowIsNotOwnedButStillApplied() throws {
        var log = SessionLog.started()
        log.add(.push("tab1", from: nil, to: "detail"))

        let result = try audit(log)

        #expect(summary(result) == ["stack.not_owned@1"])
        let notOwned = try onlyFinding(.stackNotOwned, in: result)
        #expect(notOwned.severity == .error)
        #expect(notOwned.expected == .string("authorized"))
        #expect(notOwned.found == .string("onboarding"))
        #expect(result.finalState.stacks["tab1"] == ["detail"])
    }

    @Test func notOwnedIsFollowedByTheFromRouteCheckAndTheOperationsOwnChecks() throws {
        var log = SessionLog.started()
        log.add(.push("tab1", from: "list", to: "feed"))

        let result = try audit(log)

        #expect(summary(result) == ["route.unknown@1", "stack.not_owned@1", "state.mismatch@1"])
        #expect(result.finalState.stacks["tab1"] == ["list", "feed"])
    }

    @Test func anInactiveTabsStackInTheSameFlowIsOwned() throws {
        var log = SessionLog.authorized(tab: "tab1")
        log.add(.push("tab2", from: nil, to: "feed"))

        let result = try audit(log)

        #expect(summary(result) == [])
        #expect(result.finalState.stacks["tab2"] == ["feed"])
    }

    @Test func aToRootPopOfAStackResetByAnEarlierCommandOfTheGroupIsExempt() throws {
        var log = SessionLog.authorized(routes: ["list", "detail"])
        log.group(
            "logout", .command("logoutToOnboarding", from: "authorized", to: "onboarding"),
            .flow(from: "authorized", to: "onboarding"), .popToRoot("tab1", from: "detail"))

        let result = try audit(log)

        #expect(summary(result) == [])
        #expect(result.finalState.stacks["tab1"] == [])
        #expect(result.finalState.flow == "onboarding")
    }

    struct NotExempt: CustomTestStringConvertible, Sendable {
        var id: String
        var build: @Sendable (inout SessionLog) -> Void
        var expected: [String]
        var testDescription: String { id }
    }

    static let notExempt: [NotExempt] = [
        NotExempt(
            id: "a count pop of the reset stack",
            build: { log in
                log.group(
                    "g", .command("logoutToOnboarding", from: "authorized", to: "onboarding"),
                    .flow(from: "authorized", to: "onboarding"), .pop("tab1", from: "detail", to: "list"))
            }, expected: ["command.postcondition@1", "stack.not_owned@3"]),
        NotExempt(
            id: "a to_root pop in a group authorised by a deep link only",
            build: { log in
                log.group(
                    "g", .deepLink("app://logout"), .flow(from: "authorized", to: "onboarding"),
                    .popToRoot("tab1", from: "detail"))
            }, expected: ["stack.not_owned@3"]),
        NotExempt(
            id: "a to_root pop after the command's group ended",
            build: { log in
                log.group(
                    "g", .command("logoutToOnboarding", from: "authorized", to: "onboarding"),
                    .flow(from: "authorized", to: "onboarding"))
                log.add(.popToRoot("tab1", from: "detail"))
            }, expected: ["command.postcondition@1", "stack.not_owned@3"]),
        NotExempt(
            id: "a to_root pop of a stack the command does not reset",
            build: { log in
                log.group(
                    "g", .command("goAuthorizedTab2Root", from: "authorized", to: "authorized"),
                    .tab(from: "tab1", to: "tab2"), .popToRoot("onboarding", from: nil))
            }, expected: ["stack.not_owned@3"]),
    ]

    @Test("pops that are not exempt from stack.not_owned", arguments: notExempt)
    func popsThatAreNotExempt(_ test: NotExempt) throws {
        var log = SessionLog.authorized(routes: ["list", "detail"])
        test.build(&log)

        let result = try audit(log)

        #expect(summary(result) == test.expected)
    }

    // MARK: route.unknown, route.singleton, route.position

    struct Entering: CustomTestStringConvertible, Sendable {
        var id: String
        var routes: [String]
        var event: EventSpec
        var expected: [String]
        var finalStack: [String]
        var testDescription: String { id }
    }

    static let entering: [Entering] = [
        Entering(
            id: "push an undeclared route", routes: [], event: .push("tab1", from: nil, to: "feed"),
            expected: ["route.unknown@1"], finalStack: ["feed"]),
        Entering(
            id: "replace with an undeclared route", routes: ["list"], event: .replace("tab1", from: "list", to: "post"),
            expected: ["route.unknown@1"], finalStack: ["post"]),
        Entering(
            id: "insert an undeclared route", routes: ["list"], event: .insert("tab1", "profile", at: 0),
            expected: ["route.unknown@1"], finalStack: ["profile", "list"]),
        Entering(
            id: "push a declared route", routes: [], event: .push("tab1", from: nil, to: "list"),
            expected: [], finalStack: ["list"]),
        Entering(
            id: "push a singleton a second time", routes: ["settings", "detail"],
            event: .push("tab1", from: "detail", to: "settings"), expected: ["route.singleton@1"],
            finalStack: ["settings", "detail", "settings"]),
        Entering(
            id: "replace that makes a second singleton copy", routes: ["settings", "detail"],
            event: .replace("tab1", from: "detail", to: "settings"), expected: ["route.singleton@1"],
            finalStack: ["settings", "settings"]),
        Entering(
            id: "insert a second singleton copy", routes: ["settings"], event: .insert("tab1", "settings", at: 0),
            expected: ["route.singleton@1"], finalStack: ["settings", "settings"]),
        Entering(
            id: "replace a singleton with itself", routes: ["list", "settings"],
            event: .replace("tab1", from: "settings", to: "settings"), expected: [], finalStack: ["list", "settings"]),
        Entering(
            id: "push a singleton once", routes: ["list", "detail"], event: .push("tab1", from: "detail", to: "settings"),
            expected: [], finalStack: ["list", "detail", "settings"]),
        Entering(
            id: "push a non-singleton twice", routes: ["detail"], event: .push("tab1", from: "detail", to: "detail"),
            expected: [], finalStack: ["detail", "detail"]),
    ]

    @Test("routes entering a stack", arguments: entering)
    func routesEnteringAStack(_ test: Entering) throws {
        var log = SessionLog.authorized(routes: test.routes)
        log.add(test.event)

        let result = try audit(log)

        #expect(summary(result) == test.expected)
        #expect(result.finalState.stacks["tab1"] == test.finalStack)
        for finding in result.findings {
            #expect(finding.severity == .error)
            #expect(finding.found != nil)
        }
    }

    @Test func routeUnknownNamesTheDeclaredRoutes() throws {
        var log = SessionLog.authorized()
        log.add(.push("tab1", from: nil, to: "feed"))

        let finding = try onlyFinding(.routeUnknown, in: try audit(log))

        #expect(finding.expected == jsonStrings("list", "detail", "settings"))
        #expect(finding.found == .string("feed"))
    }

    @Test func aStackWithoutRoutesAcceptsAnyRoute() throws {
        let model = try makeModel(Self.hubModel)
        var log = SessionLog()
        log.add(.start(snapshot: #"{"flow":"other","tab":null,"stacks":{"free":["x"]},"modals":[]}"#))
        log.add(.push("free", from: "x", to: "anything-at-all"))

        let result = try audit(log, model: model)
        #expect(summary(result) == [])
    }

    /// A model with a positional requirement (the space hub: the screen above the hub depends on
    /// the kind).
    static let hubModel = """
        {"model_version": 1, "name": "hub", "initial": {"flow": "main"},
         "flows": {"main": {"stack": "hub"}, "other": {"stack": "free"}},
         "stacks": {
           "hub": {"routes": ["space", "widgets", "chat", "docs"], "singletons": ["space"],
                   "positions": [{"index": 1, "one_of": ["widgets", "chat"]}]},
           "free": {}
         }}
        """

    struct Position: CustomTestStringConvertible, Sendable {
        var id: String
        var start: [String]
        var event: EventSpec
        var expected: [String]
        var testDescription: String { id }
    }

    static let positions: [Position] = [
        Position(
            id: "push docs at index 1", start: ["space"], event: .push("hub", from: "space", to: "docs"),
            expected: ["route.position@1"]),
        Position(
            id: "push widgets at index 1", start: ["space"], event: .push("hub", from: "space", to: "widgets"),
            expected: []),
        Position(
            id: "push chat at index 1", start: ["space"], event: .push("hub", from: "space", to: "chat"),
            expected: []),
        Position(id: "push docs at index 0", start: [], event: .push("hub", from: nil, to: "docs"), expected: []),
        Position(
            id: "push docs at index 2", start: ["space", "chat"], event: .push("hub", from: "chat", to: "docs"),
            expected: []),
        Position(
            id: "insert docs at index 1", start: ["space", "chat"], event: .insert("hub", "docs", at: 1),
            expected: ["route.position@1"]),
        Position(
            id: "replace the route at index 1 with docs", start: ["space", "chat"],
            event: .replace("hub", from: "chat", to: "docs"), expected: ["route.position@1"]),
        Position(
            id: "replace the route at index 1 with widgets", start: ["space", "chat"],
            event: .replace("hub", from: "chat", to: "widgets"), expected: []),
    ]

    @Test("route.position", arguments: positions)
    func routePosition(_ test: Position) throws {
        let model = try makeModel(Self.hubModel)
        var log = SessionLog()
        let stack = "[" + test.start.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        log.add(.start(snapshot: #"{"flow":"main","tab":null,"stacks":{"hub":\#(stack)},"modals":[]}"#))
        log.add(test.event)

        let result = try audit(log, model: model)

        #expect(summary(result) == test.expected)
        if !test.expected.isEmpty {
            let finding = try onlyFinding(.routePosition, in: result)
            #expect(finding.severity == .error)
            #expect(finding.expected == jsonStrings("widgets", "chat"))
            #expect(finding.found == .string("docs"))
        }
    }

    @Test func aSnapshotIsCheckedAgainstPositions() throws {
        let model = try makeModel(Self.hubModel)
        var log = SessionLog()
        log.add(.start(snapshot: #"{"flow":"main","tab":null,"stacks":{"hub":["space","docs"]},"modals":[]}"#))

        let result = try audit(log, model: model)
        #expect(summary(result) == ["route.position@0"])
    }

    // MARK: stack.out_of_range and the stack operations

    struct Operation: CustomTestStringConvertible, Sendable {
        var id: String
        var routes: [String]
        var event: EventSpec
        var expected: [String]
        var finalStack: [String]
        var testDescription: String { id }
    }

    static let operations: [Operation] = [
        Operation(
            id: "pop count 0", routes: ["list", "detail"], event: .pop("tab1", from: "detail", to: "detail", count: 0),
            expected: ["stack.out_of_range@1"], finalStack: ["list", "detail"]),
        Operation(
            id: "pop count -2", routes: ["list", "detail"], event: .pop("tab1", from: "detail", to: "detail", count: -2),
            expected: ["stack.out_of_range@1"], finalStack: ["list", "detail"]),
        Operation(
            id: "pop count above the depth", routes: ["list", "detail"], event: .pop("tab1", from: "detail", to: nil, count: 5),
            expected: ["stack.out_of_range@1"], finalStack: []),
        Operation(
            id: "pop count equal to the depth", routes: ["list", "detail"], event: .pop("tab1", from: "detail", to: nil, count: 2),
            expected: [], finalStack: []),
        Operation(
            id: "pop count 1", routes: ["list", "detail"], event: .pop("tab1", from: "detail", to: "list", count: 1),
            expected: [], finalStack: ["list"]),
        Operation(
            id: "pop on an empty stack", routes: [], event: .pop("tab1", from: nil, to: nil, count: 1),
            expected: ["stack.out_of_range@1"], finalStack: []),
        Operation(
            id: "pop to_root on an empty stack", routes: [], event: .popToRoot("tab1", from: nil),
            expected: [], finalStack: []),
        Operation(
            id: "pop_to a route below the top", routes: ["list", "detail", "settings"],
            event: .popTo("tab1", from: "settings", to: "list"), expected: [], finalStack: ["list"]),
        Operation(
            id: "pop_to the last occurrence", routes: ["detail", "list", "detail", "settings"],
            event: .popTo("tab1", from: "settings", to: "detail"), expected: [], finalStack: ["detail", "list", "detail"]),
        Operation(
            id: "pop_to null empties the stack", routes: ["list", "detail"], event: .popTo("tab1", from: "detail", to: nil),
            expected: [], finalStack: []),
        Operation(
            id: "pop_to the current top is a no-op", routes: ["list", "detail"],
            event: .popTo("tab1", from: "detail", to: "detail"), expected: [], finalStack: ["list", "detail"]),
        Operation(
            id: "pop_to a missing target is a no-op", routes: ["list", "detail"],
            event: .popTo("tab1", from: "detail", to: "settings"), expected: ["stack.out_of_range@1"],
            finalStack: ["list", "detail"]),
        Operation(
            id: "insert at 0", routes: ["detail"], event: .insert("tab1", "list", at: 0), expected: [],
            finalStack: ["list", "detail"]),
        Operation(
            id: "insert at the depth", routes: ["list"], event: .insert("tab1", "detail", at: 1), expected: [],
            finalStack: ["list", "detail"]),
        Operation(
            id: "insert above the depth is clamped", routes: ["list"], event: .insert("tab1", "detail", at: 4),
            expected: ["stack.out_of_range@1"], finalStack: ["list", "detail"]),
        Operation(
            id: "insert below 0 is clamped", routes: ["detail"], event: .insert("tab1", "list", at: -1),
            expected: ["stack.out_of_range@1"], finalStack: ["list", "detail"]),
        Operation(
            id: "insert at Int64.max is clamped", routes: ["list"], event: .insert("tab1", "detail", at: .max),
            expected: ["stack.out_of_range@1"], finalStack: ["list", "detail"]),
        Operation(
            id: "pop count Int64.min is clamped to 0", routes: ["list"], event: .pop("tab1", from: "list", to: "list", count: .min),
            expected: ["stack.out_of_range@1"], finalStack: ["list"]),
        Operation(
            id: "pop count Int64.max is clamped to the depth", routes: ["list"], event: .pop("tab1", from: "list", to: nil, count: .max),
            expected: ["stack.out_of_range@1"], finalStack: []),
        Operation(
            id: "replace on an empty stack pushes", routes: [], event: .replace("tab1", from: nil, to: "list"),
            expected: [], finalStack: ["list"]),
        Operation(
            id: "replace the top", routes: ["list", "detail"], event: .replace("tab1", from: "detail", to: "settings"),
            expected: [], finalStack: ["list", "settings"]),
        Operation(
            id: "remove every occurrence", routes: ["detail", "list", "detail"], event: .remove("tab1", "detail"),
            expected: [], finalStack: ["list"]),
        Operation(
            id: "remove an absent route", routes: ["list"], event: .remove("tab1", "detail"),
            expected: [], finalStack: ["list"]),
    ]

    @Test("stack operations and stack.out_of_range", arguments: operations)
    func stackOperations(_ test: Operation) throws {
        var log = SessionLog.authorized(routes: test.routes)
        log.add(test.event)

        let result = try audit(log)

        #expect(summary(result) == test.expected)
        #expect(result.finalState.stacks["tab1"] == test.finalStack)
        for finding in result.findings {
            #expect(finding.severity == .warning)
        }
    }

    @Test func theOperationsOwnChecksRunAgainstTheAdoptedStack() throws {
        var log = SessionLog.authorized(routes: ["list"])
        // The push of detail was lost: after adopting it the depth is 2, so count 2 is in range.
        log.add(.pop("tab1", from: "detail", to: nil, count: 2))
        log.add(.push("tab1", from: nil, to: "settings"))
        // The target of a pop_to is looked up in the adopted stack.
        log.add(.popTo("tab1", from: "detail", to: "settings"))

        let result = try audit(log)

        #expect(summary(result) == ["state.mismatch@1", "state.mismatch@3"])
        #expect(result.finalState.stacks["tab1"] == ["settings"])
    }

    @Test func aSingletonIsCheckedAgainstTheAdoptedStack() throws {
        var log = SessionLog.authorized(routes: ["settings", "detail"])
        // Claims the root: the adopted stack is empty, so settings enters only once.
        log.add(.push("tab1", from: nil, to: "settings"))

        let result = try audit(log)

        #expect(summary(result) == ["state.mismatch@1"])
        #expect(result.finalState.stacks["tab1"] == ["settings"])
    }

    @Test func outOfRangeGivesTheRangeAndTheValue() throws {
        var log = SessionLog.authorized(routes: ["list", "detail"])
        log.add(.pop("tab1", from: "detail", to: nil, count: 3))
        log.add(.insert("tab1", "list", at: 2))
        log.add(.popTo("tab1", from: "list", to: "settings"))

        let result = try audit(log)

        #expect(summary(result) == ["stack.out_of_range@1", "stack.out_of_range@2", "stack.out_of_range@3"])
        #expect(result.findings.map(\.found) == [.number("3"), .number("2"), .string("settings")])
        #expect(result.findings.map(\.expected) == [.string("1...2"), .string("0...0"), jsonStrings("list")])
    }

    // MARK: Lists in findings stay short

    /// A log can build a stack of any depth: a finding lists its first 4 and last 12 routes and
    /// says how many it leaves out (a finding per event that listed them all grew the output
    /// with depth x events: 720 MB from a 4.7 MB log).
    @Test func aDeepStackIsListedByItsEndsAndTheCountLeftOut() throws {
        let routes = (0..<40).map { $0.isMultiple(of: 2) ? "list" : "detail" }
        var log = SessionLog.authorized(routes: routes)
        log.add(.popTo("tab1", from: "detail", to: "settings"))

        let result = try audit(log)

        let finding = try onlyFinding(.stackOutOfRange, in: result)
        let shown = Array(routes.prefix(4)) + ["… 24 more …"] + Array(routes.suffix(12))
        #expect(finding.expected == .array(shown.map(JSONValue.string)))
        #expect(finding.message.contains(shown.joined(separator: " › ")))
        #expect(finding.message.utf8.count < 300)
        #expect(result.finalState.stacks["tab1"] == routes)
    }

    @Test func aStackOfSixteenRoutesIsListedWhole() throws {
        let routes = (0..<16).map { $0.isMultiple(of: 2) ? "list" : "detail" }
        var log = SessionLog.authorized(routes: routes)
        log.add(.popTo("tab1", from: "detail", to: "settings"))

        let finding = try onlyFinding(.stackOutOfRange, in: try audit(log))

        #expect(finding.expected == .array(routes.map(JSONValue.string)))
    }

    @Test func findingsCarryStatesOnlyWhenAsked() throws {
        var log = SessionLog.authorized(routes: ["list"])
        log.add(.popTo("tab1", from: "list", to: "settings"))
        log.add(.push("tab1", from: "detail", to: "settings"))

        let kept = try audit(log)
        let dropped = try audit(log, options: SessionAuditOptions(keepStates: false))

        #expect(summary(kept) == ["stack.out_of_range@1", "state.mismatch@2"])
        #expect(summary(dropped) == summary(kept))
        #expect(kept.findings.allSatisfy { $0.stateBefore != nil && $0.stateAfter != nil })
        #expect(dropped.findings.allSatisfy { $0.stateBefore == nil && $0.stateAfter == nil })
        #expect(dropped.findings.map(\.message) == kept.findings.map(\.message))
    }
}
