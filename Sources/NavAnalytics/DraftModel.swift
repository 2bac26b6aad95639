public import NavModel
import NavJSON

/// A model as `infer` writes it: every key of the model language, with a writer that sorts
/// object keys and indents by two spaces, so that a draft reads the same whatever order its
/// logs came in. Lists of names are sorted too, but for a flow's tabs, positions and deep links,
/// whose order means something.
public struct DraftModel: Sendable, Equatable {
    public var name: String
    public var description: String?
    public var comment: String?
    public var initial: NavigationModel.InitialState
    public var flows: [String: FlowSpec] = [:]
    public var stacks: [String: StackSpec] = [:]
    public var modals: [String: ModalSpec] = [:]
    public var commands: [String: CommandSpec] = [:]
    public var deepLinks = DeepLinkTable()

    public init(name: String, initial: NavigationModel.InitialState) {
        self.name = name
        self.initial = initial
    }

    /// The declarations of a loaded model (its `description` and `$comment` are not kept by the
    /// loader: pass them).
    public init(_ model: NavigationModel, description: String? = nil, comment: String? = nil) {
        name = model.name
        self.description = description
        self.comment = comment
        initial = model.initial
        flows = model.flows
        stacks = model.stacks
        modals = model.modals
        commands = model.commands
        deepLinks = model.deepLinks
    }

    /// The model, loaded from `json()`: the loader checks every reference.
    public func model() throws(ModelError) -> NavigationModel {
        try NavigationModel.load(json: json())
    }

    /// The model file: sorted keys, two-space indentation, one name list a line.
    public func json() -> String {
        var out = ""
        tree.write(to: &out, indent: "")
        return out + "\n"
    }

    var tree: Tree {
        var root: [(String, Tree)] = [("model_version", .int(1)), ("name", .string(name))]
        if let description { root.append(("description", .string(description))) }
        if let comment { root.append(("$comment", .string(comment))) }
        var initialMembers: [(String, Tree)] = [("flow", .string(initial.flow))]
        if let tab = initial.tab { initialMembers.append(("tab", .string(tab))) }
        root.append(("initial", .object(initialMembers)))
        root.append(("flows", .object(flows.map { ($0.key, Self.tree($0.value)) })))
        root.append(("stacks", .object(stacks.map { ($0.key, Self.tree($0.value)) })))
        if !modals.isEmpty { root.append(("modals", .object(modals.map { ($0.key, Self.tree($0.value)) }))) }
        if !commands.isEmpty { root.append(("commands", .object(commands.map { ($0.key, Self.tree($0.value)) }))) }
        if deepLinks.fallbackCommand != nil || !deepLinks.links.isEmpty { root.append(("deep_links", Self.tree(deepLinks))) }
        return .object(root)
    }

    static func names(_ list: [String]) -> Tree { .array(list.sorted().map(Tree.string)) }

    static func tree(_ flow: FlowSpec) -> Tree {
        var members: [(String, Tree)] = []
        switch flow.kind {
        case .stack(let stack): members.append(("stack", .string(stack)))
        case .tabs(let tabs): members.append(("tabs", .array(tabs.map(Tree.string))))
        }
        if let max = flow.maxModals { members.append(("max_modals", .int(max))) }
        if flow.presentation != .stacked { members.append(("presentation", .string(flow.presentation.rawValue))) }
        return .object(members)
    }

    static func tree(_ stack: StackSpec) -> Tree {
        var members: [(String, Tree)] = []
        if let routes = stack.routes { members.append(("routes", names(routes))) }
        if !stack.singletons.isEmpty { members.append(("singletons", names(Array(stack.singletons)))) }
        if !stack.positions.isEmpty {
            members.append(
                (
                    "positions",
                    .array(
                        stack.positions.map { position in
                            var entry: [(String, Tree)] = [("index", .int(position.index)), ("one_of", names(position.oneOf))]
                            if let flows = position.flows { entry.append(("flows", names(flows))) }
                            return .object(entry)
                        })
                ))
        }
        if stack.identity != .name { members.append(("identity", .string(stack.identity.rawValue))) }
        if stack.popTo != .last { members.append(("pop_to", .string(stack.popTo.rawValue))) }
        if stack.clampedPops { members.append(("clamped_pops", .bool(true))) }
        if let depth = stack.maxDepth { members.append(("max_depth", .int(depth))) }
        return .object(members)
    }

    static func tree(_ modal: ModalSpec) -> Tree {
        var members: [(String, Tree)] = []
        if let flows = modal.flows { members.append(("flows", names(flows))) }
        if let styles = modal.styles { members.append(("styles", names(styles))) }
        if let stack = modal.stack { members.append(("stack", .string(stack))) }
        if let from = modal.from { members.append(("from", names(from))) }
        if let routes = modal.routes { members.append(("routes", names(routes))) }
        if let pushes = modal.pushes { members.append(("pushes", .string(pushes.rawValue))) }
        return .object(members)
    }

    static func tree(_ command: CommandSpec) -> Tree {
        var members: [(String, Tree)] = [("flow", .string(command.flow))]
        if let tab = command.tab { members.append(("tab", .string(tab))) }
        if !command.reset.isEmpty { members.append(("reset", names(command.reset))) }
        if command.dismissModals { members.append(("dismiss_modals", .bool(true))) }
        return .object(members)
    }

    static func tree(_ table: DeepLinkTable) -> Tree {
        var members: [(String, Tree)] = []
        if let fallback = table.fallbackCommand { members.append(("fallback_command", .string(fallback))) }
        let links = table.links.map { link -> Tree in
            var entry: [(String, Tree)] = [("pattern", .string(link.pattern.joined(separator: "/")))]
            if let command = link.command { entry.append(("command", .string(command))) }
            if !link.steps.isEmpty {
                entry.append(
                    (
                        "steps",
                        .array(
                            link.steps.map { step in
                                switch step {
                                case .selectTab(let tab): .object([("tab", .string(tab))])
                                case .push(let stack, let route): .object([("stack", .string(stack)), ("push", .string(route))])
                                case .present(let modal, let style): .object([("present", .string(modal)), ("style", .string(style))])
                                }
                            })
                    ))
            }
            return .object(entry)
        }
        members.append(("links", .array(links)))
        return .object(members)
    }
}

/// A JSON value to print: objects with sorted keys, arrays of scalars on one line.
indirect enum Tree {
    case object([(String, Tree)])
    case array([Tree])
    case string(String)
    case int(Int)
    case bool(Bool)

    static func quoted(_ text: String) -> String {
        var writer = JSONWriter()
        writer.string(text)
        return writer.string
    }

    var isScalar: Bool {
        switch self {
        case .object, .array: false
        default: true
        }
    }

    func write(to out: inout String, indent: String) {
        switch self {
        case .string(let text): out += Self.quoted(text)
        case .int(let number): out += String(number)
        case .bool(let flag): out += flag ? "true" : "false"
        case .array(let items):
            if items.allSatisfy(\.isScalar) {
                out += "["
                for (index, item) in items.enumerated() {
                    if index > 0 { out += ", " }
                    item.write(to: &out, indent: indent)
                }
                out += "]"
                return
            }
            out += "[\n"
            for (index, item) in items.enumerated() {
                out += indent + "  "
                item.write(to: &out, indent: indent + "  ")
                out += index == items.count - 1 ? "\n" : ",\n"
            }
            out += indent + "]"
        case .object(let members):
            if members.isEmpty {
                out += "{}"
                return
            }
            out += "{\n"
            let sorted = members.sorted { Array($0.0.utf8).lexicographicallyPrecedes(Array($1.0.utf8)) }
            for (index, (key, value)) in sorted.enumerated() {
                out += indent + "  " + Self.quoted(key) + ": "
                value.write(to: &out, indent: indent + "  ")
                out += index == sorted.count - 1 ? "\n" : ",\n"
            }
            out += indent + "}"
        }
    }
}
