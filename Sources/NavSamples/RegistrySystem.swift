public import NavEvents
import NavModel
public import NavRouter

/// The registry system as its code runs it: a registry of destinations (wizzyfizzy/Budgetie's
/// `AppNavigation` module): feature modules register a view per `NavigationData` type, and
/// `AppNavigateToUC.execute(data:type:)` asks `NavigationContext` to push it on the one
/// `NavigationStack` path or to put it in the one sheet slot (`sheetView`).
///
/// The registry is the stacks' `routes`: the registered types, by name (the app registers
/// `OnboardingNavData`; `MyFeatureNavData` is the module guide's example of adding one). An
/// unregistered destination resolves to no view, and the app does nothing: logged anyway, it is
/// `route.unknown`. `HomeView` shows the slot as a full-screen cover (`styles: cover`). The
/// slot holds exactly one view and no navigation of its own: its stack holds one route
/// (`max_depth: 1`), a second `.sheet` replaces it (`route_replace`), and a `.push` lands on
/// the main path, behind the cover (`pushes: below`).
public enum RegistrySystem {
    public static let modelJSON = """
        {
          "model_version": 1,
          "name": "registry",
          "$comment": "Follows wizzyfizzy/Budgetie at a18f074: ios/Modules/Shared/AppNavigation (NavigationData.swift, NavigationRegistryImpl.swift, AppNavigationToUCImpl.swift, README.md), ios/BudgetieApp/Sources/Core/Navigation/NavigationContext.swift, ios/BudgetieApp/Sources/Views/HomeView.swift, ios/Modules/Features/Onboarding/Sources/Impl/Navigation/OnboardingViewProvider.swift; ios/BudgetieAppTest/Navigation/NavigationContextTests.swift.",
          "description": "Destinations resolved through a registry, pushed on the main path or shown in the one-view sheet slot, presented as a full-screen cover; pushes land behind it; an unregistered destination is route.unknown.",
          "initial": {"flow": "app"},
          "flows": {
            "app": {"stack": "main"}
          },
          "stacks": {
            "main": {"routes": ["OnboardingNavData", "MyFeatureNavData"]},
            "sheet": {"routes": ["OnboardingNavData", "MyFeatureNavData"], "max_depth": 1}
          },
          "modals": {
            "sheet": {"styles": ["cover"], "stack": "sheet", "pushes": "below"}
          }
        }
        """

    public static let system = SeedSystem(
        id: "registry", seed: "004", title: "Registry of destinations", modelJSON: modelJSON,
        invariants: ["modal.already_presented", "modal.not_allowed", "route.unknown", "stack.not_owned", "stack.out_of_range"],
        cleanSessions: { [featureTour()] },
        violatingSessions: { [unregistered(), sheetOverSheet()] })

    static let start: Int64 = PoCScenarios.day + 21_600_000  // 10:00Z

    static func id(_ value: String) -> RouteParams {
        RouteParams([("id", .string(value))])
    }

    /// `navigateToUC.execute(data:type: .sheet)`: the destination in the sheet slot, presented
    /// as a full-screen cover; a sheet already shown gets the new view in its slot.
    public static func showInSheet(_ router: NavigationRouter, _ destination: String, params: RouteParams? = nil) -> NavigationResult {
        router.transaction { tx in
            if tx.state.modals.contains("sheet") {
                try tx.replaceLast(destination, on: "sheet", params: params)
            } else {
                try tx.present("sheet", style: .cover)
                try tx.push(destination, on: "sheet", params: params)
            }
        }
    }

    /// `navigateToUC.execute(data:type: .push)`: on the main path, whatever the slot shows.
    public static func push(_ router: NavigationRouter, _ destination: String, params: RouteParams? = nil) -> NavigationResult {
        router.push(destination, params: params)
    }

    // MARK: Clean

    /// `HomeView.onAppear`: onboarding in the slot; a push while it is shown lands behind it;
    /// another `.sheet` replaces the slot's view; dismissed, the pushed view shows; back.
    static func featureTour() -> SampleSession {
        let driver = ScenarioDriver(
            sessionID: "s-registry-tour", seed: 401, startMilliseconds: start, model: RegistrySystem.system.model)
        driver.step { $0.start() }
        driver.act("onAppear: onboarding in the sheet slot") { showInSheet($0, "OnboardingNavData") }
        driver.act("push my feature: behind the cover") { push($0, "MyFeatureNavData", params: id("7d1c")) }
        driver.act("another feature in the slot: replaces the view") { showInSheet($0, "MyFeatureNavData", params: id("9a0f")) }
        driver.act("done: dismiss the cover") { $0.dismiss("sheet") }
        driver.act("push onboarding") { push($0, "OnboardingNavData") }
        driver.act("back") { $0.pop() }
        driver.act("back") { $0.pop() }
        return SampleSession(id: driver.router.sessionID, events: driver.events)
    }

    // MARK: Violations

    /// Destinations that no module registered: pushed, and shown in the sheet (presented as a
    /// sheet, where the app shows a full-screen cover).
    static func unregistered() -> SampleSession {
        let driver = ScenarioDriver(
            sessionID: "s-registry-bad-unregistered", seed: 411, startMilliseconds: start + 3_600_000, model: RegistrySystem.system.model)
        driver.step { $0.start() }
        driver.act("push my feature") { push($0, "MyFeatureNavData") }
        var events = driver.events
        events.append(
            Tamper.forge(
                after: events, .routePush(stack: "main", from: "MyFeatureNavData", to: "CheckoutNavData", params: nil),
                correlation: "checkout", id: "registry-forged-0001"))
        events.append(
            Tamper.forge(after: events, .modalPresent(modal: "sheet", style: .sheet), correlation: "promo", id: "registry-forged-0002"))
        events.append(
            Tamper.forge(
                after: events, .routePush(stack: "sheet", from: nil, to: "PromoNavData", params: nil), correlation: "promo",
                id: "registry-forged-0003", delayMilliseconds: 0))
        return SampleSession(id: driver.router.sessionID, events: events)
    }

    /// A second sheet presented over the one shown, a second view pushed into the slot, and a
    /// push on the sheet's stack after the sheet was dismissed.
    static func sheetOverSheet() -> SampleSession {
        let driver = ScenarioDriver(
            sessionID: "s-registry-bad-sheets", seed: 412, startMilliseconds: start + 3_700_000, model: RegistrySystem.system.model)
        driver.step { $0.start() }
        driver.act("onboarding in the sheet") { showInSheet($0, "OnboardingNavData") }
        var events = driver.events
        events.append(
            Tamper.forge(after: events, .modalPresent(modal: "sheet", style: .cover), correlation: "feature", id: "registry-forged-0101"))
        events.append(
            Tamper.forge(
                after: events, .routePush(stack: "sheet", from: "OnboardingNavData", to: "MyFeatureNavData", params: nil),
                correlation: "feature", id: "registry-forged-0104", delayMilliseconds: 0))
        events.append(Tamper.forge(after: events, .modalDismiss(modal: "sheet"), correlation: "swipe", id: "registry-forged-0102"))
        events.append(
            Tamper.forge(
                after: events, .routePush(stack: "sheet", from: nil, to: "OnboardingNavData", params: nil), correlation: "late-push",
                id: "registry-forged-0103"))
        return SampleSession(id: driver.router.sessionID, events: events)
    }
}
