import NavJSON

/// The model file's sections, each read and checked against those read before it.
extension ModelReader {
    func readStacks(
        _ root: JSONObject
    ) throws(ModelError) -> (
        stacks: [String: StackSpec], names: [String], positionFlows: [(path: String, flow: String)]
    ) {
        var stacks: [String: StackSpec] = [:]
        var stackNames: [String] = []
        var positionFlows: [(path: String, flow: String)] = []
        for (stackName, spec) in try entries(root["stacks"], "$.stacks") {
            let path = "$.stacks.\(stackName)"
            let fields = try object(
                spec, path, allowed: ["routes", "singletons", "positions", "identity", "pop_to", "clamped_pops", "max_depth"])
            let routes = try fields["routes"].map { (routes) throws(ModelError) in try strings(routes, path + ".routes") }
            let singletons =
                try fields["singletons"].map { (value) throws(ModelError) in
                    try strings(value, path + ".singletons")
                } ?? []
            // Looked up in a set: `contains` on the array made a model of many singletons quadratic.
            let routeSet = routes.map(Set.init)
            for (index, singleton) in singletons.enumerated() where routeSet.map({ !$0.contains(singleton) }) ?? false {
                throw ModelError(
                    path: "\(path).singletons[\(index)]", message: "unknown route \"\(singleton)\" (not in routes)")
            }
            let positions = try readPositions(fields["positions"], path, routes: routeSet, flows: &positionFlows)
            var stack = StackSpec(routes: routes, singletons: Set(singletons), positions: positions)
            try readStackKeys(fields, path, into: &stack)
            stacks[stackName] = stack
            stackNames.append(stackName)
        }
        return (stacks, stackNames, positionFlows)
    }

    /// A stack's `positions`; the flows they name go to `flows`, checked once the flows are read.
    func readPositions(
        _ list: JSONValue?, _ path: String, routes routeSet: Set<String>?, flows positionFlows: inout [(path: String, flow: String)]
    ) throws(ModelError) -> [PositionRequirement] {
        var positions: [PositionRequirement] = []
        guard let list else { return positions }
        guard let array = list.arrayValue else {
            throw ModelError(path: path + ".positions", message: "expected an array, found \(list.typeName)")
        }
        for (index, entry) in array.enumerated() {
            let entryPath = "\(path).positions[\(index)]"
            let requirement = try object(entry, entryPath, allowed: ["index", "one_of", "flows"])
            guard let at = requirement["index"] else {
                throw ModelError(path: entryPath + ".index", message: "missing")
            }
            let oneOf = try strings(requirement["one_of"], entryPath + ".one_of")
            for (routeIndex, route) in oneOf.enumerated() where routeSet.map({ !$0.contains(route) }) ?? false {
                throw ModelError(
                    path: "\(entryPath).one_of[\(routeIndex)]", message: "unknown route \"\(route)\" (not in routes)")
            }
            let flows = try requirement["flows"].map { (value) throws(ModelError) in
                try strings(value, entryPath + ".flows")
            }
            for (flowIndex, flow) in (flows ?? []).enumerated() {
                positionFlows.append(("\(entryPath).flows[\(flowIndex)]", flow))
            }
            positions.append(
                PositionRequirement(
                    index: try integer(at, entryPath + ".index", minimum: 0), oneOf: oneOf, flows: flows))
        }
        return positions
    }

    func readFlows(_ root: JSONObject, stacks: [String: StackSpec]) throws(ModelError) -> ([String: FlowSpec], [String]) {
        var flows: [String: FlowSpec] = [:]
        var flowNames: [String] = []
        for (flowName, spec) in try entries(root["flows"], "$.flows") {
            let path = "$.flows.\(flowName)"
            let fields = try object(spec, path, allowed: ["stack", "tabs", "max_modals", "presentation"])
            let kind: FlowSpec.Kind
            switch (fields["stack"], fields["tabs"]) {
            case (let stack?, nil):
                let stackName = try string(stack, path + ".stack")
                guard stacks[stackName] != nil else {
                    throw ModelError(path: path + ".stack", message: "unknown stack \"\(stackName)\" (not in $.stacks)")
                }
                kind = .stack(stackName)
            case (nil, let tabs?):
                let tabNames = try strings(tabs, path + ".tabs")
                guard !tabNames.isEmpty else { throw ModelError(path: path + ".tabs", message: "a flow needs at least one tab") }
                for (index, tab) in tabNames.enumerated() where stacks[tab] == nil {
                    throw ModelError(
                        path: "\(path).tabs[\(index)]",
                        message: "unknown stack \"\(tab)\" (each tab owns the stack of the same name, declare it in $.stacks)")
                }
                kind = .tabs(tabNames)
            default:
                throw ModelError(path: path, message: "a flow has exactly one of \"stack\" and \"tabs\"")
            }
            // Several flows may own one stack (the space hub: one path, whatever the space's kind).
            let maxModals = try fields["max_modals"].map { (value) throws(ModelError) in
                try integer(value, path + ".max_modals", minimum: 0)
            }
            let presentation = try choice(fields["presentation"], path + ".presentation", default: FlowSpec.Presentation.stacked)
            flows[flowName] = FlowSpec(kind: kind, maxModals: maxModals, presentation: presentation)
            flowNames.append(flowName)
        }
        guard !flowNames.isEmpty else { throw ModelError(path: "$.flows", message: "a model needs at least one flow") }
        return (flows, flowNames)
    }

    func readInitial(
        _ root: JSONObject, flows: [String: FlowSpec], flowNames: [String]
    ) throws(ModelError)
        -> NavigationModel.InitialState
    {
        guard let initial = root["initial"] else { throw ModelError(path: "$.initial", message: "missing") }
        let initialFields = try object(initial, "$.initial", allowed: ["flow", "tab"])
        let initialFlow = try string(initialFields["flow"], "$.initial.flow")
        guard flows[initialFlow] != nil else {
            throw ModelError(path: "$.initial.flow", message: "unknown flow \"\(initialFlow)\" (not in $.flows)")
        }
        var initialTab: String?
        if let tab = initialFields["tab"], !tab.isNull {
            let tabName = try string(tab, "$.initial.tab")
            let allTabs = flowNames.flatMap { flows[$0]?.tabs ?? [] }
            guard allTabs.contains(tabName) else {
                throw ModelError(path: "$.initial.tab", message: "unknown tab \"\(tabName)\" (no flow has it)")
            }
            if let tabs = flows[initialFlow]?.tabs, !tabs.contains(tabName) {
                throw ModelError(path: "$.initial.tab", message: "flow \"\(initialFlow)\" has no tab \"\(tabName)\"")
            }
            initialTab = tabName
        } else if let tabs = flows[initialFlow]?.tabs {
            initialTab = tabs.first
        }
        return NavigationModel.InitialState(flow: initialFlow, tab: initialTab)
    }

    func readModals(
        _ root: JSONObject, flows: [String: FlowSpec], stacks: [String: StackSpec]
    ) throws(ModelError) -> (
        [String: ModalSpec], [String]
    ) {
        let flowStacks = Set(flows.values.flatMap(\.ownedStacks))
        var modals: [String: ModalSpec] = [:]
        var modalNames: [String] = []
        if let modalEntries = root["modals"] {
            for (modalName, spec) in try entries(modalEntries, "$.modals") {
                let path = "$.modals.\(modalName)"
                let fields = try object(spec, path, allowed: ["flows", "styles", "stack", "from", "routes", "pushes"])
                let allowedFlows = try fields["flows"].map { (value) throws(ModelError) in try strings(value, path + ".flows") }
                for (index, flow) in (allowedFlows ?? []).enumerated() where flows[flow] == nil {
                    throw ModelError(path: "\(path).flows[\(index)]", message: "unknown flow \"\(flow)\" (not in $.flows)")
                }
                let styles = try fields["styles"].map { (value) throws(ModelError) in try strings(value, path + ".styles") }
                for (index, style) in (styles ?? []).enumerated() where !["sheet", "cover", "overlay"].contains(style) {
                    throw ModelError(
                        path: "\(path).styles[\(index)]", message: "unknown style \"\(style)\" (expected sheet, cover or overlay)")
                }
                var ownStack: String?
                if let value = fields["stack"] {
                    let stack = try string(value, path + ".stack")
                    guard stacks[stack] != nil else {
                        throw ModelError(path: path + ".stack", message: "unknown stack \"\(stack)\" (not in $.stacks)")
                    }
                    guard !flowStacks.contains(stack) else {
                        throw ModelError(
                            path: path + ".stack", message: "stack \"\(stack)\" is owned by a flow; a modal's stack is its own")
                    }
                    if let other = modalNames.first(where: { modals[$0]?.stack == stack }) {
                        throw ModelError(path: path + ".stack", message: "stack \"\(stack)\" is already owned by modal \"\(other)\"")
                    }
                    ownStack = stack
                }
                var modal = ModalSpec(flows: allowedFlows, styles: styles, stack: ownStack)
                try readModalKeys(fields, path, stacks: stacks, into: &modal)
                modals[modalName] = modal
                modalNames.append(modalName)
            }
        }
        return (modals, modalNames)
    }

    func readCommands(
        _ root: JSONObject, flows: [String: FlowSpec], flowNames: [String], stacks: [String: StackSpec]
    ) throws(ModelError) -> ([String: CommandSpec], [String]) {
        var commands: [String: CommandSpec] = [:]
        var commandNames: [String] = []
        if let commandEntries = root["commands"] {
            for (commandName, spec) in try entries(commandEntries, "$.commands") {
                let path = "$.commands.\(commandName)"
                let fields = try object(spec, path, allowed: ["flow", "tab", "reset", "dismiss_modals"])
                let flow = try string(fields["flow"], path + ".flow")
                guard let flowSpec = flows[flow] else {
                    throw ModelError(path: path + ".flow", message: "unknown flow \"\(flow)\" (not in $.flows)")
                }
                var tab: String?
                if let tabValue = fields["tab"] {
                    let tabName = try string(tabValue, path + ".tab")
                    if let tabs = flowSpec.tabs {
                        guard tabs.contains(tabName) else {
                            throw ModelError(path: path + ".tab", message: "flow \"\(flow)\" has no tab \"\(tabName)\"")
                        }
                    } else {
                        // A flow without tabs keeps the tab selected for when a tabbed flow is
                        // entered, as `initial.tab` does (the PoC app's logout selects tab1).
                        guard flowNames.contains(where: { flows[$0]?.tabs?.contains(tabName) ?? false }) else {
                            throw ModelError(path: path + ".tab", message: "unknown tab \"\(tabName)\" (no flow has it)")
                        }
                    }
                    tab = tabName
                }
                let reset = try fields["reset"].map { (value) throws(ModelError) in try strings(value, path + ".reset") } ?? []
                for (index, stack) in reset.enumerated() where stacks[stack] == nil {
                    throw ModelError(path: "\(path).reset[\(index)]", message: "unknown stack \"\(stack)\" (not in $.stacks)")
                }
                var dismissModals = false
                if let dismiss = fields["dismiss_modals"] {
                    guard let flag = dismiss.boolValue else {
                        throw ModelError(path: path + ".dismiss_modals", message: "expected a boolean, found \(dismiss.typeName)")
                    }
                    dismissModals = flag
                }
                commands[commandName] = CommandSpec(flow: flow, tab: tab, reset: reset, dismissModals: dismissModals)
                commandNames.append(commandName)
            }
        }
        return (commands, commandNames)
    }

    func readDeepLinks(
        _ root: JSONObject, commands: [String: CommandSpec], stacks: [String: StackSpec], modals: [String: ModalSpec]
    ) throws(ModelError) -> DeepLinkTable {
        var deepLinks = DeepLinkTable()
        if let table = root["deep_links"] {
            let fields = try object(table, "$.deep_links", allowed: ["fallback_command", "links"])
            if let fallback = fields["fallback_command"] {
                let command = try string(fallback, "$.deep_links.fallback_command")
                guard commands[command] != nil else {
                    throw ModelError(path: "$.deep_links.fallback_command", message: "unknown command \"\(command)\"")
                }
                deepLinks.fallbackCommand = command
            }
            for (index, entry) in try optionalArray(fields["links"], "$.deep_links.links").enumerated() {
                let path = "$.deep_links.links[\(index)]"
                let link = try object(entry, path, allowed: ["pattern", "command", "steps"])
                let pattern = try string(link["pattern"], path + ".pattern")
                var command: String?
                if let value = link["command"] {
                    let name = try string(value, path + ".command")
                    guard commands[name] != nil else {
                        throw ModelError(path: path + ".command", message: "unknown command \"\(name)\"")
                    }
                    command = name
                }
                var steps: [DeepLinkStep] = []
                for (stepIndex, stepValue) in try optionalArray(link["steps"], path + ".steps").enumerated() {
                    let stepPath = "\(path).steps[\(stepIndex)]"
                    steps.append(try readStep(stepValue, stepPath, stacks: stacks, modals: modals))
                }
                deepLinks.links.append(DeepLink(pattern: pattern, command: command, steps: steps))
            }
        }
        return deepLinks
    }

    /// One step of a deep link: a tab, a push or a presentation.
    func readStep(
        _ stepValue: JSONValue, _ stepPath: String, stacks: [String: StackSpec], modals: [String: ModalSpec]
    ) throws(ModelError)
        -> DeepLinkStep
    {
        let step = try object(stepValue, stepPath, allowed: ["tab", "stack", "push", "present", "style"])
        let actions = ["tab", "push", "present"].filter { step[$0] != nil }
        if actions.count > 1 {
            throw ModelError(
                path: stepPath,
                message: "a step has exactly one of \"tab\", \"push\" or \"present\" (found \(actions.joined(separator: ", ")))"
            )
        }
        if let tab = step["tab"] {
            return .selectTab(try string(tab, stepPath + ".tab"))
        } else if let route = step["push"] {
            let stack = try string(step["stack"], stepPath + ".stack")
            guard stacks[stack] != nil else {
                throw ModelError(path: stepPath + ".stack", message: "unknown stack \"\(stack)\"")
            }
            return .push(stack: stack, route: try string(route, stepPath + ".push"))
        } else if let modal = step["present"] {
            let modalName = try string(modal, stepPath + ".present")
            guard modals[modalName] != nil else {
                throw ModelError(path: stepPath + ".present", message: "unknown modal \"\(modalName)\"")
            }
            let style =
                try step["style"].map { (value) throws(ModelError) in try string(value, stepPath + ".style") }
                ?? modals[modalName]?.styles?.first ?? "sheet"
            guard ["sheet", "cover", "overlay"].contains(style) else {
                throw ModelError(path: stepPath + ".style", message: "expected sheet, cover or overlay")
            }
            guard modals[modalName]?.allowsStyle(style) ?? true else {
                throw ModelError(
                    path: stepPath + ".style",
                    message: "modal \"\(modalName)\" may not be presented as \(style) (its styles: "
                        + "\((modals[modalName]?.styles ?? []).joined(separator: ", ")))")
            }
            return .present(modal: modalName, style: style)
        } else {
            throw ModelError(path: stepPath, message: "a step has one of \"tab\", \"push\" or \"present\"")
        }
    }
}
