/// What the fold needs to know about an app's navigation: its flows, tabs, stacks, routes,
/// modals and commands (docs/events-and-rules.md).
///
/// Load one with `NavigationModel.load(json:)`, or use `NavigationModel.poc`, the PoC router's
/// model, which is the default. Every reference inside the model (a flow's stack, a command's
/// tab, a modal's flows) is checked when it is loaded, so the fold can trust it.
public struct NavigationModel: Sendable, Equatable {
    public var modelVersion: Int
    public var name: String
    public var initial: InitialState
    /// Flows by name; `flowNames` keeps the file's order.
    public var flows: [String: FlowSpec]
    public var flowNames: [String] { didSet { refreshDerivedTables() } }
    /// Stacks by name; `stackNames` keeps the file's order.
    public var stacks: [String: StackSpec] { didSet { refreshDerivedTables() } }
    public var stackNames: [String] { didSet { refreshDerivedTables() } }
    public var modals: [String: ModalSpec] { didSet { refreshDerivedTables() } }
    public var modalNames: [String] { didSet { refreshDerivedTables() } }
    public var commands: [String: CommandSpec]
    public var commandNames: [String] { didSet { refreshDerivedTables() } }
    /// Deep links the router resolves (a NavReplay extension of the v1 model; optional).
    public var deepLinks: DeepLinkTable
    /// The stacks by number, derived from the declarations above and kept with them.
    package private(set) var stackTable: StackTable
    /// Every declared name as a symbol, derived from the declarations above and kept with them.
    package private(set) var symbolTable: SymbolTable

    init(
        modelVersion: Int, name: String, initial: InitialState, flows: [String: FlowSpec], flowNames: [String],
        stacks: [String: StackSpec], stackNames: [String], modals: [String: ModalSpec], modalNames: [String],
        commands: [String: CommandSpec], commandNames: [String], deepLinks: DeepLinkTable
    ) {
        self.modelVersion = modelVersion
        self.name = name
        self.initial = initial
        self.flows = flows
        self.flowNames = flowNames
        self.stacks = stacks
        self.stackNames = stackNames
        self.modals = modals
        self.modalNames = modalNames
        self.commands = commands
        self.commandNames = commandNames
        self.deepLinks = deepLinks
        let stackTable = StackTable(stacks: stacks, stackNames: stackNames, modals: modals, modalNames: modalNames)
        self.stackTable = stackTable
        symbolTable = SymbolTable(flowNames: flowNames, stacks: stackTable, modalNames: modalNames, commandNames: commandNames)
    }

    /// The stack and symbol tables, again from the declarations.
    private mutating func refreshDerivedTables() {
        stackTable = StackTable(stacks: stacks, stackNames: stackNames, modals: modals, modalNames: modalNames)
        symbolTable = SymbolTable(flowNames: flowNames, stacks: stackTable, modalNames: modalNames, commandNames: commandNames)
    }

    /// Equal declarations (the stack table is derived from them).
    public static func == (lhs: NavigationModel, rhs: NavigationModel) -> Bool {
        lhs.modelVersion == rhs.modelVersion && lhs.name == rhs.name && lhs.initial == rhs.initial
            && lhs.flows == rhs.flows && lhs.flowNames == rhs.flowNames && lhs.stacks == rhs.stacks
            && lhs.stackNames == rhs.stackNames && lhs.modals == rhs.modals && lhs.modalNames == rhs.modalNames
            && lhs.commands == rhs.commands && lhs.commandNames == rhs.commandNames && lhs.deepLinks == rhs.deepLinks
    }

    public struct InitialState: Sendable, Equatable {
        public var flow: String
        public var tab: String?
        public init(flow: String, tab: String? = nil) {
            self.flow = flow
            self.tab = tab
        }
    }

    /// The state a session starts from when it has no snapshot.
    public var initialState: NavigationState {
        NavigationState(
            flow: initial.flow, tab: initial.tab,
            stacks: Dictionary(uniqueKeysWithValues: stackNames.map { ($0, []) }), modals: [])
    }

    /// The stack a flow shows with the given selected tab: the flow's own stack, or the
    /// selected tab's stack when the flow has tabs and the tab is one of them.
    public func activeStack(flow: String, tab: String?) -> String? {
        guard let spec = flows[flow] else { return nil }
        switch spec.kind {
        case .stack(let stack): return stack
        case .tabs(let tabs):
            guard let tab, tabs.contains(tab) else { return nil }
            return tab
        }
    }

    /// Whether the flow owns the stack: its own stack, or one of its tabs' stacks.
    public func flow(_ flow: String, owns stack: String) -> Bool {
        guard let spec = flows[flow] else { return false }
        switch spec.kind {
        case .stack(let own): return own == stack
        case .tabs(let tabs): return tabs.contains(stack)
        }
    }

    /// The flow that owns a stack, if any (the first in file order: several flows may share
    /// one stack).
    public func owningFlow(of stack: String) -> String? {
        flowNames.first { flow($0, owns: stack) }
    }

    /// The modal whose own navigation stack this is (`modals.<name>.stack`), if any.
    public func owningModal(of stack: String) -> String? {
        modalNames.first { modals[$0]?.stack == stack }
    }

    /// The stack that new routes go on in a state: the stack of the top-most presented modal
    /// that owns one and takes pushes (a modal without a stack, or with `pushes: below`, shares
    /// the stack below it), else the flow's active stack.
    public func activeStack(in state: NavigationState) -> String? {
        for modal in state.modals.reversed() {
            if let stack = modals[modal]?.pushStack { return stack }
        }
        return activeStack(flow: state.flow, tab: state.tab)
    }

    /// The stack that the modal at `index` of `modals` covers: the own stack of the nearest
    /// modal below it that has one, else the flow's active stack.
    public func coveredStack(below index: Int, modals presented: [String], flow: String, tab: String?) -> String? {
        var position = min(index, presented.count) - 1
        while position >= 0 {
            if let stack = modals[presented[position]]?.stack { return stack }
            position -= 1
        }
        return activeStack(flow: flow, tab: tab)
    }

    /// Whether a stack can be operated on in a state: a modal's stack while that modal is
    /// presented, any other stack while the current flow owns it.
    public func owns(_ stack: String, in state: NavigationState) -> Bool {
        if let modal = owningModal(of: stack) { return state.modals.contains(modal) }
        return flow(state.flow, owns: stack)
    }
}

/// A flow: either one stack or a list of tabs, each owning the stack of the same name.
public struct FlowSpec: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case stack(String)
        case tabs([String])
    }

    public var kind: Kind
    /// At most this many modals at once in this flow (pages with widgets: one widget at a time).
    public var maxModals: Int?
    /// How modals are presented in this flow (model language 1.1; `.stacked` in a v1 model).
    public var presentation: Presentation

    public init(kind: Kind, maxModals: Int? = nil, presentation: Presentation = .stacked) {
        self.kind = kind
        self.maxModals = maxModals
        self.presentation = presentation
    }

    /// How a flow presents modals.
    public enum Presentation: String, Sendable, Equatable, CaseIterable {
        /// Each modal goes over everything shown (the v1 model).
        case stacked
        /// The modular tabs system's coordinators: every stack shown (the flow's, a modal's own) is
        /// a context with one modal slot, a sheet or a cover; a second modal in one context is
        /// ignored by the app, and a stack does not pop while its context shows a modal.
        case contexts
    }

    public var tabs: [String]? {
        if case .tabs(let tabs) = kind { tabs } else { nil }
    }

    /// Every stack the flow owns.
    public var ownedStacks: [String] {
        switch kind {
        case .stack(let stack): [stack]
        case .tabs(let tabs): tabs
        }
    }
}

/// A stack of routes above a root screen.
public struct StackSpec: Sendable, Equatable {
    /// The routes the stack accepts, in file order; `nil` accepts any route name.
    public var routes: [String]?
    /// Routes that may stand at most once in the stack (the space hub's `openOnce`).
    public var singletons: Set<String>
    /// Positional requirements: the route at an index must be one of a set (the space hub: the screen
    /// just above the space hub depends on the space's kind).
    public var positions: [PositionRequirement]
    /// What makes two routes of this stack the same (model language 1.1; `.name` in a v1 model).
    public var identity: RouteIdentity
    /// Which occurrence `route_pop_to` goes back to (model language 1.1; `.last` in a v1 model).
    public var popTo: PopToMatch
    /// Whether a pop of any count is normal here: it clamps without `stack.out_of_range`
    /// (the PoC app pops two from every screen).
    public var clampedPops: Bool
    /// At most this many routes above the root (the registry system's sheet slot holds one view).
    public var maxDepth: Int?

    public init(
        routes: [String]? = nil, singletons: Set<String> = [], positions: [PositionRequirement] = [],
        identity: RouteIdentity = .name, popTo: PopToMatch = .last, clampedPops: Bool = false, maxDepth: Int? = nil
    ) {
        self.routes = routes
        self.singletons = singletons
        self.positions = positions
        self.identity = identity
        self.popTo = popTo
        self.clampedPops = clampedPops
        self.maxDepth = maxDepth
        self.routeSet = routes.map(Set.init)
    }

    /// What makes two routes of a stack the same one.
    public enum RouteIdentity: String, Sendable, Equatable, CaseIterable {
        /// The route name (the v1 model): two chats with different ids are one route.
        case name
        /// The name with its `route_params` (the space hub's `HomePath` compares whole values): a
        /// singleton stands at most once per value.
        case value
    }

    /// Which occurrence of a route `route_pop_to` goes back to.
    public enum PopToMatch: String, Sendable, Equatable, CaseIterable {
        /// The topmost (the v1 model; the PoC router's return to a screen searches from the top).
        case last
        /// The first from the root (the space hub's `HomePath.popTo`: `firstIndex`).
        case first
    }

    private var routeSet: Set<String>?

    public func accepts(_ route: String) -> Bool {
        routeSet?.contains(route) ?? true
    }
}

/// "The route at `index` of this stack, when the stack is that deep, is one of `oneOf`" —
/// while one of `flows` is active, or always when `flows` is `nil`.
///
/// An empty `oneOf` keeps the position empty: no route may stand there. With `flows`, the
/// requirement can follow the app's mode: the space hub requires the widgets screen just
/// above the hub in a data space and the space chat in a chat space
/// (`{"index": 0, "one_of": ["widgets"], "flows": ["dataSpace"]}`).
public struct PositionRequirement: Sendable, Equatable {
    public var index: Int
    public var oneOf: [String]
    /// The flows in which the requirement holds; `nil`: every flow.
    public var flows: [String]?

    public init(index: Int, oneOf: [String], flows: [String]? = nil) {
        self.index = index
        self.oneOf = oneOf
        self.flows = flows
    }

    /// Whether the requirement holds while `flow` is active.
    public func applies(in flow: String) -> Bool {
        flows?.contains(flow) ?? true
    }

    /// Whether `route` may stand at `index` while `flow` is active.
    public func allows(_ route: String, at index: Int, in flow: String) -> Bool {
        index != self.index || !applies(in: flow) || oneOf.contains(route)
    }
}

/// A modal: the flows it may be presented in (`nil`: every flow), the styles it may be
/// presented with (`nil`: any), and the stack it owns, if it carries its own navigation
/// (the modular tabs system's sheets and covers with their own `NavigationStack`).
///
/// A modal's stack can be operated on only while the modal is presented; it starts empty when
/// the modal is presented and is emptied when the modal is dismissed. While it holds routes and
/// its modal is on top, the visible screen is its top route.
public struct ModalSpec: Sendable, Equatable {
    public var flows: [String]?
    /// Presentation styles allowed (`sheet`, `cover`, `overlay`); `nil`: any.
    public var styles: [String]?
    /// The stack this modal owns, if any.
    public var stack: String?
    /// The stacks whose context presents this modal (model language 1.1; `nil`: whatever is
    /// shown on top). One of them must be shown; in a flow with `presentation: contexts`, it
    /// must also have no modal above it yet.
    public var from: [String]?
    /// The routes this modal may be presented on: the top route of the stack it covers
    /// (model language 1.1; pages with widgets: a page overlays only its own widgets). `nil`: any.
    public var routes: [String]?
    /// Where pushes without a named stack go while this modal is on top (model language 1.1).
    public var pushes: PushPlacement?

    public init(
        flows: [String]? = nil, styles: [String]? = nil, stack: String? = nil, from: [String]? = nil,
        routes: [String]? = nil, pushes: PushPlacement? = nil
    ) {
        self.flows = flows
        self.styles = styles
        self.stack = stack
        self.from = from
        self.routes = routes
        self.pushes = pushes
    }

    /// Where pushes go while a modal is on top.
    public enum PushPlacement: String, Sendable, Equatable, CaseIterable {
        /// On the modal's own stack (the default for a modal that has one).
        case ownStack = "own_stack"
        /// On the stack below the modal (the registry system: a `.push` lands on the main path, behind
        /// the sheet, whose slot holds one view).
        case below
    }

    /// The stack pushes go on while this modal is on top, if it is its own.
    public var pushStack: String? {
        pushes == .below ? nil : stack
    }

    public func isAllowed(in flow: String) -> Bool {
        flows?.contains(flow) ?? true
    }

    /// Whether the modal may be presented with this style (`"sheet"`, `"cover"`, `"overlay"`).
    public func allowsStyle(_ style: String) -> Bool {
        styles?.contains(style) ?? true
    }
}

/// A typed cross-flow command and the valid state it must leave behind.
public struct CommandSpec: Sendable, Equatable {
    public var flow: String
    public var tab: String?
    public var reset: [String]
    public var dismissModals: Bool

    public init(flow: String, tab: String? = nil, reset: [String] = [], dismissModals: Bool = false) {
        self.flow = flow
        self.tab = tab
        self.reset = reset
        self.dismissModals = dismissModals
    }
}

/// The model's stacks by number (`stackNames` order, then any other declared stack), with the
/// facts a fold asks about a stack on every event (NavReplay's `NavigationFold`): derived once
/// per model, as a fold is set up for every session.
package final class StackTable: Sendable {
    package let names: [String]
    package let specs: [StackSpec]
    /// `NavigationModel.owningModal(of:)` of each stack.
    package let owningModals: [String?]
    /// Whether each stack compares routes by value (`identity: value`), and whether any does.
    package let valueIdentity: [Bool]
    package let anyValueIdentity: Bool
    /// Whether a route enters each stack with no check but `route.unknown`: no singletons, no
    /// positions, no `max_depth` (the fold then reads nothing else of its spec).
    package let plainEntry: [Bool]
    /// Each stack's declared routes (`StackSpec.routes`, by number), read without copying its spec.
    package let declaredRoutes: [[String]?]
    private let numbers: [String: Int]

    init(
        stacks modelStacks: [String: StackSpec], stackNames: [String], modals: [String: ModalSpec], modalNames: [String]
    ) {
        var names: [String] = []
        var specs: [StackSpec] = []
        names.reserveCapacity(modelStacks.count)
        specs.reserveCapacity(modelStacks.count)
        // A set beside the array: `names.contains` made a model of 64,000 stacks load in 40 s.
        var added: Set<String> = []
        for name in stackNames where !added.contains(name) {
            guard let spec = modelStacks[name] else { continue }
            names.append(name)
            specs.append(spec)
            added.insert(name)
        }
        if names.count < modelStacks.count {
            for (name, spec) in modelStacks.sorted(by: { $0.key < $1.key }) where !added.contains(name) {
                names.append(name)
                specs.append(spec)
                added.insert(name)
            }
        }
        self.names = names
        self.specs = specs
        let numberOf = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($0.element, $0.offset) })
        numbers = names.count <= 8 ? [:] : numberOf
        // `NavigationModel.owningModal(of:)`: the first modal in file order that owns the stack.
        var owningModals = [String?](repeating: nil, count: names.count)
        for modal in modalNames {
            guard let stack = modals[modal]?.stack, let number = numberOf[stack] else { continue }
            if owningModals[number] == nil { owningModals[number] = modal }
        }
        self.owningModals = owningModals
        valueIdentity = specs.map { $0.identity == .value }
        anyValueIdentity = valueIdentity.contains(true)
        plainEntry = specs.map { $0.singletons.isEmpty && $0.positions.isEmpty && $0.maxDepth == nil }
        declaredRoutes = specs.map(\.routes)
    }

    package var count: Int { names.count }

    /// The number of a declared stack; `nil` for a name the model does not declare.
    package func number(of name: String) -> Int? {
        // Models declare a handful of stacks: comparing short names beats hashing one.
        if names.count <= 8 { return names.firstIndex(of: name) }
        return numbers[name]
    }

    /// `StackSpec.accepts(_:)`, by a scan of a short route list rather than a hash.
    package func accepts(_ route: String, number: Int) -> Bool {
        guard let routes = declaredRoutes[number] else { return true }
        if routes.count <= StackTable.shortList { return routes.contains(route) }
        return specs[number].accepts(route)
    }

    /// Route lists up to this long are scanned: comparing a few short names beats hashing one.
    package static let shortList = 16
}
