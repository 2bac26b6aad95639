public import NavModel

/// The draft's skeleton from the first pass: flows with their stack or tabs, stacks with every
/// route that entered them, modals with the flows and styles they were presented in and their
/// own stacks, commands with their target flow, and the initial state. Nothing it declares is
/// stricter than a name list: no singleton, position, capacity or restriction.
public enum InferStructure {
    public static func draft(_ names: Evidence, name: String) -> DraftModel {
        let tabNames = Set(
            names.all { if case .tab(let tab, _) = $0 { tab } else { nil } }.map(\.0)
                + names.all { if case .tabName(let tab) = $0 { tab } else { nil } }.map(\.0))
        var stackNames = Set(names.all { if case .stackInFlow(let stack, _) = $0 { stack } else { nil } }.map(\.0))
        stackNames.formUnion(names.all { if case .route(let stack, _) = $0 { stack } else { nil } }.map(\.0))
        let modalNames = Set(names.all { if case .modal(let modal, _) = $0 { modal } else { nil } }.map(\.0))

        // A stack never used without a modal, always with the same one, is that modal's own.
        var modalStacks: [String: String] = [:]
        for stack in stackNames.sorted() where !tabNames.contains(stack) && names[.stackBare(stack)] == 0 {
            let uses = names[.stackUses(stack)]
            guard uses > 0 else { continue }
            let owners = modalNames.sorted().filter { names[.stackUsesWith(stack: stack, modal: $0)] == uses && modalStacks[$0] == nil }
            if let owner = owners.first { modalStacks[owner] = stack }
        }
        let ownStacks = Set(modalStacks.values)

        // The initial flow: the one sessions without a snapshot name first.
        let named = Set(names.all { if case .flow(let flow) = $0 { flow } else { nil } }.map(\.0))
        let initialVotes = names.all { if case .initialFlow(let flow) = $0 { flow } else { nil } }
        let firstStack = mostSupported(names.all { if case .initialStack(let stack) = $0 { stack } else { nil } })
        var initialFlow = mostSupported(initialVotes)
        // Clues of the initial flow that no session named.
        func flowOf(_ flow: String?) -> String? { flow ?? initialFlow }
        var used: [String: [String: Int]] = [:]  // flow → stack → sessions
        var unnamedUses: [String: Int] = [:]
        for ((stack, flow), support) in names.all({ if case .stackInFlow(let s, let f) = $0 { (s, f) } else { nil } })
        where !ownStacks.contains(stack) {
            if let flow {
                used[flow, default: [:]][stack, default: 0] += support.count
            } else {
                unnamedUses[stack, default: 0] += support.count
            }
        }
        if initialFlow == nil {
            // No session named its initial flow: the flow that uses the first stack shown, else
            // a flow named after that stack.
            let stack = firstStack ?? unnamedUses.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key
            initialFlow =
                used.keys.sorted().first { used[$0]?[stack ?? ""] != nil }
                ?? (tabNames.contains(stack ?? "") ? "tabs" : stack) ?? named.sorted().first ?? "main"
        }
        let start = initialFlow ?? "main"
        for (stack, count) in unnamedUses { used[start, default: [:]][stack, default: 0] += count }
        var tabsOf: [String: Set<String>] = [:]
        for ((tab, flow), _) in names.all({ if case .tab(let t, let f) = $0 { (t, f) } else { nil } }) {
            tabsOf[flowOf(flow) ?? start, default: []].insert(tab)
        }

        var draft = DraftModel(name: name, initial: NavigationModel.InitialState(flow: start))
        for flow in named.union([start]).union(used.keys).union(tabsOf.keys).sorted() {
            let stacks = used[flow] ?? [:]
            var tabs = tabsOf[flow] ?? []
            tabs.formUnion(stacks.keys.filter { tabNames.contains($0) })
            if !tabs.isEmpty {
                draft.flows[flow] = FlowSpec(kind: .tabs(tabs.sorted()))
            } else if let stack = stacks.max(by: { ($0.value, $1.key) < ($1.value, $0.key) })?.key {
                draft.flows[flow] = FlowSpec(kind: .stack(stack))
            } else {
                draft.flows[flow] = FlowSpec(kind: .stack(flow))
                stackNames.insert(flow)
            }
        }
        for flow in draft.flows.values { stackNames.formUnion(flow.ownedStacks) }
        for stack in stackNames.sorted() {
            let routes = names.all { if case .route(stack, let route) = $0 { route } else { nil } }.map(\.0)
            var spec = StackSpec(routes: routes.sorted())
            if names[.routeParams(stack)] > 0 { spec.identity = .value }
            draft.stacks[stack] = spec
        }
        for modal in modalNames.sorted() {
            let flows = names.all { if case .modal(modal, let flow) = $0 { flowOf(flow) ?? start } else { nil } }.map(\.0)
            let styles = names.all { if case .modalStyle(modal, let style) = $0 { style } else { nil } }.map(\.0)
            draft.modals[modal] = ModalSpec(
                flows: Array(Set(flows)).sorted(), styles: styles.isEmpty ? nil : styles.sorted(), stack: modalStacks[modal])
        }
        for (command, _) in names.all({ if case .command(let c) = $0 { c } else { nil } }) {
            let targets = names.all { if case .commandTarget(command, let flow) = $0 { flow } else { nil } }
            draft.commands[command] = CommandSpec(flow: mostSupported(targets) ?? start)
        }
        if let tabs = draft.flows[start]?.tabs {
            let vote = mostSupported(names.all { if case .initialTab(let tab) = $0 { tab } else { nil } })
            let shown = firstStack.flatMap { tabs.contains($0) ? $0 : nil }
            draft.initial.tab = shown ?? vote.flatMap { tabs.contains($0) ? $0 : nil } ?? tabs.first
        } else if let vote = mostSupported(names.all({ if case .initialTab(let tab) = $0 { tab } else { nil } })),
            draft.flows.values.contains(where: { $0.tabs?.contains(vote) ?? false })
        {
            draft.initial.tab = vote
        }
        return draft
    }

    /// The value most sessions show; ties go to the smallest.
    static func mostSupported(_ votes: [(String, Support)]) -> String? {
        votes.max { ($0.1.count, $1.0) < ($1.1.count, $0.0) }?.0
    }
}
