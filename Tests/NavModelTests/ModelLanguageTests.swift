import Foundation
import NavModel
import Testing

/// The keys of model language 1.1: read, defaulted, checked with their JSON paths, and the
/// presentation questions the fold and the router share.
@Suite("Model language 1.1")
struct ModelLanguageTests {
    static let model = """
        {
          "model_version": 1,
          "name": "language",
          "$comment": "every key of model language 1.1",
          "initial": {"flow": "start"},
          "flows": {
            "start": {"stack": "intro"},
            "main": {"tabs": ["home", "more"], "presentation": "contexts"}
          },
          "stacks": {
            "intro": {"routes": ["welcome"]},
            "home": {"routes": ["chat", "page"], "singletons": ["chat"], "identity": "value", "pop_to": "first", "clamped_pops": true},
            "more": {"routes": ["page"]},
            "slot": {"routes": ["page"], "max_depth": 1},
            "editor": {"routes": ["page"]}
          },
          "modals": {
            "sheet": {"styles": ["cover"], "stack": "slot", "pushes": "below"},
            "editor": {"stack": "editor", "from": ["home"]},
            "widget": {"routes": ["page"], "from": ["home", "editor"]},
            "menu": {"from": ["editor"]}
          },
          "commands": {
            "logout": {"flow": "start", "tab": "home", "reset": ["home", "more"]}
          }
        }
        """

    @Test func everyKeyIsRead() throws {
        let model = try NavigationModel.load(json: Self.model)
        let home = try #require(model.stacks["home"])
        #expect(home.identity == .value)
        #expect(home.popTo == .first)
        #expect(home.clampedPops)
        #expect(home.maxDepth == nil)
        #expect(model.stacks["slot"]?.maxDepth == 1)
        #expect(model.flows["main"]?.presentation == .contexts)
        #expect(model.flows["start"]?.presentation == .stacked)
        #expect(model.modals["sheet"]?.pushes == .below)
        #expect(model.modals["sheet"]?.pushStack == nil)
        #expect(model.modals["editor"]?.pushStack == "editor")
        #expect(model.modals["widget"]?.routes == ["page"])
        #expect(model.modals["widget"]?.from == ["home", "editor"])
        #expect(model.commands["logout"]?.tab == "home")
        #expect(model.usesPresentationKeys)
    }

    @Test func aV1ModelHasTheDefaults() {
        let model = NavigationModel.pocWithDeepLinks
        for spec in model.stacks.values {
            #expect(spec.identity == .name && spec.popTo == .last && !spec.clampedPops && spec.maxDepth == nil)
        }
        for spec in model.flows.values { #expect(spec.presentation == .stacked) }
        for spec in model.modals.values { #expect(spec.from == nil && spec.routes == nil && spec.pushes == nil) }
        #expect(!model.usesPresentationKeys)
    }

    struct Broken: CustomTestStringConvertible, Sendable {
        var replace: String
        var with: String
        var path: String
        var message: String
        var testDescription: String { path }
    }

    static let broken: [Broken] = [
        Broken(
            replace: #""identity": "value""#, with: #""identity": "id""#, path: "$.stacks.home.identity",
            message: #"unknown value "id" (expected "name" or "value")"#),
        Broken(
            replace: #""pop_to": "first""#, with: #""pop_to": 1"#, path: "$.stacks.home.pop_to",
            message: #"expected "last" or "first", found a number"#),
        Broken(
            replace: #""clamped_pops": true"#, with: #""clamped_pops": "yes""#, path: "$.stacks.home.clamped_pops",
            message: "expected a boolean, found a string"),
        Broken(
            replace: #""max_depth": 1"#, with: #""max_depth": 0"#, path: "$.stacks.slot.max_depth",
            message: "expected an integer of at least 1, found 0"),
        Broken(
            replace: #""presentation": "contexts""#, with: #""presentation": "modal""#, path: "$.flows.main.presentation",
            message: #"unknown value "modal" (expected "stacked" or "contexts")"#),
        Broken(
            replace: #""from": ["home"]"#, with: #""from": ["home", "tab9"]"#, path: "$.modals.editor.from[1]",
            message: #"unknown stack "tab9" (not in $.stacks)"#),
        Broken(
            replace: #""from": ["home"]"#, with: #""from": []"#, path: "$.modals.editor.from",
            message: "a modal is presented from at least one stack"),
        Broken(
            replace: #""routes": ["page"], "from""#, with: #""routes": ["pages"], "from""#, path: "$.modals.widget.routes[0]",
            message: #"unknown route "pages" (no stack declares it)"#),
        Broken(
            replace: #""pushes": "below""#, with: #""pushes": "top""#, path: "$.modals.sheet.pushes",
            message: #"unknown value "top" (expected "own_stack" or "below")"#),
        Broken(
            replace: #""from": ["editor"]}"#, with: #""from": ["editor"], "pushes": "own_stack"}"#, path: "$.modals.menu.pushes",
            message: #""own_stack" needs the modal's own "stack""#),
        Broken(
            replace: #""tab": "home", "reset""#, with: #""tab": "settings", "reset""#, path: "$.commands.logout.tab",
            message: #"unknown tab "settings" (no flow has it)"#),
        Broken(
            replace: #""$comment": "every key of model language 1.1""#, with: #""$comment": ["a", "list"]"#, path: "$.$comment",
            message: "expected a string, found an array"),
        Broken(
            replace: #""max_depth": 1"#, with: #""max_depth": 1, "depth": 2"#, path: "$.stacks.slot.depth",
            message: "unknown key (allowed here: routes, singletons, positions, identity, pop_to, clamped_pops, max_depth)"),
    ]

    @Test(arguments: broken)
    func aBadKeyNamesItsPath(_ case_: Broken) {
        let text = Self.model.replacingOccurrences(of: case_.replace, with: case_.with)
        #expect(text != Self.model, "the fixture did not apply")
        #expect(throws: ModelError(path: case_.path, message: case_.message)) { try NavigationModel.load(json: text) }
    }

    @Test func pushesBelowASlotGoOnTheStackUnderIt() throws {
        let model = try NavigationModel.load(json: Self.model)
        let state = NavigationState(flow: "main", tab: "home", stacks: ["home": ["page"], "slot": ["page"]], modals: ["sheet"])
        #expect(model.activeStack(in: state) == "home")
        var withEditor = state
        withEditor.modals.append("editor")
        #expect(model.activeStack(in: withEditor) == "editor")
    }

    @Test func aModalIsPresentedFromAContextThatIsShownAndFree() throws {
        let model = try NavigationModel.load(json: Self.model)
        let top: (String) -> String? = { ["home": "page", "editor": "page"][$0] }
        func problem(_ modal: String, over presented: [String], flow: String = "main") -> NavigationModel.PresentationProblem? {
            model.presentationProblem(of: modal, flow: flow, tab: flow == "main" ? "home" : nil, presented: presented, top: top)
        }
        #expect(problem("editor", over: []) == nil)
        #expect(problem("widget", over: ["editor"]) == nil)  // from the editor's own context
        #expect(problem("menu", over: []) == .contextNotShown(from: ["editor"]))
        // The home context shows the editor: a second modal from it is ignored by the app.
        #expect(problem("editor", over: ["widget"]) == .contextShowsModal(context: "home", modal: "widget"))
        #expect(problem("menu", over: ["editor", "widget"]) == .contextShowsModal(context: "editor", modal: "widget"))
        // Over a route the widget does not overlay.
        let atRoot = model.presentationProblem(of: "widget", flow: "main", tab: "home", presented: [], top: { _ in nil })
        #expect(atRoot == .notOnRoute(route: nil, stack: "home", routes: ["page"]))
    }

    @Test func aStackDoesNotPopWhileItsContextShowsAModal() throws {
        let model = try NavigationModel.load(json: Self.model)
        #expect(model.modalCovering("home", flow: "main", presented: []) == nil)
        #expect(model.modalCovering("home", flow: "main", presented: ["editor"]) == "editor")
        #expect(model.modalCovering("editor", flow: "main", presented: ["editor"]) == nil)
        #expect(model.modalCovering("editor", flow: "main", presented: ["editor", "menu"]) == "menu")
        #expect(model.modalCovering("intro", flow: "start", presented: ["sheet"]) == nil)  // a stacked flow
    }

    @Test func aWidgetOffItsPageIsFound() throws {
        let model = try NavigationModel.load(json: Self.model)
        let off = model.modalsOffTheirRoutes(flow: "main", tab: "home", presented: ["widget"], top: { _ in nil })
        #expect(off.map(\.modal) == ["widget"])
        #expect(off.first?.stack == "home")
        #expect(model.modalsOffTheirRoutes(flow: "main", tab: "home", presented: ["widget"], top: { _ in "page" }).isEmpty)
    }
}
