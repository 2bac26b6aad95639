import NavEvents
import NavModel
import NavReplay
import NavRouter
import NavSamples
import NavTestSupport
import Testing

/// anyproto/anytype-swift's `AnyTypeTests/Home/HomePathTests.swift`, on the router: the same
/// operations end in the same path, the log audits clean under the model, and what `HomePath`
/// cannot do is flagged. The tests' items are strings pushed on an empty `HomePath`, the first
/// of which the app's path always holds as its root (the hub): here it is the root, and the
/// stack holds the items above it (`["1", "2", "3"]` is the stack `["2", "3"]`). Tests of
/// `openOnce`, `popTo`, `contains` and `remove`, which `HomePathTests` does not have, follow
/// `HomePath.swift`: whole values, the first match.
///
/// Not stated: `currentHome` and `replaceHome` (the slot just above the hub replaced under the
/// routes above it): no v1 event replaces a route below the top.
@Suite("anytype HomePathTests")
struct HomePathTests {
    /// `HomePath` alone: any item, compared whole, `popTo` to the first match.
    static let model = try! NavigationModel.load(
        json: """
            {"model_version": 1, "name": "home-path", "initial": {"flow": "space"},
             "flows": {"space": {"stack": "path"}},
             "stacks": {"path": {"singletons": ["chat"], "identity": "value", "pop_to": "first"}}}
            """)

    /// `setUpWithError`: `HomePath()`, then `push("1")`, `push("2")`, `push("3")`.
    static func setUp() -> RouterHarness {
        let harness = RouterHarness(model: model)
        harness.router.push("2")
        harness.router.push("3")
        return harness
    }

    /// The app's path: the root, then the stack.
    static func path(_ harness: RouterHarness) -> [String] {
        ["1"] + (harness.state.stacks["path"] ?? [])
    }

    static func chat(_ id: String) -> RouteParams { RouteParams([("chat_id", .string(id))]) }

    @Test func testPushOne() {
        let harness = Self.setUp()
        harness.expectAction { $0.push("4") }
        #expect(Self.path(harness) == ["1", "2", "3", "4"])
        harness.expectCleanReplay()
    }

    @Test func testPushMany() {
        let harness = Self.setUp()
        for item in ["4", "5", "6"] { harness.expectAction { $0.push(item) } }
        #expect(Self.path(harness) == ["1", "2", "3", "4", "5", "6"])
        harness.expectCleanReplay()
    }

    @Test func testPushSameOne() {
        let harness = Self.setUp()
        harness.expectAction { $0.push("4") }
        harness.expectAction { $0.pop() }
        harness.expectAction { $0.push("4") }
        #expect(Self.path(harness) == ["1", "2", "3", "4"])
        harness.expectCleanReplay()
    }

    @Test func testPushSameMuptiple() {
        let harness = Self.setUp()
        for item in ["4", "5", "6"] { harness.expectAction { $0.push(item) } }
        for _ in 0..<3 { harness.expectAction { $0.pop() } }
        for item in ["4", "5"] { harness.expectAction { $0.push(item) } }
        #expect(Self.path(harness) == ["1", "2", "3", "4", "5"])
        harness.expectCleanReplay()
    }

    @Test func testPopOne() {
        let harness = Self.setUp()
        for item in ["4", "5", "6"] { harness.expectAction { $0.push(item) } }
        harness.expectAction { $0.pop() }
        #expect(Self.path(harness) == ["1", "2", "3", "4", "5"])
        harness.expectCleanReplay()
    }

    @Test func testPopMany() {
        let harness = Self.setUp()
        for item in ["4", "5", "6"] { harness.expectAction { $0.push(item) } }
        for _ in 0..<4 { harness.expectAction { $0.pop() } }
        #expect(Self.path(harness) == ["1", "2"])
        // `pop()` keeps the root: at it, nothing happens and nothing is written.
        harness.expectAction { $0.pop() }
        #expect(harness.router.pop() == .unchanged)
        #expect(Self.path(harness) == ["1"])
        harness.expectCleanReplay()
    }

    @Test func testPopToRootOne() {
        let harness = Self.setUp()
        harness.expectAction { $0.push("4") }
        harness.expectAction { $0.popToRoot() }
        #expect(Self.path(harness) == ["1"])
        harness.expectCleanReplay()
    }

    @Test func testPopToRootMany() {
        let harness = Self.setUp()
        harness.expectAction { $0.push("4") }
        harness.expectAction { $0.popToRoot() }
        #expect(harness.router.popToRoot() == .unchanged)
        #expect(harness.router.popToRoot() == .unchanged)
        #expect(Self.path(harness) == ["1"])
        harness.expectCleanReplay()
    }

    @Test func testReplaceLastOne() {
        let harness = Self.setUp()
        harness.expectAction { $0.replaceLast("4") }
        #expect(Self.path(harness) == ["1", "2", "4"])
        harness.expectCleanReplay()
    }

    @Test func testReplaceLastMany() {
        let harness = Self.setUp()
        for item in ["4", "5", "6"] { harness.expectAction { $0.replaceLast(item) } }
        #expect(Self.path(harness) == ["1", "2", "6"])
        harness.expectCleanReplay()
    }

    @Test func testCurrentHomeReturnsIndexOne() {
        // `currentHome` is `path[1]`: the stack's index 0.
        let harness = RouterHarness(model: Self.model)
        harness.router.push("home")
        #expect(harness.state.stacks["path"]?.first == "home")
        let rootOnly = RouterHarness(model: Self.model)
        #expect(rootOnly.state.stacks["path"]?.first == nil)
    }

    // MARK: From HomePath.swift: whole values, the first match

    @Test func openOnceComparesWholeValuesAndPopsToTheFirstMatch() {
        let harness = Self.setUp()
        harness.expectAction { $0.openOnce("chat", params: Self.chat("a")) }
        harness.expectAction { $0.push("4") }
        harness.expectAction { $0.openOnce("chat", params: Self.chat("b")) }  // not contained: pushed
        harness.expectAction { $0.push("5") }
        harness.expectAction { $0.openOnce("chat", params: Self.chat("b")) }  // contained: popTo, index 4
        #expect(Self.path(harness) == ["1", "2", "3", "chat", "4", "chat"])
        #expect(harness.router.routeParams(on: "path").last == Self.chat("b"))
        harness.expectAction { $0.openOnce("chat", params: Self.chat("a")) }  // the first chat
        #expect(Self.path(harness) == ["1", "2", "3", "chat"])
        harness.expectCleanReplay()
    }

    @Test func popToAnItemNotOnThePathDoesNothing() {
        let harness = Self.setUp()
        #expect(harness.router.popTo("9") == .unchanged)
        #expect(harness.router.popTo("chat", params: Self.chat("a")) == .unchanged)
        harness.expectAction { $0.push("2") }
        harness.expectAction { $0.popTo("2") }  // `firstIndex`: back to the first "2"
        #expect(Self.path(harness) == ["1", "2"])
        harness.expectCleanReplay()
    }

    @Test func removeTakesEveryEqualValueAndKeepsTheOthers() {
        let harness = Self.setUp()
        harness.expectAction { $0.push("chat", params: Self.chat("a")) }
        harness.expectAction { $0.push("4") }
        harness.expectAction { $0.push("chat", params: Self.chat("b")) }
        harness.expectAction { $0.remove("chat", params: Self.chat("a")) }
        #expect(Self.path(harness) == ["1", "2", "3", "4", "chat"])
        #expect(harness.router.routeParams(on: "path").last == Self.chat("b"))
        harness.expectAction { $0.remove("3") }
        #expect(Self.path(harness) == ["1", "2", "4", "chat"])
        harness.expectCleanReplay()
    }

    // MARK: What HomePath cannot do

    @Test func aLogOfWhatHomePathCannotDoIsFlagged() throws {
        var builder = EventBuilder()
        let events = [
            builder.start(),
            builder.make(.routePush(stack: "path", from: nil, to: "2", params: nil)),
            // `pop()` removes one item and keeps the root: never three.
            builder.make(.routePop(stack: "path", from: "2", to: nil, amount: .count(3))),
            builder.make(.routePush(stack: "path", from: nil, to: "chat", params: Self.chat("a"))),
            // `showScreen` opens a chat once: the same value twice is not pushed.
            builder.make(.routePush(stack: "path", from: "chat", to: "chat", params: Self.chat("a"))),
            // Another chat is another value.
            builder.make(.routePush(stack: "path", from: "chat", to: "chat", params: Self.chat("b"))),
            // `popTo` goes back to the first match: a log that claims the topmost is corrected.
            builder.make(.routePopTo(stack: "path", from: "chat", to: "chat")),
            builder.make(.screenView(.stack("path", route: "chat"), params: Self.chat("a"))),
        ]
        let audit = try auditSession(events, model: Self.model)
        #expect(audit.findings.map { "\($0.rule.rawValue)@\($0.seq ?? -1)" } == ["stack.out_of_range@2", "route.singleton@4"])
        #expect(audit.finalState.stacks["path"] == ["chat"])
    }
}
