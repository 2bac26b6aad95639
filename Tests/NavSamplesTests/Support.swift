import Foundation
import NavEvents
import NavModel
import NavReplay
import NavTestSupport
import Testing

/// Processes, beside `Repository`'s paths (NavTestSupport).
extension Repository {
    /// Runs a program in the repository root with `NO_COLOR` set; output goes through files, so
    /// that a full pipe never blocks it.
    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = root
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        process.environment = environment
        let scratch = FileManager.default.temporaryDirectory
        let output = scratch.appendingPathComponent("nav-systems-out-\(UUID().uuidString)")
        let errors = scratch.appendingPathComponent("nav-systems-err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: output)
            try? FileManager.default.removeItem(at: errors)
        }
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return (
            process.terminationStatus,
            String(decoding: (try? Data(contentsOf: output)) ?? Data(), as: UTF8.self),
            String(decoding: (try? Data(contentsOf: errors)) ?? Data(), as: UTF8.self)
        )
    }
}

struct BinaryMissing: Error, CustomStringConvertible {
    var description: String { "the navreplay binary is not built next to the tests (run swift build --build-tests)" }
}

/// Runs the built `navreplay`.
func navreplay(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
    guard let binary = Repository.binary else { throw BinaryMissing() }
    return try Repository.run(binary, arguments)
}

/// Loads a model for a test; a broken fixture fails the test that uses it.
func loadModel(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) -> NavigationModel {
    do {
        return try NavigationModel.load(json: json)
    } catch {
        Issue.record("the test model does not load: \(error)", sourceLocation: sourceLocation)
        return .poc
    }
}

/// Audits events as `navreplay` would and returns `rule@seq` for each finding.
func findings(_ events: [NavigationEvent], model: NavigationModel) throws -> [String] {
    try auditSession(events, model: model).findings.map { "\($0.rule.rawValue)@\($0.seq.map(String.init) ?? "-")" }
}

/// The model the extension tests use: one path owned by three flows with flow-bound positions,
/// a tabbed flow, a sheet with its own stack, modals with styles, and deep links.
let extensionModelJSON = """
    {"model_version": 1, "name": "ext", "initial": {"flow": "hub"},
     "flows": {
       "hub": {"stack": "path"}, "data": {"stack": "path"}, "chat": {"stack": "path"},
       "tabs": {"tabs": ["a", "b"]}
     },
     "stacks": {
       "path": {"routes": ["widgets", "spaceChat", "editor"], "singletons": ["widgets", "spaceChat"],
                "positions": [{"index": 0, "one_of": [], "flows": ["hub"]},
                              {"index": 0, "one_of": ["widgets"], "flows": ["data"]},
                              {"index": 0, "one_of": ["spaceChat"], "flows": ["chat"]}]},
       "a": {"routes": ["x", "y"]}, "b": {"routes": ["x", "y"]},
       "sheetStack": {"routes": ["s1", "s2"]}
     },
     "modals": {
       "sheet": {"styles": ["sheet"], "stack": "sheetStack"},
       "cover": {"styles": ["cover"]},
       "overlay": {}
     },
     "commands": {
       "toData": {"flow": "data", "reset": ["path"]}, "toChat": {"flow": "chat", "reset": ["path"]},
       "becameChat": {"flow": "chat"}, "toTabs": {"flow": "tabs", "tab": "a", "reset": ["a"]}
     },
     "deep_links": {"links": [
       {"pattern": "a/:id", "command": "toTabs", "steps": [{"tab": "a"}, {"stack": "a", "push": "x"}, {"stack": "a", "push": "y"}]},
       {"pattern": "b/x", "steps": [{"tab": "b"}, {"stack": "b", "push": "x"}]},
       {"pattern": "sheet", "steps": [{"present": "sheet"}, {"stack": "sheetStack", "push": "s1"}]}
     ]}}
    """

let extensionModel = loadModel(extensionModelJSON)
