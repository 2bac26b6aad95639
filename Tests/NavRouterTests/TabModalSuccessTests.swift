import NavEvents
import NavModel
import NavReplay
import NavRouter
import NavTestSupport
import Testing

@Suite("Tabs, modals and the success screen")
struct TabModalSuccessTests {
    @Test func selectTabSwitchesInAFlowWithTabsOnly() {
        let harness = RouterHarness()
        #expect(harness.router.selectTab("tab2") == .refused(.flowHasNoTabs("onboarding")))
        harness.router.apply(command: "goAuthorizedTab1Root")
        let events = harness.expectAction { #expect($0.selectTab("tab2") == .applied) }
        #expect(events.payloads == [.tabSwitch(from: "tab1", to: "tab2"), screen("tab2", nil)])
        #expect(harness.router.selectTab("tab2") == .unchanged)
        #expect(harness.router.selectTab("tab3") == .refused(.unknownTab("tab3", flow: "authorized")))
        #expect(harness.state.tab == "tab2")
        harness.expectCleanReplay()
    }

    @Test func eachTabKeepsItsOwnStack() {
        let harness = authorizedHarness()
        harness.router.push("list")
        harness.router.push("detail")
        harness.router.selectTab("tab2")
        harness.router.push("feed")
        let events = harness.expectAction { $0.selectTab("tab1") }
        #expect(events.payloads == [.tabSwitch(from: "tab2", to: "tab1"), screen("tab1", "detail")])
        #expect(harness.state.stacks == ["onboarding": [], "tab1": ["list", "detail"], "tab2": ["feed"]])
        harness.expectCleanReplay()
    }

    @Test func presentAndDismissAModal() {
        let harness = onboardingHarness(["welcome"])
        var events = harness.expectAction { #expect($0.present("paywall") == .applied) }
        #expect(events.payloads == [.modalPresent(modal: "paywall", style: .sheet), modalScreen("paywall")])
        #expect(harness.router.present("paywall") == .refused(.modalAlreadyPresented("paywall")))
        #expect(harness.router.present("nope") == .refused(.unknownModal("nope")))
        events = harness.expectAction { #expect($0.dismiss("paywall") == .applied) }
        #expect(events.payloads == [.modalDismiss(modal: "paywall"), screen("onboarding", "welcome")])
        #expect(harness.router.dismiss("paywall") == .refused(.modalNotPresented("paywall")))
        #expect(harness.router.dismissTop() == .unchanged)
        harness.expectCleanReplay()
    }

    @Test func aModalOutsideItsFlowsIsRefused() {
        let harness = authorizedHarness()
        #expect(harness.router.present("paywall") == .refused(.modalNotAllowed("paywall", flow: "authorized")))
        #expect(harness.state.modals.isEmpty)
    }

    @Test func dismissingAModalBelowTheTopDismissesTheOnesAbove() {
        let harness = RouterHarness()
        harness.router.present("paywall", style: .cover)
        harness.router.present("success", style: .overlay)
        let events = harness.expectAction { $0.dismiss("paywall") }
        #expect(events.payloads == [.modalDismiss(modal: "paywall"), screen("onboarding", nil)])
        #expect(harness.state.modals.isEmpty)
        harness.expectCleanReplay()
    }

    @Test func dismissTopDismissesOnlyTheTopModal() {
        let harness = RouterHarness()
        harness.router.present("paywall")
        harness.router.present("success")
        let events = harness.expectAction { $0.dismissTop() }
        #expect(events.payloads == [.modalDismiss(modal: "success"), modalScreen("paywall")])
        harness.expectCleanReplay()
    }

    @Test func maxModalsIsEnforced() throws {
        let model = try NavigationModel.load(
            json: """
                {"model_version": 1, "name": "widgets", "initial": {"flow": "page"},
                 "flows": {"page": {"stack": "page", "max_modals": 1}},
                 "stacks": {"page": {}},
                 "modals": {"chat": {}, "calendar": {}}}
                """)
        let harness = RouterHarness(model: model)
        harness.router.present("chat", style: .overlay)
        #expect(harness.router.present("calendar") == .refused(.tooManyModals(limit: 1, flow: "page")))
        // A stack without declared routes accepts any non-empty name.
        #expect(harness.router.push("anything") == .applied)
        #expect(harness.router.push("") == .refused(.unknownRoute("", stack: "page")))
        harness.expectCleanReplay()
    }

    static let toTab2 = SuccessPayload(
        title: "Done", message: "Your profile is ready", primaryButton: "Continue",
        primaryAction: .command("goAuthorizedTab2Root"))

    @Test func successPrimaryDismissesFirstThenAppliesTheCommand() {
        let harness = onboardingHarness(["welcome", "signup"])
        var events = harness.expectAction { #expect($0.presentSuccess(Self.toTab2) == .applied) }
        #expect(events.payloads == [.modalPresent(modal: "success", style: .cover), modalScreen("success")])
        #expect(harness.router.successPayload == Self.toTab2)
        events = harness.expectAction { #expect($0.handleSuccessPrimary() == .applied) }
        #expect(
            events.payloads == [
                .modalDismiss(modal: "success"),
                .commandApplied(command: "goAuthorizedTab2Root", fromFlow: "onboarding", toFlow: "authorized"),
                .flowSwitch(from: "onboarding", to: "authorized"),
                .tabSwitch(from: "tab1", to: "tab2"),
                screen("tab2", nil),
            ])
        #expect(harness.router.successPayload == nil)
        #expect(
            harness.state
                == NavigationState(
                    flow: "authorized", tab: "tab2", stacks: ["onboarding": ["welcome", "signup"], "tab1": [], "tab2": []]))
        harness.expectCleanReplay()
    }

    @Test func successDismissActionAppliesNoCommand() {
        let harness = RouterHarness()
        var payload = Self.toTab2
        payload.primaryAction = .dismiss
        harness.router.presentSuccess(payload, style: .sheet)
        let events = harness.expectAction { $0.handleSuccessPrimary() }
        #expect(events.payloads == [.modalDismiss(modal: "success"), screen("onboarding", nil)])
        #expect(harness.state == NavigationModel.poc.initialState)
        #expect(harness.router.successPayload == nil)
        harness.expectCleanReplay()
    }

    @Test func successScreenRefusals() {
        let harness = RouterHarness()
        #expect(harness.router.handleSuccessPrimary() == .refused(.modalNotPresented("success")))
        var payload = Self.toTab2
        payload.primaryAction = .command("teleport")
        #expect(harness.router.presentSuccess(payload) == .refused(.unknownCommand("teleport")))
        harness.router.presentSuccess(Self.toTab2)
        #expect(harness.router.presentSuccess(Self.toTab2) == .refused(.modalAlreadyPresented("success")))
        #expect(harness.events.count == 4)
    }

    @Test func dismissingTheSuccessModalClearsItsPayload() {
        let harness = RouterHarness()
        harness.router.presentSuccess(Self.toTab2)
        harness.expectAction { $0.dismiss("success") }
        #expect(harness.router.successPayload == nil)
    }
}
