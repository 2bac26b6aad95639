public import NavJSON
import NavModel

/// The `model` fuzz target: a model file's bytes through `NavigationModel.load(json:)`, which
/// either succeeds or names the offending place as a JSON path.
///
/// - A rejected file: the path starts with `$` and names a place in the document (every step
///   exists, but the last when it is reported missing); a file that is not JSON is reported at
///   `$` with its line and column, and only then.
/// - A loaded model: its references hold (the initial flow and tab, each flow's stacks, each
///   modal's and command's stacks and flows are declared), its initial state shows a declared
///   stack, and the same document written compactly loads to an equal model.
public enum ModelCheck {
    public static func check(_ bytes: UnsafeBufferPointer<UInt8>) -> [String] {
        let input = Array(bytes)
        let parsed = try? JSONValue.parse(input)
        let model: NavigationModel
        do {
            model = try NavigationModel.load(json: input)
        } catch {
            return checkRejection(error, document: parsed, bytes: input)
        }
        guard let parsed else { return ["a file that is not JSON loaded as a model"] }
        var violations = checkReferences(model)
        var writer = JSONWriter()
        writer.value(parsed)
        switch Result(catching: { () throws(ModelError) -> NavigationModel in try NavigationModel.load(json: writer.bytes) }) {
        case .success(let again):
            if again != model { violations.append("the same document written compactly loads to another model") }
        case .failure(let error):
            violations.append("the same document written compactly does not load: \(error)")
        }
        return violations
    }

    /// Whether a model error's path names a place in `document` (the last step may be
    /// missing when `missingLast`).
    public static func pathResolves(_ path: String, in document: JSONValue, missingLast: Bool = false) -> Bool {
        path.hasPrefix("$") && JSONPath.resolves(Array(path.utf8.dropFirst())[...], in: document, missingLast: missingLast)
    }

    static func checkRejection(_ error: ModelError, document: JSONValue?, bytes: [UInt8]) -> [String] {
        if error.message.isEmpty { return ["an error without a message at \(error.path)"] }
        guard let document else {
            if error.path != "$" || !error.message.hasPrefix("not valid JSON") || !error.message.contains(", column ") {
                return ["a file that is not JSON is reported as \(error), not as invalid JSON at a line and column"]
            }
            return []
        }
        if error.message.hasPrefix("not valid JSON") { return ["a JSON document is reported as not JSON: \(error)"] }
        guard error.path.hasPrefix("$") else { return ["the error names no JSON path: \(error)"] }
        let path = Array(error.path.utf8.dropFirst())
        if !JSONPath.resolves(path[...], in: document, missingLast: error.message == "missing") {
            return ["the error's path names no place in the document: \(error)"]
        }
        return []
    }

    static func checkReferences(_ model: NavigationModel) -> [String] {
        var violations: [String] = []
        if model.flows[model.initial.flow] == nil { violations.append("the initial flow is not declared") }
        if Set(model.flowNames) != Set(model.flows.keys) || Set(model.stackNames) != Set(model.stacks.keys) {
            violations.append("the names and the declarations differ")
        }
        for name in model.flowNames {
            for stack in model.flows[name]?.ownedStacks ?? [] where model.stacks[stack] == nil {
                violations.append("flow \(name) shows an undeclared stack \(stack)")
            }
        }
        for (name, command) in model.commands {
            if model.flows[command.flow] == nil { violations.append("command \(name) goes to an undeclared flow") }
            for stack in command.reset where model.stacks[stack] == nil { violations.append("command \(name) resets an undeclared stack") }
        }
        if let stack = model.activeStack(in: model.initialState), model.stacks[stack] == nil {
            violations.append("the initial state shows an undeclared stack \(stack)")
        }
        return violations
    }
}

/// Resolves the JSON paths of model errors (`$.flows.app.tabs[2]`): a member after `.`, an
/// element after `[N]`. A name may itself hold `.` or `[`, so every way of cutting the path at
/// a member's name is tried.
enum JSONPath {
    static func resolves(_ path: ArraySlice<UInt8>, in value: JSONValue, missingLast: Bool) -> Bool {
        guard let first = path.first else { return true }
        if first == UInt8(ascii: "[") {
            guard let close = path.firstIndex(of: UInt8(ascii: "]")),
                let index = Int(String(decoding: path[(path.startIndex + 1)..<close], as: UTF8.self)),
                let array = value.arrayValue
            else { return false }
            let rest = path[(close + 1)...]
            guard index >= 0, index < array.count else { return missingLast && rest.isEmpty }
            return resolves(rest, in: array[index], missingLast: missingLast)
        }
        guard first == UInt8(ascii: "."), let object = value.objectValue else { return false }
        let names = path.dropFirst()
        for (key, member) in object.members {
            let utf8 = Array(key.utf8)
            guard names.starts(with: utf8) else { continue }
            let rest = names.dropFirst(utf8.count)
            if let next = rest.first, next != UInt8(ascii: "."), next != UInt8(ascii: "[") { continue }
            if resolves(rest, in: member, missingLast: missingLast) { return true }
        }
        // A missing member, the last step.
        return missingLast && !names.isEmpty && !names.contains(UInt8(ascii: "[")) && !names.contains(UInt8(ascii: "."))
    }
}
