import NavEvents
import NavModel
import NavReplay
import NavRouter
import NavTestSupport
import Testing

/// HatchModularNavigation's `NavigationCoordinatorTests.swift`, on the router: one coordinator
/// is one presentation context (`presentation: contexts`) whose path is a stack and whose
/// sheet and cover slot is the modal presented from it (`from`); a destination presented as a
/// sheet or cover is a modal of its name. The same operations end in the same state, each log
/// audits clean, and what the coordinator ignores (a second sheet or cover, a pop under its
/// modal) is refused by the router and flagged in a log.
///
/// Not stated: the tests of deep link routes handed from coordinator to coordinator, of
/// `EntryMonitor`, `DestinationMonitor` and `ModuleEntry`, and of coordinator identity
/// (`Hashable`): no event or model key speaks of coordinators as objects or of routes still to
/// be consumed; a deep link's steps are checked in order as the events land them.
@Suite("HatchModularNavigation NavigationCoordinatorTests")
struct NavigationCoordinatorTests {
    static let model = try! NavigationModel.load(
        json: """
            {"model_version": 1, "name": "coordinator", "initial": {"flow": "root"},
             "flows": {"root": {"stack": "root", "presentation": "contexts"}},
             "stacks": {"root": {"routes": ["home", "detail", "settings", "childHome", "childDetail"]},
                        "child": {"routes": ["childHome", "childDetail"]}},
             "modals": {"home": {"from": ["root"]}, "detail": {"from": ["root"]}, "settings": {"from": ["root"]},
                        "child": {"stack": "child", "from": ["root"]}}}
            """)

    static func coordinator() -> RouterHarness { RouterHarness(model: model) }
    static func id(_ value: String) -> RouteParams { RouteParams([("id", .string(value))]) }
    static func path(_ harness: RouterHarness) -> [String] { harness.state.stacks["root"] ?? [] }

    // MARK: Push navigation

    @Test("Push adds destination to navigation path") func testPushDestination() {
        let harness = Self.coordinator()
        harness.expectAction { $0.push("home") }
        #expect(Self.path(harness).count == 1)
        harness.expectCleanReplay()
    }

    @Test("Push multiple destinations") func testPushMultipleDestinations() {
        let harness = Self.coordinator()
        harness.expectAction { $0.push("home") }
        harness.expectAction { $0.push("detail", params: Self.id("123")) }
        harness.expectAction { $0.push("settings") }
        #expect(Self.path(harness).count == 3)
        harness.expectCleanReplay()
    }

    @Test("Pop removes last destination from path") func testPopDestination() {
        let harness = Self.coordinator()
        harness.expectAction { $0.push("home") }
        harness.expectAction { $0.push("detail", params: Self.id("123")) }
        harness.expectAction { $0.pop() }
        #expect(Self.path(harness) == ["home"])
        harness.expectCleanReplay()
    }

    @Test("Pop to root clears navigation path") func testPopToRoot() {
        let harness = Self.coordinator()
        for route in ["home", "detail", "settings"] { harness.expectAction { $0.push(route) } }
        harness.expectAction { $0.popToRoot() }
        #expect(Self.path(harness).isEmpty)
        harness.expectCleanReplay()
    }

    // MARK: Sheets and covers: one slot

    @Test("Present sheet, and cover, set the slot", arguments: [ModalStyle.sheet, .cover])
    func testPresent(_ style: ModalStyle) {
        let harness = Self.coordinator()
        harness.expectAction { #expect($0.present("settings", style: style) == .applied) }
        #expect(harness.state.modals == ["settings"])
        #expect(harness.events.last(where: { $0.name == .modalPresent })?.payload == .modalPresent(modal: "settings", style: style))
        harness.expectCleanReplay()
    }

    /// "Present sheet when sheet already presented does nothing", and its three variants.
    @Test(
        "A second sheet or cover in one context does nothing",
        arguments: [(ModalStyle.sheet, ModalStyle.sheet), (.cover, .sheet), (.cover, .cover), (.sheet, .cover)])
    func testPresentWhenAlreadyPresented(_ first: ModalStyle, _ second: ModalStyle) throws {
        let harness = Self.coordinator()
        harness.expectAction { $0.present("settings", style: first) }
        #expect(
            harness.router.present("home", style: second)
                == .refused(.presentationNotAllowed(modal: "home", .contextShowsModal(context: "root", modal: "settings"))))
        #expect(harness.state.modals == ["settings"])
        harness.expectCleanReplay()
        // A log in which the second one is presented all the same.
        var builder = EventBuilder()
        let events = [
            builder.start(), builder.make(.modalPresent(modal: "settings", style: first)),
            builder.make(.modalPresent(modal: "home", style: second)),
        ]
        let audit = try auditSession(events, model: Self.model)
        #expect(audit.findings.map(\.rule) == [.modalNotAllowed])
        #expect(audit.findings.first?.seq == 2)
    }

    @Test("Dismiss sheet, and cover, clears the slot", arguments: [ModalStyle.sheet, .cover])
    func testDismiss(_ style: ModalStyle) {
        let harness = Self.coordinator()
        harness.expectAction { $0.present("settings", style: style) }
        harness.expectAction { #expect($0.dismiss("settings") == .applied) }
        #expect(harness.state.modals.isEmpty)
        harness.expectCleanReplay()
    }

    // MARK: Smart dismiss and close

    @Test("Smart dismiss prioritizes the sheet or cover over navigation pop", arguments: [ModalStyle.sheet, .cover])
    func testSmartDismissPrioritizesModal(_ style: ModalStyle) {
        let harness = Self.coordinator()
        harness.expectAction { $0.push("home") }
        harness.expectAction { $0.present("settings", style: style) }
        harness.expectAction { #expect($0.dismiss(from: .base) == .applied) }
        #expect(harness.state.modals.isEmpty)
        #expect(Self.path(harness).count == 1)
        harness.expectCleanReplay()
    }

    @Test("Smart dismiss pops from navigation when no modals") func testSmartDismissPopsNavigation() {
        let harness = Self.coordinator()
        harness.expectAction { $0.push("home") }
        harness.expectAction { $0.push("detail", params: Self.id("123")) }
        harness.expectAction { $0.dismiss(from: .base) }
        #expect(Self.path(harness).count == 1)
        harness.expectCleanReplay()
    }

    @Test("Smart dismiss calls dismiss parent when path empty") func testSmartDismissCallsDismissParent() {
        // The root coordinator's parent refuses (`dismissParent` returns false): nothing happens.
        let root = Self.coordinator()
        #expect(root.router.dismiss(from: .base) == .refused(.nothingToDismiss))
        // A presented coordinator at its root: its parent dismisses it.
        let harness = Self.coordinator()
        harness.expectAction { $0.present("child", style: .sheet) }
        harness.expectAction { $0.push("childHome") }
        harness.expectAction { $0.dismiss(from: .modal("child")) }  // pops its path first
        #expect(harness.state.modals == ["child"])
        harness.expectAction { $0.dismiss(from: .modal("child")) }
        #expect(harness.state.modals.isEmpty)
        harness.expectCleanReplay()
    }

    @Test("Close always calls dismiss parent") func testCloseCallsDismissParent() {
        // At the root nothing dismisses it, so `close()` pops to the root.
        let root = Self.coordinator()
        root.expectAction { $0.push("home") }
        root.expectAction { #expect($0.close(from: .base) == .applied) }
        #expect(Self.path(root).isEmpty)
        root.expectCleanReplay()
        // A presented coordinator: its parent dismisses it, with its path.
        let harness = Self.coordinator()
        harness.expectAction { $0.present("child", style: .cover) }
        harness.expectAction { $0.push("childHome") }
        harness.expectAction { #expect($0.close(from: .modal("child")) == .applied) }
        #expect(harness.state.modals.isEmpty && harness.state.stacks["child"] == [])
        harness.expectCleanReplay()
    }

    // MARK: Dismiss for a mode

    @Test("Dismiss for push mode pops navigation") func testDismissForPushMode() {
        let harness = Self.coordinator()
        harness.expectAction { $0.push("home") }
        harness.expectAction { $0.pop() }
        #expect(Self.path(harness).isEmpty)
        harness.expectCleanReplay()
    }

    @Test("Dismiss for root mode does nothing") func testDismissForRootMode() {
        let harness = Self.coordinator()
        let before = harness.events.count
        #expect(harness.router.close(from: .base) == .refused(.nothingToDismiss))
        #expect(harness.events.count == before)
    }

    // MARK: Nested paths

    @Test("Multiple coordinators push to the same path") func testMultipleCoordinatorsPushToTheSamePath() {
        // A pushed child coordinator shares its parent's path.
        let harness = Self.coordinator()
        harness.expectAction { $0.push("home") }
        harness.expectAction { $0.push("childDetail", on: "root") }
        #expect(Self.path(harness) == ["home", "childDetail"])
        harness.expectCleanReplay()
    }

    // MARK: What the coordinator ignores

    /// `pop()` does nothing while a sheet or cover is presented; a push still lands behind it,
    /// and a pop to the root still clears the path.
    @Test func aPopUnderTheCoordinatorsModalIsIgnored() throws {
        let harness = Self.coordinator()
        harness.expectAction { $0.push("home") }
        harness.expectAction { $0.present("settings", style: .sheet) }
        #expect(harness.router.pop() == .refused(.stackCovered(stack: "root", modal: "settings")))
        harness.expectAction { $0.push("detail", on: "root") }
        harness.expectAction { $0.popToRoot(on: "root") }
        harness.expectCleanReplay()
        var builder = EventBuilder()
        let events = [
            builder.start(), builder.make(.routePush(stack: "root", from: nil, to: "home", params: nil)),
            builder.make(.modalPresent(modal: "settings", style: .sheet)),
            builder.make(.routePop(stack: "root", from: "home", to: nil, amount: .count(1))),
        ]
        let audit = try auditSession(events, model: Self.model)
        #expect(audit.findings.map(\.rule) == [.stackNotOwned])
        #expect(audit.findings.first?.seq == 3)
    }
}
