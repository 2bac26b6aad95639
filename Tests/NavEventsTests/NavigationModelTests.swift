import Foundation
import NavModel
import Testing

@Suite struct NavigationModelTests {
    @Test func theBuiltInModelIsThePoC() {
        let model = NavigationModel.poc
        #expect(model.name == "poc")
        #expect(model.initialState == NavigationState(flow: "onboarding", tab: "tab1", stacks: ["onboarding": [], "tab1": [], "tab2": []]))
        #expect(model.commands["logoutToOnboarding"] == CommandSpec(flow: "onboarding", reset: ["onboarding", "tab1", "tab2"], dismissModals: true))
        #expect(model.stacks["tab1"]?.singletons == ["settings"])
        #expect(model.activeStack(flow: "authorized", tab: "tab2") == "tab2")
        #expect(model.activeStack(flow: "onboarding", tab: "tab2") == "onboarding")
    }

    struct BrokenModel: CustomTestStringConvertible, Sendable {
        var id: String
        var replace: String
        var with: String
        var path: String
        var testDescription: String { id }
    }

    static let broken: [BrokenModel] = [
        BrokenModel(id: "flow with an unknown stack", replace: #""onboarding": {"stack": "onboarding"}"#, with: #""onboarding": {"stack": "nowhere"}"#, path: "$.flows.onboarding.stack"),
        BrokenModel(id: "tab without a stack", replace: #""tabs": ["tab1", "tab2"]"#, with: #""tabs": ["tab1", "tab3"]"#, path: "$.flows.authorized.tabs[1]"),
        BrokenModel(id: "command with an unknown flow", replace: #""goAuthorizedTab1Root": {"flow": "authorized""#, with: #""goAuthorizedTab1Root": {"flow": "nowhere""#, path: "$.commands.goAuthorizedTab1Root.flow"),
        BrokenModel(id: "command with an unknown tab", replace: #""tab": "tab2", "reset""#, with: #""tab": "tab9", "reset""#, path: "$.commands.goAuthorizedTab2Root.tab"),
        BrokenModel(id: "reset of an unknown stack", replace: #""reset": ["onboarding", "tab1", "tab2"]"#, with: #""reset": ["onboarding", "tab1", "tab7"]"#, path: "$.commands.logoutToOnboarding.reset[2]"),
        BrokenModel(id: "modal in an unknown flow", replace: #""paywall": {"flows": ["onboarding"]}"#, with: #""paywall": {"flows": ["signup"]}"#, path: "$.modals.paywall.flows[0]"),
        BrokenModel(id: "singleton that is not a route", replace: #""singletons": ["settings"]"#, with: #""singletons": ["about"]"#, path: "$.stacks.tab1.singletons[0]"),
        BrokenModel(id: "unknown initial flow", replace: #""initial": {"flow": "onboarding""#, with: #""initial": {"flow": "home""#, path: "$.initial.flow"),
        BrokenModel(id: "typo in a key", replace: #""singletons""#, with: #""singleton""#, path: "$.stacks.tab1.singleton"),
        BrokenModel(id: "deep link with an unknown command", replace: #""fallback_command": "goAuthorizedTab1Root""#, with: #""fallback_command": "goHome""#, path: "$.deep_links.fallback_command"),
    ]

    @Test(arguments: broken)
    func aBrokenReferenceNamesItsPath(_ case_: BrokenModel) {
        let text = NavigationModel.pocJSON.replacingOccurrences(of: case_.replace, with: case_.with)
        #expect(text != NavigationModel.pocJSON, "the fixture did not apply")
        #expect(throws: ModelError.self) { try NavigationModel.load(json: text) }
        // `load` throws `ModelError` only (typed throws).
        do {
            _ = try NavigationModel.load(json: text)
        } catch {
            #expect(error.path == case_.path, "\(error)")
        }
    }
}
