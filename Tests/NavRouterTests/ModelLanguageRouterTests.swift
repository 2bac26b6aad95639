import NavEvents
import NavModel
import NavReplay
import NavRouter
import NavTestSupport
import Testing

/// The router under model language 1.1: it refuses what the keys forbid, and writes what the
/// real apps' operations do, in events whose replay rebuilds its state without findings.
@Suite("Model language 1.1 in the router")
struct ModelLanguageRouterTests {
    static let model = try! NavigationModel.load(
        json: """
            {
              "model_version": 1,
              "name": "language",
              "initial": {"flow": "main", "tab": "home"},
              "flows": {
                "start": {"stack": "intro"},
                "main": {"tabs": ["home", "more"], "presentation": "contexts"}
              },
              "stacks": {
                "intro": {"routes": ["welcome", "page"]},
                "home": {"routes": ["chat", "page"], "singletons": ["chat"], "identity": "value", "pop_to": "first", "clamped_pops": true},
                "more": {"routes": ["chat", "page"], "max_depth": 2},
                "editor": {"routes": ["page"]},
                "slot": {"routes": ["page", "welcome"], "max_depth": 1}
              },
              "modals": {
                "editor": {"stack": "editor", "from": ["home"]},
                "widget": {"routes": ["page"], "from": ["home", "editor"]},
                "menu": {"from": ["editor"]},
                "sheet": {"flows": ["start"], "stack": "slot", "pushes": "below"},
                "tip": {"flows": ["start"], "routes": ["page"]}
              },
              "commands": {
                "logout": {"flow": "start", "tab": "home", "reset": ["home", "more"], "dismiss_modals": true},
                "login": {"flow": "main", "tab": "more", "reset": ["intro"], "dismiss_modals": true}
              }
            }
            """)

    static func chat(_ id: String) -> RouteParams { RouteParams([("id", .string(id))]) }

    /// A started router on tab `home` with `[chat a, page, chat b, page]`.
    static func twoChats() -> RouterHarness {
        let harness = RouterHarness(model: model)
        harness.router.push("chat", params: chat("a"))
        harness.router.push("page")
        harness.router.push("chat", params: chat("b"))
        harness.router.push("page")
        return harness
    }

    // MARK: Identity by value

    @Test func openOnceComparesValuesAndGoesBackToTheFirstMatch() {
        let harness = Self.twoChats()
        let events = harness.expectAction { #expect($0.openOnce("chat", params: Self.chat("b")) == .applied) }
        // route_pop_to "chat" would go back to chat a, the first by name: a counted pop instead.
        #expect(events.payloads.first == .routePop(stack: "home", from: "page", to: "chat", amount: .count(1)))
        #expect(harness.router.routeParams(on: "home").last == Self.chat("b"))
        harness.expectAction { #expect($0.openOnce("chat", params: Self.chat("a")) == .applied) }
        #expect(harness.events.last(where: { $0.name == .routePopTo })?.payload == .routePopTo(stack: "home", from: "chat", to: "chat"))
        #expect(harness.state.stacks["home"] == ["chat"])
        harness.expectAction { #expect($0.openOnce("chat", params: Self.chat("c")) == .applied) }  // another chat: pushed
        #expect(harness.state.stacks["home"] == ["chat", "chat"])
        harness.expectCleanReplay()
    }

    @Test func aSingletonIsRefusedOncePerValue() {
        let harness = Self.twoChats()
        #expect(harness.router.push("chat", params: Self.chat("a")) == .refused(.singletonAlreadyPresent("chat", stack: "home")))
        harness.expectAction { #expect($0.push("chat", params: Self.chat("c")) == .applied) }
        harness.expectCleanReplay()
    }

    @Test func removeByValueKeepsTheOtherChats() {
        let harness = Self.twoChats()
        let events = harness.expectAction { #expect($0.remove("chat", params: Self.chat("a")) == .applied) }
        #expect(
            Array(events.payloads.prefix(4)) == [
                .routePop(stack: "home", from: "page", to: nil, amount: .count(4)),
                .routePush(stack: "home", from: nil, to: "page", params: nil),
                .routePush(stack: "home", from: "page", to: "chat", params: Self.chat("b")),
                .routePush(stack: "home", from: "chat", to: "page", params: nil),
            ])
        #expect(harness.state.stacks["home"] == ["page", "chat", "page"])
        let whole = harness.expectAction { #expect($0.remove("chat", params: Self.chat("b")) == .applied) }
        #expect(whole.payloads.first == .routeRemove(stack: "home", route: "chat"))  // the only chat left
        harness.expectCleanReplay()
    }

    // MARK: Clamps and depth

    @Test func aClampedPopWritesTheCountAsAskedAndAuditsClean() {
        let harness = RouterHarness(model: Self.model)
        harness.router.push("page")
        let events = harness.expectAction { #expect($0.pop(2) == .applied) }
        #expect(events.payloads.first == .routePop(stack: "home", from: "page", to: nil, amount: .count(2)))
        #expect(harness.router.pop(2) == .unchanged)  // at the root: nothing to pop, nothing written
        harness.expectCleanReplay()
    }

    @Test func aStackBeyondItsMaxDepthIsRefused() {
        let harness = RouterHarness(model: Self.model)
        harness.router.selectTab("more")
        harness.router.push("page")
        harness.router.push("chat")
        #expect(harness.router.push("page") == .refused(.stackFull(stack: "more", maxDepth: 2)))
        #expect(harness.router.insert("page", at: 0) == .refused(.stackFull(stack: "more", maxDepth: 2)))
        harness.expectAction { #expect($0.replaceLast("page") == .applied) }
        let deep = NavigationState(flow: "main", tab: "more", stacks: ["more": ["page", "chat", "page"]])
        #expect(
            RouterHarness(model: Self.model, start: false).router.restore(from: deep) == .fellBack(.stackFull(stack: "more", maxDepth: 2)))
        harness.expectCleanReplay()
    }

    // MARK: Presentation contexts

    @Test func aStackDoesNotPopUnderItsContextsModal() {
        let harness = Self.twoChats()
        harness.expectAction { #expect($0.present("editor", style: .sheet) == .applied) }
        #expect(harness.router.pop(on: "home") == .refused(.stackCovered(stack: "home", modal: "editor")))
        #expect(harness.router.popTo("chat", params: Self.chat("a"), on: "home") == .refused(.stackCovered(stack: "home", modal: "editor")))
        harness.expectAction { #expect($0.push("page", on: "home") == .applied) }  // a push lands behind the sheet
        #expect(harness.router.visibleScreen == .modal("editor"))
        harness.expectAction { #expect($0.popToRoot(on: "home") == .applied) }  // clears all the same
        harness.expectAction { #expect($0.push("page") == .applied) }  // on the editor's own stack
        harness.expectAction { #expect($0.dismiss() == .applied) }  // pops the editor's stack
        harness.expectAction { #expect($0.dismiss() == .applied) }  // then the editor goes
        #expect(harness.state.modals.isEmpty)
        harness.expectCleanReplay()
    }

    @Test func aModalIsPresentedOnlyFromAFreeContext() {
        let harness = RouterHarness(model: Self.model)
        #expect(
            harness.router.present("menu", style: .sheet)
                == .refused(.presentationNotAllowed(modal: "menu", .contextNotShown(from: ["editor"]))))
        harness.router.present("editor", style: .sheet)
        harness.router.present("menu", style: .sheet)
        #expect(
            harness.router.present("widget", style: .sheet)
                == .refused(.presentationNotAllowed(modal: "widget", .contextShowsModal(context: "editor", modal: "menu"))))
        harness.expectCleanReplay()
    }

    @Test func closeAtTheBaseOfAContextFlowPopsToTheRoot() {
        let harness = Self.twoChats()
        let events = harness.expectAction { #expect($0.close(from: .base) == .applied) }
        #expect(events.payloads.first == .routePop(stack: "home", from: "page", to: nil, amount: .toRoot))
        #expect(harness.router.close(from: .base) == .refused(.nothingToDismiss))
        harness.expectCleanReplay()
    }

    // MARK: Modals bound to routes, pushes below

    @Test func aWidgetIsShownOnItsPageAndGoesWithIt() {
        let harness = RouterHarness(model: Self.model)
        harness.router.apply(command: "logout")
        #expect(
            harness.router.present("tip", style: .overlay)
                == .refused(.presentationNotAllowed(modal: "tip", .notOnRoute(route: nil, stack: "intro", routes: ["page"]))))
        harness.router.push("page")
        harness.expectAction { #expect($0.present("tip", style: .overlay) == .applied) }
        let events = harness.expectAction { #expect($0.pop() == .applied) }
        #expect(
            Array(events.payloads.prefix(2)) == [
                .modalDismiss(modal: "tip"), .routePop(stack: "intro", from: "page", to: nil, amount: .count(1)),
            ])
        #expect(harness.state.modals.isEmpty)
        harness.router.push("page")
        harness.router.present("tip", style: .overlay)
        harness.expectAction { #expect($0.push("welcome") == .applied) }  // over another page: it goes
        #expect(harness.state.modals.isEmpty)
        harness.expectCleanReplay()
    }

    @Test func pushesGoBelowASlotThatHoldsOneView() {
        let harness = RouterHarness(model: Self.model)
        harness.router.apply(command: "logout")
        harness.expectAction {
            $0.transaction { tx in
                try tx.present("sheet", style: .cover)
                try tx.push("welcome", on: "slot")
            }
        }
        #expect(harness.router.activeStack == "intro")
        harness.expectAction { #expect($0.push("page") == .applied) }
        #expect(harness.state.stacks["intro"] == ["page"])
        #expect(harness.router.push("page", on: "slot") == .refused(.stackFull(stack: "slot", maxDepth: 1)))
        harness.expectAction { #expect($0.replaceLast("page", on: "slot") == .applied) }  // another view in the slot
        #expect(harness.router.visibleScreen == .stack("slot", route: "page"))
        harness.expectCleanReplay()
    }

    // MARK: A command's tab in a flow without tabs

    @Test func aCommandIntoAFlowWithoutTabsSelectsItsTabFirst() {
        let harness = RouterHarness(model: Self.model)
        harness.router.selectTab("more")
        let events = harness.expectAction { #expect($0.apply(command: "logout") == .applied) }
        #expect(
            events.payloads.filter { $0.name == .tabSwitch || $0.name == .flowSwitch } == [
                .tabSwitch(from: "more", to: "home"), .flowSwitch(from: "main", to: "start"),
            ])
        #expect(harness.state.tab == "home")
        harness.expectAction { #expect($0.apply(command: "login") == .applied) }
        #expect(harness.state.tab == "more")
        harness.expectCleanReplay()
    }
}
