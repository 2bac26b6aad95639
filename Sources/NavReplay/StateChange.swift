public import NavModel

/// One difference between two states, for replays and finding explanations.
public enum StateChange: Sendable, Hashable, CustomStringConvertible {
    case flow(from: String, to: String)
    case tab(from: String?, to: String?)
    case stack(String, from: [String], to: [String])
    case modals(from: [String], to: [String])

    public var description: String { describe(list: { "[" + $0.joined(separator: ", ") + "]" }) }

    /// The same, with long lists shown as findings show them (`ListedNames`), for a page whose
    /// size must not grow with a stack's depth.
    public var condensedDescription: String { describe(list: { "[" + ListedNames($0).joined(separator: ", ") + "]" }) }

    private func describe(list: ([String]) -> String) -> String {
        switch self {
        case .flow(let from, let to): return "flow: \(from) → \(to)"
        case .tab(let from, let to): return "tab: \(from ?? "null") → \(to ?? "null")"
        case .stack(let name, let from, let to): return "\(name): \(list(from)) → \(list(to))"
        case .modals(let from, let to): return "modals: \(list(from)) → \(list(to))"
        }
    }
}

extension NavigationState {
    /// What differs from this state to `other`: flow, tab, each stack (in name order), modals.
    public func changes(to other: NavigationState) -> [StateChange] {
        var changes: [StateChange] = []
        if flow != other.flow { changes.append(.flow(from: flow, to: other.flow)) }
        if tab != other.tab { changes.append(.tab(from: tab, to: other.tab)) }
        for name in Set(stacks.keys).union(other.stacks.keys).sorted() {
            let before = stacks[name] ?? []
            let after = other.stacks[name] ?? []
            if before != after { changes.append(.stack(name, from: before, to: after)) }
        }
        if modals != other.modals { changes.append(.modals(from: modals, to: other.modals)) }
        return changes
    }
}
