import Foundation
import NavModel
import NavTestSupport
import Testing

/// The model file's extensions for the seed systems: flow-bound positions, stacks shared by
/// flows, modals with their own stack, modal styles.
@Suite("Model extensions")
struct ModelExtensionTests {
    @Test func theExtensionModelLoadsWithEveryNewKey() throws {
        let model = try NavigationModel.load(json: extensionModelJSON)
        #expect(model.stacks["path"]?.positions[1] == PositionRequirement(index: 0, oneOf: ["widgets"], flows: ["data"]))
        #expect(model.modals["sheet"] == ModalSpec(styles: ["sheet"], stack: "sheetStack"))
        #expect(model.owningModal(of: "sheetStack") == "sheet")
        #expect(model.owningModal(of: "path") == nil)
        // One stack, three flows.
        #expect(["hub", "data", "chat"].allSatisfy { model.flow($0, owns: "path") })
        #expect(model.owningFlow(of: "path") == "hub")
    }

    @Test func aPositionBoundToFlowsHoldsOnlyInThem() {
        let requirement = PositionRequirement(index: 0, oneOf: ["widgets"], flows: ["data"])
        #expect(requirement.allows("widgets", at: 0, in: "data"))
        #expect(!requirement.allows("editor", at: 0, in: "data"))
        #expect(requirement.allows("editor", at: 0, in: "chat"))
        #expect(requirement.allows("editor", at: 1, in: "data"))
        #expect(!PositionRequirement(index: 0, oneOf: []).allows("widgets", at: 0, in: "any"))
    }

    @Test func theActiveStackIsTheTopMostModalStackElseTheFlows() {
        let model = extensionModel
        var state = NavigationState(flow: "tabs", tab: "b", stacks: ["a": [], "b": ["x"], "sheetStack": []], modals: [])
        #expect(model.activeStack(in: state) == "b")
        state.modals = ["sheet", "cover"]  // a cover without a stack shares the sheet's
        #expect(model.activeStack(in: state) == "sheetStack")
        #expect(model.visibleScreen(in: state) == .modal("cover"))
        state.modals = ["sheet"]
        #expect(model.visibleScreen(in: state) == .modal("sheet"))
        state.stacks["sheetStack"] = ["s1"]
        #expect(model.visibleScreen(in: state) == .stack("sheetStack", route: "s1"))
        #expect(model.owns("sheetStack", in: state))
        state.modals = []
        #expect(!model.owns("sheetStack", in: state))
        #expect(model.canonicalScreen(.stack("sheetStack", route: nil)) == .modal("sheet"))
        #expect(model.canonicalScreen(.stack("b", route: nil)) == .stack("b", route: nil))
    }

    @Test func theDefaultStyleOfAPresentStepIsTheModalsFirstStyle() throws {
        let model = try NavigationModel.load(json: extensionModelJSON)
        #expect(model.deepLinks.links[2].steps[0] == .present(modal: "sheet", style: "sheet"))
    }

    struct Broken: CustomTestStringConvertible, Sendable {
        var id: String
        var replace: String
        var with: String
        var path: String
        var testDescription: String { id }
    }

    static let broken: [Broken] = [
        Broken(
            id: "a position bound to an unknown flow", replace: #""flows": ["data"]}"#, with: #""flows": ["dta"]}"#,
            path: "$.stacks.path.positions[1].flows[0]"),
        Broken(
            id: "a position with an unknown key", replace: #""one_of": [], "flows""#, with: #""one_of": [], "flow""#,
            path: "$.stacks.path.positions[0].flow"),
        Broken(
            id: "a modal's unknown stack", replace: #""stack": "sheetStack""#, with: #""stack": "nowhere""#,
            path: "$.modals.sheet.stack"),
        Broken(
            id: "a modal's stack owned by a flow", replace: #""stack": "sheetStack""#, with: #""stack": "a""#,
            path: "$.modals.sheet.stack"),
        Broken(
            id: "a stack owned by two modals", replace: #""cover": {"styles": ["cover"]}"#,
            with: #""cover": {"styles": ["cover"], "stack": "sheetStack"}"#, path: "$.modals.cover.stack"),
        Broken(
            id: "an unknown style", replace: #""styles": ["cover"]"#, with: #""styles": ["popover"]"#,
            path: "$.modals.cover.styles[0]"),
        Broken(
            id: "a present step in a style its modal does not allow", replace: #"{"present": "sheet"}"#,
            with: #"{"present": "sheet", "style": "cover"}"#, path: "$.deep_links.links[2].steps[0].style"),
        Broken(
            id: "a flow sharing a stack that is not declared", replace: #""chat": {"stack": "path"}"#,
            with: #""chat": {"stack": "paths"}"#, path: "$.flows.chat.stack"),
    ]

    @Test(arguments: broken)
    func aBrokenExtensionNamesItsPath(_ test: Broken) {
        let text = extensionModelJSON.replacingOccurrences(of: test.replace, with: test.with)
        #expect(text != extensionModelJSON, "the fixture did not apply")
        do {
            _ = try NavigationModel.load(json: text)
            Issue.record("the model loaded")
        } catch {
            #expect(error.path == test.path, "\(error)")
        }
    }

    @Test(.enabled(if: Repository.pythonHasJSONSchema, "needs python3 with jsonschema (scripts/test installs it)"))
    func theSchemaAcceptsTheExtensionsAndRejectsTheirTypos() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nav-systems-model-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = [
            ("good.json", extensionModelJSON),
            ("bad-style.json", extensionModelJSON.replacingOccurrences(of: #"["cover"]"#, with: #"["popover"]"#)),
            ("bad-flows.json", extensionModelJSON.replacingOccurrences(of: #""flows": ["data"]"#, with: #""flows": "data""#)),
            ("bad-stack.json", extensionModelJSON.replacingOccurrences(of: #""stack": "sheetStack""#, with: #""stack": 3"#)),
        ]
        var paths: [String] = []
        for (name, text) in files {
            let url = directory.appendingPathComponent(name)
            try Data(text.utf8).write(to: url)
            paths.append(url.path)
        }
        let result = try Repository.run(
            "/usr/bin/env",
            [
                "python3", Repository.path("scripts/schema_conformance.py"), "--model-schema",
                Repository.path("Schemas/navigation-model.v1.schema.json"),
            ] + paths)
        let rows = result.stdout.split(separator: "\n").map(String.init)
        #expect(rows.count == 4, "\(result)")
        #expect(rows.first?.contains("\tvalid") == true, "\(rows)")
        #expect(rows.dropFirst().allSatisfy { $0.contains("\tinvalid") }, "\(rows)")
    }
}
