public import NavEvents
import NavModel
public import NavRouter

/// Seed 004: a registry of destinations (`AppNavigation`): feature modules register a view
/// per `NavigationData` type, and `AppNavigateToUC.execute(data:type:)` pushes it on the one
/// `NavigationStack` path or shows it in the one sheet slot (`sheetView`).
///
/// The registry is the stacks' `routes`: the `main` path and the sheet's own stack accept the
/// same registered types, so navigating to an unregistered destination, pushed or in the
/// sheet, is `route.unknown`. The sheet is one modal that owns a stack (`modals.sheet.stack`):
/// showing a destination in it is `modal_present` then `route_push` on the sheet's stack, in
/// one correlation group.
public enum RegistrySystem {
    public static let modelJSON = """
        {
          "model_version": 1,
          "name": "registry",
          "description": "Destinations resolved through a registry, pushed on the path or shown in the sheet; an unregistered destination is route.unknown.",
          "initial": {"flow": "app"},
          "flows": {
            "app": {"stack": "main"}
          },
          "stacks": {
            "main": {"routes": ["OnboardingNavData", "MyFeatureNavData", "ProfileNavData", "SettingsNavData"]},
            "sheet": {"routes": ["OnboardingNavData", "MyFeatureNavData", "ProfileNavData", "SettingsNavData"]}
          },
          "modals": {
            "sheet": {"styles": ["sheet"], "stack": "sheet"}
          }
        }
        """

    public static let system = SeedSystem(
        id: "registry", seed: "004", title: "Registry of destinations", modelJSON: modelJSON,
        invariants: ["modal.already_presented", "route.unknown", "stack.not_owned"],
        cleanSessions: { [featureTour()] },
        violatingSessions: { [unregistered(), sheetOverSheet()] })

    static let start: Int64 = PoCScenarios.day + 21_600_000  // 10:00Z

    static func id(_ value: String) -> RouteParams {
        RouteParams([("id", .string(value))])
    }

    /// `navigateToUC.execute(data:type: .sheet)`: the destination in the sheet slot, replacing
    /// a sheet already shown.
    public static func showInSheet(_ router: NavigationRouter, _ destination: String, params: RouteParams? = nil) -> NavigationResult {
        router.transaction { tx in
            if tx.state.modals.contains("sheet") { try tx.dismiss("sheet") }
            try tx.present("sheet", style: .sheet)
            try tx.push(destination, on: "sheet", params: params)
        }
    }

    // MARK: Clean

    static func featureTour() -> SampleSession {
        let driver = ScenarioDriver(
            sessionID: "s-registry-tour", seed: 401, startMilliseconds: start, model: RegistrySystem.system.model)
        driver.step { $0.start() }
        driver.act("onboarding in the sheet") { showInSheet($0, "OnboardingNavData") }
        driver.act("done: dismiss the sheet") { $0.dismiss("sheet") }
        driver.act("push my feature") { $0.push("MyFeatureNavData", on: "main", params: id("7d1c")) }
        driver.act("push the profile") { $0.push("ProfileNavData", on: "main") }
        driver.act("settings in the sheet") { showInSheet($0, "SettingsNavData") }
        driver.act("another feature replaces the sheet") { showInSheet($0, "MyFeatureNavData", params: id("9a0f")) }
        driver.act("swipe the sheet down") { $0.dismiss("sheet") }
        driver.act("back") { $0.pop(on: "main") }
        driver.act("back") { $0.pop(on: "main") }
        return SampleSession(id: driver.router.sessionID, events: driver.events)
    }

    // MARK: Violations

    /// Destinations that no module registered: pushed, and shown in the sheet.
    static func unregistered() -> SampleSession {
        let driver = ScenarioDriver(
            sessionID: "s-registry-bad-unregistered", seed: 411, startMilliseconds: start + 3_600_000, model: RegistrySystem.system.model)
        driver.step { $0.start() }
        driver.act("push my feature") { $0.push("MyFeatureNavData", on: "main") }
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

    /// A second sheet presented over the one shown, and a push on the sheet's stack after the
    /// sheet was dismissed.
    static func sheetOverSheet() -> SampleSession {
        let driver = ScenarioDriver(
            sessionID: "s-registry-bad-sheets", seed: 412, startMilliseconds: start + 3_700_000, model: RegistrySystem.system.model)
        driver.step { $0.start() }
        driver.act("settings in the sheet") { showInSheet($0, "SettingsNavData") }
        var events = driver.events
        events.append(
            Tamper.forge(after: events, .modalPresent(modal: "sheet", style: .sheet), correlation: "profile", id: "registry-forged-0101"))
        events.append(Tamper.forge(after: events, .modalDismiss(modal: "sheet"), correlation: "swipe", id: "registry-forged-0102"))
        events.append(
            Tamper.forge(
                after: events, .routePush(stack: "sheet", from: nil, to: "ProfileNavData", params: nil), correlation: "late-push",
                id: "registry-forged-0103"))
        return SampleSession(id: driver.router.sessionID, events: events)
    }
}
