public import NavModel

/// The state after each step of a session (`SessionAuditOptions.recordSteps`), kept as shared
/// stacks: each stack and the modals are a path in one tree of names, so a push adds one node
/// whatever the depth, and a step stores only the stacks it changed.
///
/// A `NavigationState` per step held depth x events names: one session of 20,000 pushes took
/// 3.3 GB in `report`. Here the memory grows with the events; a state is rebuilt only when a
/// writer asks for it, walking the steps in order (`SessionAudit.forEachStep`).
public struct StepStates: Sendable {
    /// The tables, shared by copies until one records (a `SessionAudit` is copied into a run's
    /// collections; inline, these fields made each copy 176 bytes larger).
    private final class Box: @unchecked Sendable {  // mutated only while uniquely referenced
        var tables: Tables
        init(_ tables: Tables) { self.tables = tables }
    }

    private var box: Box

    public init(initial: NavigationState) { box = Box(Tables(initial: initial)) }

    /// `rolling`: keep only the last step (a walk that hands each step on as it is recorded,
    /// `cursorAtLast()`): what it holds does not grow with the steps, but for the shared stacks'
    /// nodes (one per route that a path ever held).
    package init(initial: NavigationState, rolling: Bool) {
        box = Box(Tables(initial: initial))
        box.tables.rolling = rolling
    }

    /// The state before the first step.
    public var initial: NavigationState { box.tables.initial }

    /// How many steps are recorded.
    public var count: Int { box.tables.count }

    /// Records the state after the next step.
    public mutating func record(_ state: NavigationState) {
        if !isKnownUniquelyReferenced(&box) { box = Box(box.tables) }
        box.tables.record(state)
    }

    fileprivate struct Tables: Sendable {
        /// A node of the tree: a name on top of its parent's path.
        struct Node: Sendable {
            var parent: Int32
            var depth: Int32
            /// The node of the path's first `ListedNames.head` names (itself when it is no
            /// deeper): a condensed list is read from here and from the top, not walked whole.
            var head: Int32
            var name: String
        }

        struct Child: Hashable, Sendable {
            var parent: Int32
            var name: String
        }

        /// A stack that is not in the state's `stacks` at all (not the same as an empty one).
        static let absent: Int32 = -2
        /// The empty path.
        static let empty: Int32 = -1

        /// The state before the first step.
        let initial: NavigationState
        var nodes: [Node] = []
        /// Each (parent, name) is one node: a path built again (a snapshot repeated, a stack reset
        /// and pushed the same way) reuses its nodes.
        var children: [Child: Int32] = [:]

        // Per step.
        var flows: [String] = []
        var tabs: [String?] = []
        var modalNodes: [Int32] = []
        /// Step `i` changed `changedStacks[changeStarts[i]..<changeStarts[i + 1]]`, in name order.
        var changeStarts: [Int] = [0]
        var changedStacks: [(name: String, node: Int32)] = []

        // What the last recorded step left.
        var last: NavigationState
        var lastNodes: [String: Int32]
        var lastModalNode: Int32
        var initialModalNode: Int32 = -1
        var initialStackNodes: [String: Int32] = [:]
        /// Whether only the last step is kept.
        var rolling = false
        /// What the last step changed from: the flow, tab and modals before it, and the node
        /// each stack it changed had.
        var beforeLast: (flow: String, tab: String?, modalNode: Int32, stacks: [(name: String, node: Int32)]) = ("", nil, -1, [])

        init(initial: NavigationState) {
            self.initial = initial
            last = initial
            lastNodes = [:]
            lastModalNode = Self.empty
            lastModalNode = node(for: initial.modals, replacing: [], at: Self.empty)
            for (name, routes) in initial.stacks { lastNodes[name] = node(for: routes, replacing: [], at: Self.empty) }
            initialModalNode = lastModalNode
            initialStackNodes = lastNodes
        }

        /// How many steps are recorded.
        var count: Int { flows.count }

        /// Records the state after the next step.
        mutating func record(_ state: NavigationState) {
            beforeLast = (last.flow, last.tab, lastModalNode, [])
            if rolling {
                flows.removeAll(keepingCapacity: true)
                tabs.removeAll(keepingCapacity: true)
                modalNodes.removeAll(keepingCapacity: true)
                changeStarts.removeLast(changeStarts.count - 1)
                changedStacks.removeAll(keepingCapacity: true)
            }
            flows.append(state.flow)
            tabs.append(state.tab)
            if state.modals != last.modals { lastModalNode = node(for: state.modals, replacing: last.modals, at: lastModalNode) }
            modalNodes.append(lastModalNode)
            // Unchanged stacks share their storage with the last state's, so most comparisons are
            // one pointer (and the whole dictionary's, when no stack changed).
            if state.stacks != last.stacks {
                var changed: [(name: String, node: Int32)] = []
                for (name, routes) in state.stacks {
                    let before = last.stacks[name]
                    guard before != routes else { continue }
                    let node = node(for: routes, replacing: before ?? [], at: lastNodes[name] ?? Self.absent)
                    changed.append((name, node))
                }
                for name in last.stacks.keys where state.stacks[name] == nil { changed.append((name, Self.absent)) }
                changed.sort { $0.name < $1.name }  // as `changes(to:)` orders them
                for change in changed {
                    beforeLast.stacks.append((change.name, lastNodes[change.name] ?? Self.absent))
                    lastNodes[change.name] = change.node
                }
                changedStacks += changed
            }
            changeStarts.append(changedStacks.count)
            last = state
        }

        /// The node of `names`, which replace `previous` (whose node is `previousNode`): the common
        /// prefix is kept, the rest added.
        mutating func node(for names: [String], replacing previous: [String], at previousNode: Int32) -> Int32 {
            var kept = 0
            let shorter = min(names.count, previous.count)
            while kept < shorter, names[kept] == previous[kept] { kept += 1 }
            var node = previousNode < 0 ? Self.empty : previousNode
            for _ in kept..<previous.count { node = nodes[Int(node)].parent }
            for name in names[kept...] {
                let child = Child(parent: node, name: name)
                if let existing = children[child] {
                    node = existing
                } else {
                    let depth = node < 0 ? 1 : nodes[Int(node)].depth + 1
                    let index = Int32(nodes.count)
                    nodes.append(
                        Node(parent: node, depth: depth, head: depth <= ListedNames.head ? index : nodes[Int(node)].head, name: name))
                    node = index
                    children[child] = node
                }
            }
            return node
        }

        func names(of node: Int32) -> [String] {
            guard node >= 0 else { return [] }
            var names = [String](repeating: "", count: Int(nodes[Int(node)].depth))
            var current = node
            while current >= 0 {
                let entry = nodes[Int(current)]
                names[Int(entry.depth) - 1] = entry.name
                current = entry.parent
            }
            return names
        }

        /// `names(of:)` as findings list them (`ListedNames`), without walking the whole path.
        func condensedNames(of node: Int32) -> [String] {
            let depth = self.depth(of: node)
            guard depth > ListedNames.limit else { return names(of: node) }
            var top: [String] = []
            top.reserveCapacity(ListedNames.limit - ListedNames.head)
            var current = node
            while top.count < ListedNames.limit - ListedNames.head {
                top.append(nodes[Int(current)].name)
                current = nodes[Int(current)].parent
            }
            return names(of: nodes[Int(node)].head) + [ListedNames.marker(leftOut: depth - ListedNames.limit)] + top.reversed()
        }

        func depth(of node: Int32) -> Int { node < 0 ? 0 : Int(nodes[Int(node)].depth) }
    }

    /// A walk through the steps in order.
    public func cursor() -> Cursor { Cursor(box.tables) }

    /// A cursor at the last step recorded (the only one kept, when `rolling`).
    package func cursorAtLast() -> Cursor { Cursor(atLastOf: box.tables) }

    /// Every step's state and changes, in order. For tests and small sessions: it holds what
    /// this type exists not to hold (depth x events names).
    public var materialized: [(state: NavigationState, changes: [StateChange])] {
        var cursor = cursor()
        var all: [(state: NavigationState, changes: [StateChange])] = []
        while cursor.advance() { all.append((cursor.state, cursor.changes)) }
        return all
    }

    /// How many nodes the shared stacks hold (for tests of the sharing).
    package var nodeCount: Int { box.tables.nodes.count }

    /// Walks the steps in order; each state is rebuilt only when asked for.
    public struct Cursor {
        private let states: Tables
        /// The step the cursor is at; -1 before the first.
        public private(set) var step = -1
        private var flow: String
        private var tab: String?
        private var modalNode: Int32
        private var stackNodes: [String: Int32]
        private var previousFlow: String
        private var previousTab: String?
        private var previousModalNode: Int32
        private var previousNodes: [(name: String, node: Int32)] = []

        fileprivate init(_ states: Tables) {
            self.states = states
            flow = states.initial.flow
            tab = states.initial.tab
            modalNode = states.initialModalNode
            stackNodes = states.initialStackNodes
            previousFlow = flow
            previousTab = tab
            previousModalNode = modalNode
        }

        fileprivate init(atLastOf states: Tables) {
            self.states = states
            step = states.count - 1
            flow = states.last.flow
            tab = states.last.tab
            modalNode = states.lastModalNode
            stackNodes = states.lastNodes
            previousFlow = states.beforeLast.flow
            previousTab = states.beforeLast.tab
            previousModalNode = states.beforeLast.modalNode
            previousNodes = states.beforeLast.stacks
        }

        /// Moves to the next step; false past the last.
        public mutating func advance() -> Bool {
            guard step + 1 < states.count else { return false }
            step += 1
            previousFlow = flow
            previousTab = tab
            previousModalNode = modalNode
            flow = states.flows[step]
            tab = states.tabs[step]
            modalNode = states.modalNodes[step]
            previousNodes.removeAll(keepingCapacity: true)
            for change in states.changedStacks[states.changeStarts[step]..<states.changeStarts[step + 1]] {
                previousNodes.append((change.name, stackNodes[change.name] ?? Tables.absent))
                stackNodes[change.name] = change.node
            }
            return true
        }

        /// The state after the current step.
        public var state: NavigationState {
            var stacks: [String: [String]] = [:]
            for (name, node) in stackNodes where node != Tables.absent { stacks[name] = states.names(of: node) }
            return NavigationState(flow: flow, tab: tab, stacks: stacks, modals: states.names(of: modalNode))
        }

        /// The flow after the current step.
        public var currentFlow: String { flow }
        /// The selected tab after the current step.
        public var currentTab: String? { tab }
        /// The presented modals after the current step, the top one last.
        public var currentModals: [String] { states.names(of: modalNode) }

        /// The state after the current step as findings show states: each list of more than
        /// `ListedNames.limit` names condensed. Read in time that does not grow with the depth.
        public var condensedState: NavigationState {
            var stacks: [String: [String]] = [:]
            for (name, node) in stackNodes where node != Tables.absent { stacks[name] = states.condensedNames(of: node) }
            return NavigationState(flow: flow, tab: tab, stacks: stacks, modals: states.condensedNames(of: modalNode))
        }

        /// What the current step changed, as `NavigationState.changes(to:)` lists it.
        public var changes: [StateChange] { changes(names: states.names) }

        /// The same, each list condensed as in `condensedState`.
        public var condensedChanges: [StateChange] { changes(names: states.condensedNames) }

        private func changes(names: (Int32) -> [String]) -> [StateChange] {
            var changes: [StateChange] = []
            if flow != previousFlow { changes.append(.flow(from: previousFlow, to: flow)) }
            if tab != previousTab { changes.append(.tab(from: previousTab, to: tab)) }
            for (name, before) in previousNodes {
                // One path is one node, so the nodes compare as the lists would; an absent stack
                // and an empty one are alike here.
                let after = stackNodes[name] ?? Tables.absent
                if max(before, Tables.empty) != max(after, Tables.empty) {
                    changes.append(.stack(name, from: names(before), to: names(after)))
                }
            }
            if modalNode != previousModalNode {
                changes.append(.modals(from: names(previousModalNode), to: names(modalNode)))
            }
            return changes
        }

        /// How many modals are presented after the current step.
        public var modalCount: Int { states.depth(of: modalNode) }

        /// A stack's routes after the current step; `nil` when the state does not list it.
        public func routes(of stack: String) -> [String]? {
            guard let node = stackNodes[stack], node != Tables.absent else { return nil }
            return states.names(of: node)
        }

        /// A stack's routes before the current step (in the initial state, at the first).
        public func routesBefore(of stack: String) -> [String]? {
            let node = previousNodes.first { $0.name == stack }?.node ?? stackNodes[stack] ?? Tables.absent
            return node == Tables.absent ? nil : states.names(of: node)
        }

        /// A stack's depth after the current step; 0 when the state does not list it.
        public func depth(of stack: String) -> Int { states.depth(of: stackNodes[stack] ?? Tables.absent) }

        /// The depth of each stack in the state after the current step (stacks not in it are left out).
        public func forEachStackDepth(_ body: (String, Int) -> Void) {
            for (name, node) in stackNodes where node != Tables.absent { body(name, states.depth(of: node)) }
        }
    }
}
