import NavEvents
import NavModel
import NavReplay
import NavRouter
import NavSamples
import NavTestSupport
import Testing

/// akulahere/SwiftUI-Navigation's `AppRouterRouteCommandTests.swift`, on the router under the
/// model of the PoC's code (`SampleLogs/poc.model.json`): the state each test sets up is
/// restored from a snapshot, the same command ends in the same state, the log audits clean, and
/// a command that does less than the code's is flagged. The clamped pops of
/// `AppRouter+Tab1Routing.swift` (`tab1Pop(_:)`) are here too.
///
/// Not stated: `logoutToOnboarding_resetsStateAndSelectsTab1` sets `isPaywallPresented` while
/// the flow is authorized, where the paywall's sheet, attached to the onboarding coordinator,
/// is not shown; the model allows the paywall in onboarding only, so that state starts
/// without it.
@Suite("SwiftUI-Navigation AppRouterRouteCommandTests")
struct AppRouterRouteCommandTests {
    static let model = PoCAppSystem.system.model

    static func restored(_ state: NavigationState) -> RouterHarness {
        let harness = RouterHarness(model: model, start: false)
        #expect(harness.router.restore(from: state) == .restored)
        return harness
    }

    /// What every test expects after its command: all three stacks empty, no paywall.
    static func expectReset(_ harness: RouterHarness, flow: String, tab: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(harness.state.flow == flow, sourceLocation: sourceLocation)
        #expect(harness.state.tab == tab, sourceLocation: sourceLocation)
        for stack in ["onboarding", "tab1", "tab2"] {
            #expect(harness.state.stacks[stack] == [], "\(stack)", sourceLocation: sourceLocation)
        }
        #expect(!harness.state.modals.contains("paywall"), sourceLocation: sourceLocation)
    }

    @Test func goAuthorizedTab1Root_resetsStateAndSelectsTab1() {
        let harness = Self.restored(
            NavigationState(
                flow: "onboarding", tab: "tab2",
                stacks: ["onboarding": ["step2", "step3"], "tab1": ["screen2", "screen3"], "tab2": ["a", "b"]], modals: ["paywall"]))
        harness.expectAction { #expect($0.apply(command: "goAuthorizedTab1Root") == .applied) }
        Self.expectReset(harness, flow: "authorized", tab: "tab1")
        harness.expectCleanReplay()
    }

    @Test func logoutToOnboarding_resetsStateAndSelectsTab1() {
        let harness = Self.restored(
            NavigationState(
                flow: "authorized", tab: "tab2", stacks: ["onboarding": ["step2"], "tab1": ["screen2"], "tab2": ["a", "b", "c"]]))
        harness.expectAction { #expect($0.apply(command: "logoutToOnboarding") == .applied) }
        Self.expectReset(harness, flow: "onboarding", tab: "tab1")
        harness.expectCleanReplay()
    }

    @Test func handleSuccessPrimary_appliesRouteCommandAndClearsPayload() {
        let harness = Self.restored(
            NavigationState(
                flow: "onboarding", tab: "tab1", stacks: ["onboarding": ["step3"], "tab1": ["screen4"], "tab2": ["a"]],
                modals: ["paywall"]))
        harness.expectAction {
            $0.presentSuccess(
                SuccessPayload(title: "Done", message: "Switch", primaryButton: "Go", primaryAction: .command("goAuthorizedTab2Root")),
                style: .sheet)
        }
        let events = harness.expectAction { #expect($0.handleSuccessPrimary() == .applied) }
        // The payload is cleared first, then the command runs.
        #expect(events.first?.payload == .modalDismiss(modal: "success"))
        #expect(harness.router.successPayload == nil)
        Self.expectReset(harness, flow: "authorized", tab: "tab2")
        #expect(harness.state.modals.isEmpty)
        harness.expectCleanReplay()
    }

    /// `tab1Pop(_:)`: `min(max(n, 0), count)`, a no-op at 0.
    @Test func tab1PopClampsAnyCount() {
        let harness = RouterHarness(model: Self.model)
        harness.expectAction { $0.apply(command: "goAuthorizedTab1Root") }
        for route in ["screen2", "screen3", "screen4"] { harness.expectAction { $0.push(route) } }
        #expect(harness.router.pop(0) == .unchanged)
        #expect(harness.router.pop(-1) == .unchanged)
        harness.expectAction { $0.pop(2) }
        harness.expectAction { $0.pop(5) }  // "←← 2 back" and more, with one screen left
        #expect(harness.state.stacks["tab1"] == [])
        #expect(harness.router.pop(2) == .unchanged)  // "Pop back 2 (no-op on root)"
        harness.expectCleanReplay()
    }

    /// What the code's command handler always does, missing from a log: the paywall dismissed
    /// and tab2 reset.
    @Test func aCommandThatDoesLessThanTheCodesIsFlagged() throws {
        var builder = EventBuilder()
        let snapshot = NavigationState(flow: "onboarding", tab: "tab1", stacks: ["tab2": ["a"]], modals: ["paywall"])
        let events =
            [builder.start(snapshot: snapshot)]
            + builder.group([
                .commandApplied(command: "goAuthorizedTab1Root", fromFlow: "onboarding", toFlow: "authorized"),
                .flowSwitch(from: "onboarding", to: "authorized"),
            ])
            // The document's routes are not the code's.
            + [builder.make(.routePush(stack: "tab1", from: nil, to: "list", params: nil))]
        let audit = try auditSession(events, model: Self.model)
        #expect(audit.findings.map { "\($0.rule.rawValue)@\($0.seq ?? -1)" } == ["command.postcondition@1", "route.unknown@3"])
        let postcondition = try #require(audit.findings.first)
        #expect(postcondition.message.contains("modals are still presented (paywall); stack(s) tab2 never emptied"))
    }
}
