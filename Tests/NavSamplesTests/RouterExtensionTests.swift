import NavEvents
import NavModel
import NavReplay
import NavRouter
import NavTestSupport
import Testing

/// The router's operations for the seed systems: transactions, smart dismiss, close, modals
/// with their own stack, styles, flow-bound positions. Every harness folds its events live, so
/// a clean test also proves the log has no finding.
@Suite("Router: seed system operations")
struct RouterExtensionTests {
    /// A started harness on the extension model in flow `tabs`, tab `a`.
    func tabsHarness() -> RouterHarness {
        let harness = RouterHarness(model: extensionModel)
        harness.router.apply(command: "toTabs")
        return harness
    }

    // MARK: Transactions

    @Test func aTransactionIsOneActionWithOneScreenViewAtTheEnd() {
        let harness = RouterHarness(model: extensionModel)
        let events = harness.expectAction { router in
            router.transaction { tx in
                try tx.apply(command: "toData")
                try tx.push("widgets")
                try tx.push("editor", params: RouteParams([("object_id", .string("o-1"))]))
            }
        }
        #expect(
            events.map(\.payload) == [
                .commandApplied(command: "toData", fromFlow: "hub", toFlow: "data"),
                .flowSwitch(from: "hub", to: "data"),
                .routePush(stack: "path", from: nil, to: "widgets", params: nil),
                .routePush(stack: "path", from: "widgets", to: "editor", params: RouteParams([("object_id", .string("o-1"))])),
                .screenView(.stack("path", route: "editor"), params: RouteParams([("object_id", .string("o-1"))])),
            ])
        harness.expectCleanReplay()
    }

    @Test func aRefusedStepAbandonsTheWholeTransaction() {
        let harness = RouterHarness(model: extensionModel)
        let before = harness.events.count
        let result = harness.router.transaction { tx in
            try tx.apply(command: "toData")
            try tx.push("editor")  // index 0 of a data space must be widgets
        }
        #expect(result == .refused(.positionRequired(route: "editor", stack: "path", index: 0, oneOf: ["widgets"])))
        #expect(harness.events.count == before)
        #expect(harness.state.flow == "hub")
    }

    struct Oops: Error {}

    @Test func anErrorOfTheBodyAbandonsTheTransaction() {
        let harness = RouterHarness(model: extensionModel)
        let result = harness.router.transaction { tx in
            try tx.apply(command: "toData")
            throw Oops()
        }
        #expect(result.refusal.map { if case .abandoned = $0 { true } else { false } } == true)
        #expect(harness.state.flow == "hub")
    }

    @Test func aCommandIntoAFlowWhosePositionsTheStackBreaksIsRefusedUnlessTheTransactionCorrectsIt() {
        let harness = RouterHarness(model: extensionModel)
        harness.router.transaction { tx in
            try tx.apply(command: "toData")
            try tx.push("widgets")
        }
        #expect(
            harness.router.apply(command: "becameChat")
                == .refused(
                    .positionRequired(route: "widgets", stack: "path", index: 0, oneOf: ["spaceChat"])))
        harness.expectAction { router in
            router.transaction { tx in
                try tx.apply(command: "becameChat")
                try tx.insert("spaceChat", at: 0)
                try tx.remove("widgets")
            }
        }
        #expect(harness.state.stacks["path"] == ["spaceChat"])
        harness.expectCleanReplay()
    }

    @Test func positionsFollowTheFlow() {
        let harness = RouterHarness(model: extensionModel)
        #expect(harness.router.push("widgets") == .refused(.positionRequired(route: "widgets", stack: "path", index: 0, oneOf: [])))
        harness.router.apply(command: "toChat")
        #expect(
            harness.router.push("widgets") == .refused(.positionRequired(route: "widgets", stack: "path", index: 0, oneOf: ["spaceChat"])))
        #expect(harness.router.push("spaceChat") == .applied)
        harness.expectCleanReplay()
    }

    // MARK: Modals with their own stack

    @Test func pushesGoOnTheTopModalsOwnStack() {
        let harness = tabsHarness()
        harness.router.present("sheet", style: .sheet)
        #expect(harness.router.activeStack == "sheetStack")
        let events = harness.expectAction { $0.push("s1") }
        #expect(
            events.map(\.payload) == [
                .routePush(stack: "sheetStack", from: nil, to: "s1", params: nil),
                .screenView(.stack("sheetStack", route: "s1"), params: nil),
            ])
        harness.router.present("overlay", style: .overlay)  // no stack: shares the sheet's
        #expect(harness.router.activeStack == "sheetStack")
        harness.expectCleanReplay()
    }

    @Test func aModalsStackIsRefusedWhileTheModalIsNotPresented() {
        let harness = tabsHarness()
        #expect(harness.router.push("s1", on: "sheetStack") == .refused(.modalNotPresented("sheet")))
    }

    @Test func aStyleTheModalDoesNotAllowIsRefused() {
        let harness = tabsHarness()
        #expect(harness.router.present("cover", style: .sheet) == .refused(.modalStyleNotAllowed("cover", style: "sheet")))
        #expect(harness.router.present("cover", style: .cover) == .applied)
    }

    @Test func aSnapshotWithAModalStackRestoresOnlyWithItsModal() {
        let good = RouterHarness(model: extensionModel, start: false)
        let snapshot = NavigationState(flow: "tabs", tab: "a", stacks: ["sheetStack": ["s1", "s2"]], modals: ["sheet"])
        #expect(good.router.restore(from: snapshot) == .restored)
        #expect(good.router.visibleScreen == .stack("sheetStack", route: "s2"))
        good.expectCleanReplay()
        let bad = RouterHarness(model: extensionModel, start: false)
        var orphan = snapshot
        orphan.modals = []
        #expect(bad.router.restore(from: orphan) == .fellBack(.modalNotPresented("sheet")))
    }

    // MARK: Smart dismiss and close

    @Test func smartDismissTakesThePresentedModalFirstThenPopsThenDismissesTheContext() {
        let harness = tabsHarness()
        harness.router.push("x")
        harness.router.present("sheet", style: .sheet)
        harness.router.push("s1")
        harness.router.present("cover", style: .cover)
        // From the sheet: the cover it presented.
        #expect(harness.expectAction { $0.dismiss(from: .modal("sheet")) }.map(\.payload).first == .modalDismiss(modal: "cover"))
        // From the visible sheet: a pop of its own stack.
        #expect(
            harness.expectAction { $0.dismiss() }.map(\.payload).first
                == .routePop(stack: "sheetStack", from: "s1", to: nil, amount: .count(1)))
        // At the sheet's root: its parent dismisses it.
        #expect(harness.expectAction { $0.dismiss() }.map(\.payload).first == .modalDismiss(modal: "sheet"))
        // On the tab: a pop.
        #expect(harness.expectAction { $0.dismiss() }.map(\.payload).first == .routePop(stack: "a", from: "x", to: nil, amount: .count(1)))
        // Nothing left: refused, nothing written.
        let before = harness.events.count
        #expect(harness.router.dismiss() == .refused(.nothingToDismiss))
        #expect(harness.events.count == before)
        harness.expectCleanReplay()
    }

    @Test func smartDismissFromTheBaseTakesTheFirstModalWithEverythingAboveIt() {
        let harness = tabsHarness()
        harness.router.present("sheet", style: .sheet)
        harness.router.push("s1")
        harness.router.present("overlay", style: .overlay)
        let events = harness.expectAction { $0.dismiss(from: .base) }
        #expect(events.map(\.payload) == [.modalDismiss(modal: "sheet"), .screenView(.stack("a", route: nil), params: nil)])
        #expect(harness.state.modals == [])
        #expect(harness.state.stacks["sheetStack"] == [])
        #expect(harness.router.dismiss(from: .modal("sheet")) == .refused(.modalNotPresented("sheet")))
        harness.expectCleanReplay()
    }

    @Test func aModalWithoutItsOwnStackIsDismissedNotPopped() {
        let harness = tabsHarness()
        harness.router.push("x")
        harness.router.present("cover", style: .cover)
        #expect(harness.expectAction { $0.dismiss() }.map(\.payload).first == .modalDismiss(modal: "cover"))
        #expect(harness.state.stacks["a"] == ["x"])
    }

    @Test func closeDismissesTheWholeModalFlow() {
        let harness = tabsHarness()
        harness.router.present("sheet", style: .sheet)
        harness.router.push("s1")
        harness.router.push("s2")
        let events = harness.expectAction { $0.close() }
        #expect(events.map(\.payload) == [.modalDismiss(modal: "sheet"), .screenView(.stack("a", route: nil), params: nil)])
        #expect(harness.state.stacks["sheetStack"] == [])
        #expect(harness.router.close() == .refused(.nothingToDismiss))
        harness.expectCleanReplay()
    }

    // MARK: Deep links into a modal's stack

    @Test func aLinkMayPresentASheetAndPushOnItsStack() {
        let harness = tabsHarness()
        let (result, events) = harness.expectActionResult { $0.open(deepLink: "ext://sheet") }
        #expect(result == .resolved)
        #expect(
            events.map(\.payload) == [
                .deepLink(url: "ext://sheet", outcome: .resolved),
                .modalPresent(modal: "sheet", style: .sheet),
                .routePush(stack: "sheetStack", from: nil, to: "s1", params: nil),
                .screenView(.stack("sheetStack", route: "s1"), params: nil),
            ])
        harness.expectCleanReplay()
    }
}
