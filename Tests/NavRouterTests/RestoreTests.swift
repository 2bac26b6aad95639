import NavEvents
import NavModel
import NavReplay
import NavRouter
import NavTestSupport
import Testing

@Suite("State restoration")
struct RestoreTests {
    @Test func aValidSnapshotIsAdoptedAndWritten() {
        let harness = RouterHarness(start: false)
        let snapshot = NavigationState(
            flow: "authorized", tab: "tab2", stacks: ["tab1": ["list", "detail"], "tab2": ["feed"]], modals: ["success"])
        let (result, events) = harness.expectActionResult { $0.restore(from: snapshot) }
        #expect(result == .restored)
        let completed = NavigationState(
            flow: "authorized", tab: "tab2", stacks: ["onboarding": [], "tab1": ["list", "detail"], "tab2": ["feed"]],
            modals: ["success"])
        #expect(events.payloads == [.sessionStart(snapshot: completed), modalScreen("success")])
        #expect(harness.state == completed)
        #expect(harness.router.snapshot() == completed)
        // The session goes on from there, and replays cleanly from the logged snapshot.
        harness.expectAction { $0.handleSuccessPrimary() }
        harness.expectAction { $0.pop() }
        #expect(harness.state.stacks["tab2"] == [])
        harness.expectCleanReplay()
    }

    @Test func aSnapshotRoundTripsThroughARouter() {
        let first = authorizedHarness()
        first.router.push("list")
        first.router.selectTab("tab2")
        first.router.push("feed")
        let second = RouterHarness(sessionID: "session-2", start: false)
        #expect(second.router.restore(from: first.router.snapshot()) == .restored)
        #expect(second.state == first.state)
        second.expectCleanReplay()
    }

    struct InvalidSnapshot: CustomTestStringConvertible, Sendable {
        var id: String
        var snapshot: NavigationState
        var reason: NavigationRefusal
        var testDescription: String { id }
    }

    static let invalidSnapshots: [InvalidSnapshot] = [
        InvalidSnapshot(
            id: "unknown flow", snapshot: NavigationState(flow: "settings", tab: nil, stacks: [:]),
            reason: .unknownFlow("settings")),
        InvalidSnapshot(
            id: "tabbed flow without tab", snapshot: NavigationState(flow: "authorized", tab: nil, stacks: [:]),
            reason: .unknownTab(nil, flow: "authorized")),
        InvalidSnapshot(
            id: "unknown tab", snapshot: NavigationState(flow: "authorized", tab: "tab9", stacks: [:]),
            reason: .unknownTab("tab9", flow: "authorized")),
        InvalidSnapshot(
            id: "unknown tab in a flow without tabs", snapshot: NavigationState(flow: "onboarding", tab: "tab9", stacks: [:]),
            reason: .unknownTab("tab9", flow: "onboarding")),
        InvalidSnapshot(
            id: "unknown stack", snapshot: NavigationState(flow: "onboarding", tab: "tab1", stacks: ["tab3": []]),
            reason: .unknownStack("tab3")),
        InvalidSnapshot(
            id: "unknown route (a renamed screen)",
            snapshot: NavigationState(flow: "authorized", tab: "tab1", stacks: ["tab1": ["list", "details"]]),
            reason: .unknownRoute("details", stack: "tab1")),
        InvalidSnapshot(
            id: "singleton twice",
            snapshot: NavigationState(flow: "authorized", tab: "tab1", stacks: ["tab1": ["settings", "list", "settings"]]),
            reason: .singletonAlreadyPresent("settings", stack: "tab1")),
        InvalidSnapshot(
            id: "modal not allowed in the flow",
            snapshot: NavigationState(flow: "authorized", tab: "tab1", stacks: [:], modals: ["paywall"]),
            reason: .modalNotAllowed("paywall", flow: "authorized")),
        InvalidSnapshot(
            id: "modal twice",
            snapshot: NavigationState(flow: "onboarding", tab: "tab1", stacks: [:], modals: ["success", "success"]),
            reason: .modalAlreadyPresented("success")),
        InvalidSnapshot(
            id: "unknown modal", snapshot: NavigationState(flow: "onboarding", tab: "tab1", stacks: [:], modals: ["toast"]),
            reason: .unknownModal("toast")),
    ]

    @Test(arguments: invalidSnapshots)
    func anInvalidSnapshotFallsBackToTheSafeRoot(_ invalid: InvalidSnapshot) {
        let harness = RouterHarness(start: false)
        let (result, events) = harness.expectActionResult { $0.restore(from: invalid.snapshot) }
        #expect(result == .fellBack(invalid.reason))
        #expect(events.payloads == [.sessionStart(snapshot: nil), screen("onboarding", nil)])
        #expect(harness.state == NavigationModel.poc.initialState)
        harness.expectCleanReplay()
    }

    @Test func theFoldAgreesThatTheInvalidSnapshotsAreInvalid() throws {
        // If the router accepted one of these, navreplay would report it: check the fold
        // flags each of them (so the router's checks are not stricter by mistake only).
        for invalid in Self.invalidSnapshots where invalid.id != "unknown tab in a flow without tabs" {
            var builder = EventBuilder()
            let audit = try auditSession([builder.start(snapshot: invalid.snapshot)])
            #expect(!audit.findings.isEmpty, "\(invalid.id)")
        }
    }
}
