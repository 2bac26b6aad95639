import NavEvents
import NavJSON
import NavModel
import NavReplay
import Testing

/// A `session_start` snapshot is checked with `flow.unknown`, `tab.invalid`, `stack.unknown`,
/// `route.unknown`, `route.singleton`, `modal.already_presented` and `modal.not_allowed`, then
/// adopted (docs/events-and-rules.md, Sequence).
@Suite("Snapshot rules")
struct SnapshotRuleTests {
    struct Snapshot: CustomTestStringConvertible, Sendable {
        var id: String
        var json: String
        var expected: [String]
        var adopted: NavigationState
        var testDescription: String { id }
    }

    static func state(
        _ flow: String, tab: String?, tab1: [String] = [], tab2: [String] = [], onboarding: [String] = [],
        modals: [String] = []
    ) -> NavigationState {
        NavigationState(flow: flow, tab: tab, stacks: ["onboarding": onboarding, "tab1": tab1, "tab2": tab2], modals: modals)
    }

    static let snapshots: [Snapshot] = [
        Snapshot(
            id: "a clean restored state",
            json: #"{"flow":"authorized","tab":"tab2","stacks":{"tab1":["list","detail"],"tab2":["feed"]},"modals":["success"]}"#,
            expected: [], adopted: state("authorized", tab: "tab2", tab1: ["list", "detail"], tab2: ["feed"], modals: ["success"])),
        Snapshot(
            id: "a flow without tabs and a null tab",
            json: #"{"flow":"onboarding","tab":null,"stacks":{"onboarding":["welcome"]},"modals":["paywall"]}"#,
            expected: [], adopted: state("onboarding", tab: nil, onboarding: ["welcome"], modals: ["paywall"])),
        Snapshot(
            id: "a flow without tabs keeps a tab",
            json: #"{"flow":"onboarding","tab":"tab2","stacks":{},"modals":[]}"#,
            expected: [], adopted: state("onboarding", tab: "tab2")),
        Snapshot(
            id: "an undeclared flow",
            json: #"{"flow":"ghost","tab":null,"stacks":{},"modals":[]}"#,
            expected: ["flow.unknown@0"], adopted: state("ghost", tab: nil)),
        Snapshot(
            id: "a tab the flow does not have",
            json: #"{"flow":"authorized","tab":"tab3","stacks":{},"modals":[]}"#,
            expected: ["tab.invalid@0"], adopted: state("authorized", tab: "tab3")),
        Snapshot(
            id: "a null tab in a flow with tabs",
            json: #"{"flow":"authorized","tab":null,"stacks":{},"modals":[]}"#,
            expected: ["tab.invalid@0"], adopted: state("authorized", tab: nil)),
        Snapshot(
            id: "an undeclared stack is dropped",
            json: #"{"flow":"authorized","tab":"tab1","stacks":{"tab9":["x"],"tab1":["list"]},"modals":[]}"#,
            expected: ["stack.unknown@0"], adopted: state("authorized", tab: "tab1", tab1: ["list"])),
        Snapshot(
            id: "an undeclared route is kept",
            json: #"{"flow":"authorized","tab":"tab1","stacks":{"tab1":["list","feed"]},"modals":[]}"#,
            expected: ["route.unknown@0"], adopted: state("authorized", tab: "tab1", tab1: ["list", "feed"])),
        Snapshot(
            id: "a singleton twice",
            json: #"{"flow":"authorized","tab":"tab1","stacks":{"tab1":["settings","detail","settings"]},"modals":[]}"#,
            expected: ["route.singleton@0"],
            adopted: state("authorized", tab: "tab1", tab1: ["settings", "detail", "settings"])),
        Snapshot(
            id: "a modal twice is kept once",
            json: #"{"flow":"authorized","tab":"tab1","stacks":{},"modals":["success","success"]}"#,
            expected: ["modal.already_presented@0"], adopted: state("authorized", tab: "tab1", modals: ["success"])),
        Snapshot(
            id: "a modal not allowed in the flow",
            json: #"{"flow":"authorized","tab":"tab1","stacks":{},"modals":["paywall"]}"#,
            expected: ["modal.not_allowed@0"], adopted: state("authorized", tab: "tab1", modals: ["paywall"])),
        Snapshot(
            id: "an undeclared modal",
            json: #"{"flow":"onboarding","tab":null,"stacks":{},"modals":["ghost"]}"#,
            expected: ["modal.not_allowed@0"], adopted: state("onboarding", tab: nil, modals: ["ghost"])),
    ]

    @Test("a snapshot is checked, then adopted", arguments: snapshots)
    func snapshotIsCheckedThenAdopted(_ snapshot: Snapshot) throws {
        var log = SessionLog()
        log.add(.start(snapshot: snapshot.json))

        let result = try audit(log)

        #expect(summary(result) == snapshot.expected)
        #expect(result.finalState == snapshot.adopted)
        for finding in result.findings {
            #expect(finding.eventName == .sessionStart)
            #expect(finding.stateAfter == snapshot.adopted)
        }
    }

    @Test func aSnapshotBeyondMaxModalsIsNotAllowed() throws {
        let model = try makeModel(ModalAndScreenRuleTests.widgetModel)
        var log = SessionLog()
        log.add(.start(snapshot: #"{"flow":"pages","tab":null,"stacks":{"pages":["home"]},"modals":["chat","player"]}"#))

        let result = try audit(log, model: model)

        #expect(summary(result) == ["modal.not_allowed@0"])
        #expect(result.finalState.modals == ["chat", "player"])
    }

    @Test func aSnapshotFindingsSeverities() throws {
        var log = SessionLog()
        log.add(
            .start(
                snapshot:
                    #"{"flow":"authorized","tab":"tab1","stacks":{"tab1":["feed"]},"modals":["success","success","paywall"]}"#
            ))

        let result = try audit(log)

        #expect(summary(result) == ["modal.already_presented@0", "modal.not_allowed@0", "route.unknown@0"])
        #expect(result.findings.map(\.severity) == [.warning, .error, .error])
    }

    @Test func theFoldContinuesFromTheAdoptedSnapshot() throws {
        var log = SessionLog()
        log.add(.start(snapshot: #"{"flow":"authorized","tab":"tab2","stacks":{"tab2":["feed","post"]},"modals":[]}"#))
        log.add(.view("tab2", "post"))
        log.add(.pop("tab2", from: "post", to: "feed"))
        log.add(.tab(from: "tab2", to: "tab1"))
        log.add(.view("tab1", nil))

        let result = try audit(log)

        #expect(summary(result) == [])
        #expect(result.screens == [.stack("tab2", route: "post"), .stack("tab2", route: "feed"), .stack("tab1", route: nil)])
    }

    @Test func aSessionStartWithoutSnapshotStartsFromTheModelsInitialState() throws {
        let result = try audit(SessionLog.started())

        #expect(summary(result) == [])
        #expect(result.finalState == NavigationModel.poc.initialState)
        #expect(result.finalState == Self.state("onboarding", tab: "tab1"))
    }
}
