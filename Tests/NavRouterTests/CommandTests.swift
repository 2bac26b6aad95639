import NavEvents
import NavModel
import NavReplay
import NavRouter
import NavTestSupport
import Testing

@Suite("Cross-flow commands")
struct CommandTests {
    @Test func goAuthorizedTab1RootFromOnboarding() {
        let harness = onboardingHarness(["welcome"])
        let events = harness.expectAction { #expect($0.apply(command: "goAuthorizedTab1Root") == .applied) }
        // The tab is already tab1 (the initial state's), and tab1 is empty: nothing to reset.
        #expect(
            events.payloads == [
                .commandApplied(command: "goAuthorizedTab1Root", fromFlow: "onboarding", toFlow: "authorized"),
                .flowSwitch(from: "onboarding", to: "authorized"),
                screen("tab1", nil),
            ])
        #expect(
            harness.state
                == NavigationState(
                    flow: "authorized", tab: "tab1", stacks: ["onboarding": ["welcome"], "tab1": [], "tab2": []]))
        harness.expectCleanReplay()
    }

    @Test func goAuthorizedTab1RootFromTab2ResetsTab1() {
        let harness = authorizedHarness()
        harness.router.push("list")
        harness.router.push("detail")
        harness.router.selectTab("tab2")
        harness.router.push("feed")
        let events = harness.expectAction { $0.apply(command: "goAuthorizedTab1Root") }
        #expect(
            events.payloads == [
                .commandApplied(command: "goAuthorizedTab1Root", fromFlow: "authorized", toFlow: "authorized"),
                .routePop(stack: "tab1", from: "detail", to: nil, amount: .toRoot),
                .tabSwitch(from: "tab2", to: "tab1"),
                screen("tab1", nil),
            ])
        #expect(harness.state.stacks == ["onboarding": [], "tab1": [], "tab2": ["feed"]])
        harness.expectCleanReplay()
    }

    @Test func goAuthorizedTab2RootFromTab1() {
        let harness = authorizedHarness()
        harness.router.push("feed", on: "tab2")
        harness.router.push("list")
        let events = harness.expectAction { $0.apply(command: "goAuthorizedTab2Root") }
        #expect(
            events.payloads == [
                .commandApplied(command: "goAuthorizedTab2Root", fromFlow: "authorized", toFlow: "authorized"),
                .routePop(stack: "tab2", from: "feed", to: nil, amount: .toRoot),
                .tabSwitch(from: "tab1", to: "tab2"),
                screen("tab2", nil),
            ])
        #expect(harness.state.stacks == ["onboarding": [], "tab1": ["list"], "tab2": []])
        harness.expectCleanReplay()
    }

    @Test func logoutToOnboardingResetsEverythingAndDismissesModals() {
        let harness = onboardingHarness(["welcome"])
        harness.router.apply(command: "goAuthorizedTab2Root")
        harness.router.push("list", on: "tab1")
        harness.router.push("settings", on: "tab1")
        harness.router.push("feed")
        harness.router.push("post")
        harness.router.present("success")
        let events = harness.expectAction { $0.apply(command: "logoutToOnboarding") }
        #expect(
            events.payloads == [
                .commandApplied(command: "logoutToOnboarding", fromFlow: "authorized", toFlow: "onboarding"),
                .routePop(stack: "onboarding", from: "welcome", to: nil, amount: .toRoot),
                .routePop(stack: "tab1", from: "settings", to: nil, amount: .toRoot),
                .routePop(stack: "tab2", from: "post", to: nil, amount: .toRoot),
                .modalDismiss(modal: "success"),
                .flowSwitch(from: "authorized", to: "onboarding"),
                screen("onboarding", nil),
            ])
        // The command names no tab: the selected tab is kept for the next visit.
        #expect(
            harness.state
                == NavigationState(
                    flow: "onboarding", tab: "tab2", stacks: ["onboarding": [], "tab1": [], "tab2": []]))
        harness.expectCleanReplay()
    }

    @Test func logoutToOnboardingFromOnboardingNeedsNoFlowSwitch() {
        let harness = onboardingHarness(["welcome", "signup"])
        harness.router.present("paywall")
        harness.router.present("success")
        let events = harness.expectAction { $0.apply(command: "logoutToOnboarding") }
        #expect(
            events.payloads == [
                .commandApplied(command: "logoutToOnboarding", fromFlow: "onboarding", toFlow: "onboarding"),
                .routePop(stack: "onboarding", from: "signup", to: nil, amount: .toRoot),
                .modalDismiss(modal: "success"),
                .modalDismiss(modal: "paywall"),
                screen("onboarding", nil),
            ])
        #expect(harness.state == NavigationModel.poc.initialState)
        harness.expectCleanReplay()
    }

    @Test func aCommandDismissesModalsTheTargetFlowDoesNotAllow() {
        let harness = RouterHarness()
        harness.router.present("paywall")
        let events = harness.expectAction { $0.apply(command: "goAuthorizedTab1Root") }
        #expect(
            events.payloads == [
                .commandApplied(command: "goAuthorizedTab1Root", fromFlow: "onboarding", toFlow: "authorized"),
                .modalDismiss(modal: "paywall"),
                .flowSwitch(from: "onboarding", to: "authorized"),
                screen("tab1", nil),
            ])
        harness.expectCleanReplay()
    }

    @Test func aCommandThatChangesNothingVisibleStillDeclaresItself() {
        let harness = authorizedHarness()
        let events = harness.expectAction { $0.apply(command: "goAuthorizedTab1Root") }
        #expect(
            events.payloads == [
                .commandApplied(command: "goAuthorizedTab1Root", fromFlow: "authorized", toFlow: "authorized")
            ])
        harness.expectCleanReplay()
    }

    @Test func anUnknownCommandIsRefused() {
        let harness = RouterHarness()
        #expect(harness.router.apply(command: "teleport") == .refused(.unknownCommand("teleport")))
        #expect(harness.events.count == 2)
    }

    @Test func aCommandIntoATabbedFlowWithoutATabSelectsItsFirstTab() throws {
        let model = try NavigationModel.load(
            json: """
                {"model_version": 1, "name": "hub", "initial": {"flow": "hub"},
                 "flows": {"hub": {"stack": "space"}, "main": {"tabs": ["home", "me"]}},
                 "stacks": {"space": {}, "home": {}, "me": {}},
                 "commands": {"toMain": {"flow": "main"}, "toHub": {"flow": "hub", "reset": ["home", "me"]}}}
                """)
        let harness = RouterHarness(model: model)
        #expect(harness.state.tab == nil)
        let events = harness.expectAction { $0.apply(command: "toMain") }
        #expect(
            events.payloads == [
                .commandApplied(command: "toMain", fromFlow: "hub", toFlow: "main"),
                .flowSwitch(from: "hub", to: "main"),
                .tabSwitch(from: nil, to: "home"),
                screen("home", nil),
            ])
        harness.router.push("page")
        harness.expectAction { $0.apply(command: "toHub") }
        #expect(harness.state == NavigationState(flow: "hub", tab: "home", stacks: ["space": [], "home": [], "me": []]))
        harness.expectCleanReplay()
    }
}
