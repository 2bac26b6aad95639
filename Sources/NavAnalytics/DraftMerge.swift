public import NavModel

extension DraftModel {
    /// This model widened with what a draft from logs declares: every flow, tab, stack, route,
    /// modal (with its flows and styles) and command it lacks. Nothing this model allows is taken
    /// away; a flow that owns one stack keeps it.
    public func widened(with logs: DraftModel) -> DraftModel {
        var merged = self
        for (name, flow) in logs.flows {
            guard let own = merged.flows[name] else {
                merged.flows[name] = flow
                continue
            }
            if case .tabs(let tabs) = own.kind, let more = flow.tabs {
                merged.flows[name]?.kind = .tabs(tabs + more.filter { !tabs.contains($0) }.sorted())
            }
        }
        for (name, stack) in logs.stacks {
            guard let own = merged.stacks[name] else {
                merged.stacks[name] = stack
                continue
            }
            if let routes = own.routes, let more = stack.routes {
                merged.stacks[name]?.routes = routes + more.filter { !routes.contains($0) }.sorted()
            }
        }
        for (name, modal) in logs.modals {
            guard let own = merged.modals[name] else {
                // A stack a flow of this model owns cannot be the modal's own.
                var added = modal
                if let stack = modal.stack, merged.flows.values.contains(where: { $0.ownedStacks.contains(stack) }) { added.stack = nil }
                merged.modals[name] = added
                continue
            }
            if let flows = own.flows, let more = modal.flows {
                merged.modals[name]?.flows = flows + more.filter { !flows.contains($0) }.sorted()
            }
            if let styles = own.styles {
                merged.modals[name]?.styles = modal.styles.map { styles + $0.filter { !styles.contains($0) }.sorted() }
            }
        }
        for (name, command) in logs.commands where merged.commands[name] == nil { merged.commands[name] = command }
        return merged
    }

    /// What `other` adds to this model, one line each, sorted.
    public func differences(to other: DraftModel) -> [String] {
        var lines: [String] = []
        func added(_ old: [String]?, _ new: [String]?, _ what: String) {
            guard let old else { return }
            guard let new else {
                lines.append("\(what): any")
                return
            }
            for name in new where !old.contains(name) { lines.append("\(what): \(name)") }
        }
        for (name, flow) in other.flows {
            guard let own = flows[name] else {
                lines.append("flow \(name)")
                continue
            }
            added(own.tabs, flow.tabs, "flow \(name) tab")
        }
        for (name, stack) in other.stacks {
            guard let own = stacks[name] else {
                lines.append("stack \(name)")
                continue
            }
            added(own.routes, stack.routes, "stack \(name) route")
            for route in own.singletons.subtracting(stack.singletons).sorted() { lines.append("stack \(name) singleton dropped: \(route)") }
            if stack.clampedPops, !own.clampedPops { lines.append("stack \(name) clamped_pops") }
            if stack.popTo != own.popTo { lines.append("stack \(name) pop_to: \(stack.popTo.rawValue)") }
        }
        for (name, modal) in other.modals {
            guard let own = modals[name] else {
                lines.append("modal \(name)")
                continue
            }
            added(own.flows, modal.flows, "modal \(name) flow")
            added(own.styles, modal.styles, "modal \(name) style")
        }
        for (name, command) in other.commands {
            guard let own = commands[name] else {
                lines.append("command \(name)")
                continue
            }
            if own != command { lines.append("command \(name) postcondition widened") }
        }
        return lines.sorted()
    }
}
