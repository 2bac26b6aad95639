import Foundation
import NavModel
import NavTestSupport
import Testing

@Suite struct NavigationModelTests {
    @Test func theBuiltInModelIsThePoC() {
        let model = NavigationModel.poc
        #expect(model.name == "poc")
        #expect(model.initialState == NavigationState(flow: "onboarding", tab: "tab1", stacks: ["onboarding": [], "tab1": [], "tab2": []]))
        #expect(
            model.commands["logoutToOnboarding"]
                == CommandSpec(flow: "onboarding", reset: ["onboarding", "tab1", "tab2"], dismissModals: true))
        #expect(model.stacks["tab1"]?.singletons == ["settings"])
        #expect(model.activeStack(flow: "authorized", tab: "tab2") == "tab2")
        #expect(model.activeStack(flow: "onboarding", tab: "tab2") == "onboarding")
    }

    @Test func theBuiltInModelIsTheContractsDefaultExactly() throws {
        // docs/events-and-rules.md gives the default model's file; the contract is beside a checkout of
        // the project's workspace, not in the project, so this runs only where it is.
        let contract = Repository.root.deletingLastPathComponent().appendingPathComponent("shared/CONTRACT.md")
        guard let text = try? String(contentsOf: contract, encoding: .utf8) else { return }
        let section = try #require(text.range(of: "## 4.").map { text[$0.upperBound...] })
        let start = try #require(section.range(of: "```json\n"))
        let end = try #require(section[start.upperBound...].range(of: "```"))
        let json = String(section[start.upperBound..<end.lowerBound])
        #expect(try NavigationModel.load(json: json) == NavigationModel.poc)
        #expect(NavigationModel.poc.deepLinks == DeepLinkTable())
        #expect(!NavigationModel.pocWithDeepLinks.deepLinks.links.isEmpty)
    }

    struct BrokenModel: CustomTestStringConvertible, Sendable {
        var id: String
        var replace: String
        var with: String
        var path: String
        var testDescription: String { id }
    }

    static let broken: [BrokenModel] = [
        BrokenModel(
            id: "flow with an unknown stack", replace: #""onboarding": {"stack": "onboarding"}"#,
            with: #""onboarding": {"stack": "nowhere"}"#, path: "$.flows.onboarding.stack"),
        BrokenModel(
            id: "tab without a stack", replace: #""tabs": ["tab1", "tab2"]"#, with: #""tabs": ["tab1", "tab3"]"#,
            path: "$.flows.authorized.tabs[1]"),
        BrokenModel(
            id: "command with an unknown flow", replace: #""goAuthorizedTab1Root": {"flow": "authorized""#,
            with: #""goAuthorizedTab1Root": {"flow": "nowhere""#, path: "$.commands.goAuthorizedTab1Root.flow"),
        BrokenModel(
            id: "command with an unknown tab", replace: #""tab": "tab2", "reset""#, with: #""tab": "tab9", "reset""#,
            path: "$.commands.goAuthorizedTab2Root.tab"),
        BrokenModel(
            id: "reset of an unknown stack", replace: #""reset": ["onboarding", "tab1", "tab2"]"#,
            with: #""reset": ["onboarding", "tab1", "tab7"]"#, path: "$.commands.logoutToOnboarding.reset[2]"),
        BrokenModel(
            id: "modal in an unknown flow", replace: #""paywall": {"flows": ["onboarding"]}"#, with: #""paywall": {"flows": ["signup"]}"#,
            path: "$.modals.paywall.flows[0]"),
        BrokenModel(
            id: "singleton that is not a route", replace: #""singletons": ["settings"]"#, with: #""singletons": ["about"]"#,
            path: "$.stacks.tab1.singletons[0]"),
        BrokenModel(
            id: "unknown initial flow", replace: #""initial": {"flow": "onboarding""#, with: #""initial": {"flow": "home""#,
            path: "$.initial.flow"),
        BrokenModel(id: "typo in a key", replace: #""singletons""#, with: #""singleton""#, path: "$.stacks.tab1.singleton"),
        BrokenModel(
            id: "deep link steps that are not an array", replace: #""steps": [{"stack": "tab1", "push": "list"}]}"#,
            with: #""steps": {"stack": "tab1", "push": "list"}}"#, path: "$.deep_links.links[1].steps"),
        BrokenModel(
            id: "deep link with an unknown command", replace: #""fallback_command": "goAuthorizedTab1Root""#,
            with: #""fallback_command": "goHome""#, path: "$.deep_links.fallback_command"),
    ]

    @Test(arguments: broken)
    func aBrokenReferenceNamesItsPath(_ case_: BrokenModel) {
        let text = NavigationModel.pocWithDeepLinksJSON.replacingOccurrences(of: case_.replace, with: case_.with)
        #expect(text != NavigationModel.pocWithDeepLinksJSON, "the fixture did not apply")
        #expect(throws: ModelError.self) { try NavigationModel.load(json: text) }
        // `load` throws `ModelError` only (typed throws).
        do {
            _ = try NavigationModel.load(json: text)
        } catch {
            #expect(error.path == case_.path, "\(error)")
        }
    }

    /// Integers in a model follow the events' rule (docs/events-and-rules.md: `1.0` is not an integer), and
    /// the message says why, as JSON Schema's `integer` would accept them.
    @Test(arguments: [
        (
            #""model_version": 1,"#, #""model_version": 1.0,"#, "$.model_version",
            "expected the integer 1, found 1.0 (an integer is written without a fraction or an exponent)"
        ),
        (#""model_version": 1,"#, #""model_version": 2,"#, "$.model_version", "unsupported model version 2 (this NavReplay reads 1)"),
        (#""model_version": 1,"#, #""model_version": "1","#, "$.model_version", "expected the integer 1, found a string"),
        (
            #""onboarding": {"stack": "onboarding"}"#, #""onboarding": {"stack": "onboarding", "max_modals": 1e0}"#,
            "$.flows.onboarding.max_modals",
            "expected an integer of at least 0, found 1e0 (an integer is written without a fraction or an exponent)"
        ),
        (
            #""onboarding": {"stack": "onboarding"}"#, #""onboarding": {"stack": "onboarding", "max_modals": -1}"#,
            "$.flows.onboarding.max_modals", "expected an integer of at least 0, found -1"
        ),
    ])
    func integersAreWrittenAsIntegers(replace: String, with: String, path: String, message: String) {
        let text = NavigationModel.pocJSON.replacingOccurrences(of: replace, with: with)
        #expect(text != NavigationModel.pocWithDeepLinksJSON, "the fixture did not apply")
        do {
            _ = try NavigationModel.load(json: text)
            Issue.record("loaded")
        } catch {
            #expect(error.path == path)
            #expect(error.message == message)
        }
    }

    @Test func aFlowWithOneStackMayStartOnAnyFlowsTab() throws {
        // The PoC starts in onboarding (one stack) with tab1, authorized's tab, selected for later.
        let other = NavigationModel.pocJSON.replacingOccurrences(of: #""tab": "tab1"},"#, with: #""tab": "tab2"},"#)
        #expect(other != NavigationModel.pocJSON)
        #expect(try NavigationModel.load(json: other).initialState.tab == "tab2")
        let unknown = NavigationModel.pocJSON.replacingOccurrences(of: #""tab": "tab1"},"#, with: #""tab": "tab9"},"#)
        #expect(throws: ModelError(path: "$.initial.tab", message: "unknown tab \"tab9\" (no flow has it)")) {
            try NavigationModel.load(json: unknown)
        }
    }
}
