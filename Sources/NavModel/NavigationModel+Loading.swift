public import NavJSON

/// A model file that cannot be used, with the JSON path of the offending value.
public struct ModelError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where in the file, as a JSON path: `$.commands.logoutToOnboarding.reset[2]`.
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): \(message)" }
}

extension NavigationModel {
    /// Loads and checks a model file (`Schemas/navigation-model.v1.schema.json`).
    public static func load(json bytes: [UInt8]) throws(ModelError) -> NavigationModel {
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)
        } catch {
            throw ModelError(path: "$", message: "not valid JSON: \(error.description(in: bytes))")
        }
        return try load(value)
    }

    public static func load(json text: String) throws(ModelError) -> NavigationModel {
        try load(json: Array(text.utf8))
    }

    public static func load(_ value: JSONValue) throws(ModelError) -> NavigationModel {
        var reader = ModelReader()
        return try reader.read(value)
    }
}

/// Reads the model document, keeping the JSON path for error messages.
struct ModelReader {
    func object(_ value: JSONValue, _ path: String, allowed: [String]) throws(ModelError) -> JSONObject {
        guard let object = value.objectValue else {
            throw ModelError(path: path, message: "expected an object, found \(value.typeName)")
        }
        for key in object.keys where !allowed.contains(key) {
            throw ModelError(
                path: path + "." + key,
                message: "unknown key (allowed here: \(allowed.joined(separator: ", ")))")
        }
        return object
    }

    func string(_ value: JSONValue?, _ path: String) throws(ModelError) -> String {
        guard let value else { throw ModelError(path: path, message: "missing") }
        guard let text = value.stringValue, !text.isEmpty else {
            throw ModelError(path: path, message: "expected a non-empty string, found \(value.typeName)")
        }
        return text
    }

    func strings(_ value: JSONValue?, _ path: String) throws(ModelError) -> [String] {
        guard let value else { throw ModelError(path: path, message: "missing") }
        guard let array = value.arrayValue else {
            throw ModelError(path: path, message: "expected an array of strings, found \(value.typeName)")
        }
        var result: [String] = []
        var seen: Set<String> = []  // beside the array: `contains` on it was quadratic
        for (index, element) in array.enumerated() {
            let text = try string(element, "\(path)[\(index)]")
            if !seen.insert(text).inserted {
                throw ModelError(path: "\(path)[\(index)]", message: "\"\(text)\" is listed twice")
            }
            result.append(text)
        }
        return result
    }

    /// An optional array: `[]` when absent; anything else than an array is an error (a
    /// `links` or `steps` that is an object was read as none, and its checks went missing).
    func optionalArray(_ value: JSONValue?, _ path: String) throws(ModelError) -> [JSONValue] {
        guard let value else { return [] }
        guard let array = value.arrayValue else { throw ModelError(path: path, message: "expected an array, found \(value.typeName)") }
        return array
    }

    func integer(_ value: JSONValue, _ path: String, minimum: Int64) throws(ModelError) -> Int {
        guard let number = value.int64Value, number >= minimum, number <= Int64(Int32.max) else {
            throw ModelError(path: path, message: "expected an integer of at least \(minimum), found \(Self.describe(value))")
        }
        return Int(number)
    }

    /// A value for "found …" in messages; a number as written, with why it is not an integer
    /// when it has a fraction or an exponent (as for events: `1.0` is not one).
    static func describe(_ value: JSONValue) -> String {
        guard case .number(let text) = value else { return value.typeName }
        let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
        if value.int64Value == nil, text.contains(where: { ".eE".contains($0) }) {
            return "\(shown) (an integer is written without a fraction or an exponent)"
        }
        return shown
    }

    func entries(_ value: JSONValue?, _ path: String) throws(ModelError) -> [(key: String, value: JSONValue)] {
        guard let value else { throw ModelError(path: path, message: "missing") }
        guard let object = value.objectValue else {
            throw ModelError(path: path, message: "expected an object, found \(value.typeName)")
        }
        return object.members
    }

    mutating func read(_ value: JSONValue) throws(ModelError) -> NavigationModel {
        let root = try object(
            value, "$",
            allowed: [
                "$schema", "$comment", "model_version", "name", "description", "initial", "flows", "stacks", "modals",
                "commands", "deep_links",
            ])
        guard let version = root["model_version"] else { throw ModelError(path: "$.model_version", message: "missing") }
        guard version.int64Value == 1 else {
            if let number = version.int64Value {
                throw ModelError(path: "$.model_version", message: "unsupported model version \(number) (this NavReplay reads 1)")
            }
            throw ModelError(path: "$.model_version", message: "expected the integer 1, found \(Self.describe(version))")
        }
        let name = try string(root["name"], "$.name")
        if let comment = root["$comment"], comment.stringValue == nil {
            throw ModelError(path: "$.$comment", message: "expected a string, found \(comment.typeName)")
        }
        // Stacks first: flows, modals and commands refer to them. Flows named by positions are
        // checked once the flows are read.
        let (stacks, stackNames, positionFlows) = try readStacks(root)
        let (flows, flowNames) = try readFlows(root, stacks: stacks)
        for (path, flow) in positionFlows where flows[flow] == nil {
            throw ModelError(path: path, message: "unknown flow \"\(flow)\" (not in $.flows)")
        }
        let initial = try readInitial(root, flows: flows, flowNames: flowNames)
        let (modals, modalNames) = try readModals(root, flows: flows, stacks: stacks)
        let (commands, commandNames) = try readCommands(root, flows: flows, flowNames: flowNames, stacks: stacks)
        let deepLinks = try readDeepLinks(root, commands: commands, stacks: stacks, modals: modals)
        return NavigationModel(
            modelVersion: 1, name: name, initial: initial,
            flows: flows, flowNames: flowNames, stacks: stacks, stackNames: stackNames,
            modals: modals, modalNames: modalNames, commands: commands, commandNames: commandNames,
            deepLinks: deepLinks)
    }
}
