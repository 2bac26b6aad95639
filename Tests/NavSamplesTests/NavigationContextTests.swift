import NavEvents
import NavModel
import NavReplay
import NavRouter
import NavSamples
import NavTestSupport
import Testing

/// wizzyfizzy/Budgetie's `NavigationContextTests.swift` and the AppNavigation module's
/// `NavigationRegistryTests.swift`, on the router under `SampleLogs/registry/model.json`: a push
/// fills the path and leaves the sheet slot empty, a sheet fills the slot and leaves the path
/// empty, an unregistered destination resolves to nothing; each log audits clean, and what the
/// app cannot do is flagged.
///
/// Not stated: the registry itself (which builder a type resolves to, and the
/// `typeErasedEqual` comparison of views): the model knows the registered types by name only.
@Suite("Budgetie NavigationContextTests")
struct NavigationContextTests {
    static let model = RegistrySystem.system.model

    @Test func testNavigationHandler_withPush() {
        let harness = RouterHarness(model: Self.model)
        harness.expectAction { #expect(RegistrySystem.push($0, "OnboardingNavData") == .applied) }
        #expect(harness.state.stacks["main"]?.count == 1)
        #expect(harness.state.modals.isEmpty)
        harness.expectCleanReplay()
    }

    @Test func testNavigationHandler_withSheet() {
        let harness = RouterHarness(model: Self.model)
        harness.expectAction { #expect(RegistrySystem.showInSheet($0, "OnboardingNavData") == .applied) }
        #expect(harness.state.modals == ["sheet"])
        #expect(harness.state.stacks["sheet"] == ["OnboardingNavData"])
        #expect(harness.state.stacks["main"]?.count == 0)
        // `HomeView` shows the slot as a full-screen cover.
        #expect(harness.events.contains { $0.payload == .modalPresent(modal: "sheet", style: .cover) })
        harness.expectCleanReplay()
    }

    /// `resolveView` returns nil for a type no module registered: nothing is shown.
    @Test func testRegistryResolveView_forUnregisteredView() {
        let harness = RouterHarness(model: Self.model)
        #expect(harness.router.push("TestAnotherNavigationData") == .refused(.unknownRoute("TestAnotherNavigationData", stack: "main")))
        #expect(RegistrySystem.showInSheet(harness.router, "TestAnotherNavigationData") != .applied)
        #expect(harness.state.modals.isEmpty)
    }

    /// The slot holds one view: a second `.sheet` replaces it, and a `.push` lands on the path
    /// behind the cover.
    @Test func theSlotHoldsOneViewAndPushesLandBehindIt() {
        let harness = RouterHarness(model: Self.model)
        harness.expectAction { RegistrySystem.showInSheet($0, "OnboardingNavData") }
        let pushed = harness.expectAction { RegistrySystem.push($0, "MyFeatureNavData") }
        #expect(pushed.payloads == [.routePush(stack: "main", from: nil, to: "MyFeatureNavData", params: nil)])  // no screen_view: hidden
        let replaced = harness.expectAction { RegistrySystem.showInSheet($0, "MyFeatureNavData") }
        #expect(replaced.first?.payload == .routeReplace(stack: "sheet", from: "OnboardingNavData", to: "MyFeatureNavData", params: nil))
        #expect(harness.router.push("OnboardingNavData", on: "sheet") == .refused(.stackFull(stack: "sheet", maxDepth: 1)))
        harness.expectAction { $0.dismiss("sheet") }
        #expect(harness.router.visibleScreen == .stack("main", route: "MyFeatureNavData"))
        harness.expectCleanReplay()
    }

    @Test func aLogOfWhatTheAppCannotDoIsFlagged() throws {
        var builder = EventBuilder()
        let events =
            [builder.start()]
            + builder.group([
                .modalPresent(modal: "sheet", style: .sheet),  // the app shows a cover
                .routePush(stack: "sheet", from: nil, to: "OnboardingNavData", params: nil),
            ])
            + [
                builder.make(.routePush(stack: "sheet", from: "OnboardingNavData", to: "MyFeatureNavData", params: nil)),  // a second view
                builder.make(.routePush(stack: "main", from: nil, to: "CheckoutNavData", params: nil)),  // unregistered
            ]
        let audit = try auditSession(events, model: Self.model)
        #expect(
            audit.findings.map { "\($0.rule.rawValue)@\($0.seq ?? -1)" } == [
                "modal.not_allowed@1", "stack.out_of_range@3", "route.unknown@4",
            ])
    }
}

extension Array where Element == NavigationEvent {
    fileprivate var payloads: [NavigationEvent.Payload] { map(\.payload) }
}
