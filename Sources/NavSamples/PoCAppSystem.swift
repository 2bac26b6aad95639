import NavEvents
import NavModel
import NavRouter

/// The PoC as its code runs it: akulahere/SwiftUI-Navigation's `AppRouter` (the example app
/// of the repository), where the built-in model (`NavigationModel.poc`) follows the document.
///
/// The code's routes are `OnboardingRoute` (`step2`, `step3` above step 1), `Tab1Route`
/// (`screen2` … `screen5`) and `Tab2Route` (`a` … `e`); `tab1Pop(_:)` and `tab2Pop(_:)` clamp any
/// count and the coordinators call `pop(2)` from every screen (`clamped_pops`); the paywall is a
/// sheet of the onboarding coordinator; the success screen is a sheet or a full-screen cover of
/// the root; each command pops all three stacks to their roots and dismisses the paywall, after
/// `handleSuccessPrimary()` has cleared the success payload; the logout selects tab1 before the
/// flow leaves the tabs. No singleton, no deep link.
public enum PoCAppSystem {
    public static let modelJSON = """
        {
          "model_version": 1,
          "name": "poc-app",
          "$comment": "Follows akulahere/SwiftUI-Navigation at f27936c, examples/swiftui-navigation-example: SwiftUI-Navigation-PoC/Navigation/Core/AppRouter.swift, AppRouter+RouteCommandHandling.swift, AppRouter+SuccessRouting.swift, RootCoordinatorView.swift, Models/*.swift, Onboarding/, Tab1/ and Tab2/ (routing extensions and coordinator views); SwiftUI-Navigation-PoCTests/AppRouterRouteCommandTests.swift.",
          "description": "The PoC router as its code runs it: onboarding steps above step 1, tab1 screens 2 to 5, tab2 screens A to E with pops clamped, a paywall sheet in onboarding, a success sheet or cover anywhere, three commands that reset every stack and dismiss the paywall.",
          "initial": {"flow": "onboarding", "tab": "tab1"},
          "flows": {
            "onboarding": {"stack": "onboarding"},
            "authorized": {"tabs": ["tab1", "tab2"]}
          },
          "stacks": {
            "onboarding": {"routes": ["step2", "step3"]},
            "tab1": {"routes": ["screen2", "screen3", "screen4", "screen5"], "clamped_pops": true},
            "tab2": {"routes": ["a", "b", "c", "d", "e"], "clamped_pops": true}
          },
          "modals": {
            "paywall": {"flows": ["onboarding"], "styles": ["sheet"]},
            "success": {"styles": ["sheet", "cover"]}
          },
          "commands": {
            "goAuthorizedTab1Root": {"flow": "authorized", "tab": "tab1", "reset": ["onboarding", "tab1", "tab2"], "dismiss_modals": true},
            "goAuthorizedTab2Root": {"flow": "authorized", "tab": "tab2", "reset": ["onboarding", "tab1", "tab2"], "dismiss_modals": true},
            "logoutToOnboarding": {"flow": "onboarding", "tab": "tab1", "reset": ["onboarding", "tab1", "tab2"], "dismiss_modals": true}
          }
        }
        """

    public static let system = SeedSystem(
        id: "poc-app", seed: "001", title: "The PoC router as its code runs it", modelJSON: modelJSON,
        invariants: ["command.postcondition", "flow.without_command", "modal.not_allowed", "route.unknown", "stack.out_of_range"],
        cleanSessions: { [onboardingToTabs(), tab2AndLogout(), commandFromRestoredState()] },
        violatingSessions: { [documentRoutes(), partialCommand(), paywallWhileAuthorized()] })

    static let start: Int64 = PoCScenarios.day + 25_200_000  // 11:00Z

    static func success(_ action: SuccessAction, title: String = "Done!") -> SuccessPayload {
        SuccessPayload(title: title, message: "", primaryButton: "OK", primaryAction: action)
    }

    // MARK: Clean

    /// Step 1 → 2 (paywall, closed) → 3 → finish: the full-screen success, whose button opens
    /// tab1; screens 2 to 5, "pop back 2 screens", the toolbar's "←← 2 back" with one screen
    /// left (a clamped pop), and its no-op at the root.
    static func onboardingToTabs() -> SampleSession {
        let driver = ScenarioDriver(sessionID: "s-pocapp-onboarding", seed: 501, startMilliseconds: start, model: system.model)
        driver.step { $0.start() }
        driver.act("Next") { $0.push("step2") }
        driver.act("Show Paywall") { $0.present("paywall", style: .sheet) }
        driver.act("Close") { $0.dismiss("paywall") }
        driver.act("Next") { $0.push("step3") }
        driver.act("Finish") { $0.presentSuccess(success(.command("goAuthorizedTab1Root")), style: .cover) }
        driver.act("Open App") { $0.handleSuccessPrimary() }
        driver.act("Go Screen2") { $0.push("screen2") }
        driver.act("Next") { $0.push("screen3", params: RouteParams([("id", .integer(42))])) }
        driver.act("Next") { $0.push("screen4") }
        driver.act("Next") { $0.push("screen5") }
        driver.act("Pop back 2 screens") { $0.pop(2) }
        driver.act("←← 2 back") { $0.pop(2) }
        driver.act("Go Screen2") { $0.push("screen2") }
        driver.act("←← 2 back, one screen left") { $0.pop(2) }
        driver.step { precondition($0.pop(2) == .unchanged, "pop(2) at the root is a no-op") }
        driver.act("Show Success (dismiss only)") { $0.presentSuccess(success(.dismiss), style: .sheet) }
        driver.act("OK") { $0.handleSuccessPrimary() }
        return SampleSession(id: driver.router.sessionID, events: driver.events)
    }

    /// The paywall's purchase (dismissed, then the success cover), tab2's screens A to E, its
    /// pops, and the logout through the success sheet: every stack reset, tab1 selected.
    static func tab2AndLogout() -> SampleSession {
        let driver = ScenarioDriver(sessionID: "s-pocapp-logout", seed: 502, startMilliseconds: start + 60_000, model: system.model)
        driver.step { $0.start() }
        driver.act("Next") { $0.push("step2") }
        driver.act("Show Paywall") { $0.present("paywall", style: .sheet) }
        driver.act("Purchase: dismiss the paywall") { $0.dismiss("paywall") }
        driver.act("Purchase: the success cover") { $0.presentSuccess(success(.dismiss, title: "Purchase successful"), style: .cover) }
        driver.act("Continue") { $0.handleSuccessPrimary() }
        driver.act("Next") { $0.push("step3") }
        driver.act("Finish") { $0.presentSuccess(success(.command("goAuthorizedTab1Root")), style: .cover) }
        driver.act("Open App") { $0.handleSuccessPrimary() }
        driver.act("tab 2") { $0.selectTab("tab2") }
        for route in ["a", "b", "c", "d", "e"] { driver.act("Next") { $0.push(route) } }
        driver.act("Pop back 2 screens") { $0.pop(2) }
        driver.act("tab 1: its stack is empty") { $0.selectTab("tab1") }
        driver.act("tab 2: its stack was kept") { $0.selectTab("tab2") }
        driver.act("Logout (via Success)") { $0.presentSuccess(success(.command("logoutToOnboarding"), title: "Log out?"), style: .sheet) }
        driver.act("Log out") { $0.handleSuccessPrimary() }
        driver.act("Next") { $0.push("step2") }
        driver.act("Pop to root (Step1)") { $0.popToRoot() }
        return SampleSession(id: driver.router.sessionID, events: driver.events)
    }

    /// The first command test of `AppRouterRouteCommandTests`: a state with every stack filled
    /// and the paywall shown (restored), then `goAuthorizedTab1Root`.
    static func commandFromRestoredState() -> SampleSession {
        let driver = ScenarioDriver(sessionID: "s-pocapp-command", seed: 503, startMilliseconds: start + 120_000, model: system.model)
        driver.step {
            let result = $0.restore(
                from: NavigationState(
                    flow: "onboarding", tab: "tab2",
                    stacks: ["onboarding": ["step2", "step3"], "tab1": ["screen2", "screen3"], "tab2": ["a", "b"]], modals: ["paywall"]))
            precondition(result == .restored, "\(result)")
        }
        driver.act("handleRouteCommand(.goAuthorizedTab1Root)") { $0.apply(command: "goAuthorizedTab1Root") }
        return SampleSession(id: driver.router.sessionID, events: driver.events)
    }

    // MARK: Violations

    /// The document's routes, which the code does not have (`welcome`, `settings`), and a pop of
    /// three on onboarding, which holds two (its stack has no `pop(_:)`, so no clamped pops).
    static func documentRoutes() -> SampleSession {
        let driver = ScenarioDriver(sessionID: "s-pocapp-bad-routes", seed: 511, startMilliseconds: start + 3_600_000, model: system.model)
        driver.step { $0.start() }
        driver.act("Next") { $0.push("step2") }
        var events = driver.events
        events.append(
            Tamper.forge(
                after: events, .routePush(stack: "onboarding", from: "step2", to: "welcome", params: nil), correlation: "doc-route",
                id: "pocapp-forged-0001"))
        events.append(
            Tamper.forge(
                after: events, .routePop(stack: "onboarding", from: "welcome", to: nil, amount: .count(3)), correlation: "back-three",
                id: "pocapp-forged-0002"))
        events.append(
            Tamper.forge(
                after: events, .routePush(stack: "onboarding", from: nil, to: "settings", params: nil), correlation: "settings",
                id: "pocapp-forged-0003"))
        return SampleSession(id: driver.router.sessionID, events: events)
    }

    /// `goAuthorizedTab1Root` as the document's model had it: only tab1 reset, tab2 and the
    /// paywall left as they were; then a flow switch outside any command.
    static func partialCommand() -> SampleSession {
        let driver = ScenarioDriver(sessionID: "s-pocapp-bad-command", seed: 512, startMilliseconds: start + 3_700_000, model: system.model)
        driver.step {
            _ = $0.restore(
                from: NavigationState(
                    flow: "onboarding", tab: "tab1", stacks: ["onboarding": ["step2"], "tab2": ["a"]], modals: ["paywall"]))
        }
        var events = driver.events
        let group = "partial-command"
        events.append(
            Tamper.forge(
                after: events, .commandApplied(command: "goAuthorizedTab1Root", fromFlow: "onboarding", toFlow: "authorized"),
                correlation: group, id: "pocapp-forged-0101"))
        events.append(
            Tamper.forge(
                after: events, .routePop(stack: "onboarding", from: "step2", to: nil, amount: .toRoot), correlation: group,
                id: "pocapp-forged-0102", delayMilliseconds: 0))
        events.append(
            Tamper.forge(
                after: events, .flowSwitch(from: "onboarding", to: "authorized"), correlation: group, id: "pocapp-forged-0103",
                delayMilliseconds: 0))
        events.append(
            Tamper.forge(
                after: events, .flowSwitch(from: "authorized", to: "onboarding"), correlation: "bare-switch", id: "pocapp-forged-0104"))
        return SampleSession(id: driver.router.sessionID, events: events)
    }

    /// The paywall presented in the authorized flow: its sheet belongs to the onboarding
    /// coordinator.
    static func paywallWhileAuthorized() -> SampleSession {
        let driver = ScenarioDriver(sessionID: "s-pocapp-bad-paywall", seed: 513, startMilliseconds: start + 3_800_000, model: system.model)
        driver.step { $0.start() }
        driver.act("a command") { $0.apply(command: "goAuthorizedTab2Root") }
        var events = driver.events
        events.append(
            Tamper.forge(after: events, .modalPresent(modal: "paywall", style: .sheet), correlation: "upsell", id: "pocapp-forged-0201"))
        return SampleSession(id: driver.router.sessionID, events: events)
    }
}
