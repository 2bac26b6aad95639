import NavJSON

/// The keys of model language 1.1, read and checked like every other key: each error names
/// its JSON path.
extension ModelReader {
    /// One of an enumeration's wire names (`"value"`, `"first"`, `"contexts"`…), or `default`
    /// when the key is absent.
    func choice<Choice: RawRepresentable & CaseIterable>(
        _ value: JSONValue?, _ path: String, default fallback: Choice
    ) throws(ModelError) -> Choice where Choice.RawValue == String {
        guard let value else { return fallback }
        let names = Choice.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: " or ")
        guard let text = value.stringValue else {
            throw ModelError(path: path, message: "expected \(names), found \(value.typeName)")
        }
        guard let chosen = Choice(rawValue: text) else {
            throw ModelError(path: path, message: "unknown value \"\(text)\" (expected \(names))")
        }
        return chosen
    }

    func boolean(_ value: JSONValue?, _ path: String) throws(ModelError) -> Bool {
        guard let value else { return false }
        guard let flag = value.boolValue else {
            throw ModelError(path: path, message: "expected a boolean, found \(value.typeName)")
        }
        return flag
    }

    /// `identity`, `pop_to`, `clamped_pops` and `max_depth` of `stacks.<name>`.
    func readStackKeys(_ fields: JSONObject, _ path: String, into stack: inout StackSpec) throws(ModelError) {
        stack.identity = try choice(fields["identity"], path + ".identity", default: StackSpec.RouteIdentity.name)
        stack.popTo = try choice(fields["pop_to"], path + ".pop_to", default: StackSpec.PopToMatch.last)
        stack.clampedPops = try boolean(fields["clamped_pops"], path + ".clamped_pops")
        stack.maxDepth = try fields["max_depth"].map { (value) throws(ModelError) in
            try integer(value, path + ".max_depth", minimum: 1)
        }
    }

    /// `from`, `routes` and `pushes` of `modals.<name>`: stacks and routes that the model
    /// declares.
    func readModalKeys(
        _ fields: JSONObject, _ path: String, stacks: [String: StackSpec], into modal: inout ModalSpec
    ) throws(ModelError) {
        if let value = fields["from"] {
            let from = try strings(value, path + ".from")
            guard !from.isEmpty else { throw ModelError(path: path + ".from", message: "a modal is presented from at least one stack") }
            for (index, stack) in from.enumerated() where stacks[stack] == nil {
                throw ModelError(path: "\(path).from[\(index)]", message: "unknown stack \"\(stack)\" (not in $.stacks)")
            }
            modal.from = from
        }
        if let value = fields["routes"] {
            let routes = try strings(value, path + ".routes")
            guard !routes.isEmpty else { throw ModelError(path: path + ".routes", message: "a modal bound to routes needs at least one") }
            // A route some stack accepts: a stack without `routes` accepts any.
            let anyRoute = stacks.values.contains { $0.routes == nil }
            for (index, route) in routes.enumerated() where !anyRoute && !stacks.values.contains(where: { $0.accepts(route) }) {
                throw ModelError(path: "\(path).routes[\(index)]", message: "unknown route \"\(route)\" (no stack declares it)")
            }
            modal.routes = routes
        }
        if let value = fields["pushes"] {
            let placement = try choice(value, path + ".pushes", default: ModalSpec.PushPlacement.ownStack)
            if placement == .ownStack, modal.stack == nil {
                throw ModelError(path: path + ".pushes", message: "\"own_stack\" needs the modal's own \"stack\"")
            }
            modal.pushes = placement
        }
    }
}
