import NavJSON
public import NavModel

/// A state as a finding keeps it: every list of more than `ListedNames.limit` names (a stack's
/// routes, the modals) condensed as findings list names, so that what a finding holds and writes
/// does not grow with a stack's depth.
///
/// A deep stack's left-out middle can change while its condensed form stays the same (a snapshot
/// that resets it to as many routes with the same ends); each condensed list keeps a fingerprint
/// of the whole list, so that such a change is still seen as one.
struct CondensedState: Sendable {
    /// The state, its long lists condensed.
    var state: NavigationState
    /// The `StableHash` of each condensed stack's whole list, by stack name.
    var stackFingerprints: [String: UInt64] = [:]
    /// The same for the modals, when condensed.
    var modalsFingerprint: UInt64?

    /// Whether some list was condensed.
    private(set) var isCondensed = false

    /// `fingerprinted`: whether to keep the fingerprints, for `changes(to:)` (not needed when
    /// the changes are found on the whole states).
    init(_ whole: NavigationState, fingerprinted: Bool = true) {
        state = whole
        for (name, routes) in whole.stacks where routes.count > ListedNames.limit {
            state.stacks[name] = ListedNames(routes).shown
            if fingerprinted { stackFingerprints[name] = Self.fingerprint(routes) }
            isCondensed = true
        }
        if whole.modals.count > ListedNames.limit {
            state.modals = ListedNames(whole.modals).shown
            if fingerprinted { modalsFingerprint = Self.fingerprint(whole.modals) }
            isCondensed = true
        }
    }

    static func fingerprint(_ names: [String]) -> UInt64 {
        var hasher = StableHash(tag: StableHash.Tag.array)
        for name in names { hasher.combine(StableHash.string(name)) }
        hasher.combine(UInt64(names.count))
        return hasher.finish()
    }

    /// What differs from this state to `other`, as `NavigationState.changes(to:)` lists it, with
    /// the lists condensed.
    func changes(to other: CondensedState) -> [StateChange] {
        var changes: [StateChange] = []
        if state.flow != other.state.flow { changes.append(.flow(from: state.flow, to: other.state.flow)) }
        if state.tab != other.state.tab { changes.append(.tab(from: state.tab, to: other.state.tab)) }
        for name in Set(state.stacks.keys).union(other.state.stacks.keys).sorted() {
            let before = state.stacks[name] ?? []
            let after = other.state.stacks[name] ?? []
            if before != after || stackFingerprints[name] != other.stackFingerprints[name] {
                changes.append(.stack(name, from: before, to: after))
            }
        }
        if state.modals != other.state.modals || modalsFingerprint != other.modalsFingerprint {
            changes.append(.modals(from: state.modals, to: other.state.modals))
        }
        return changes
    }
}

extension StateChange {
    /// The change with its lists condensed as findings list names (`ListedNames`).
    var condensed: StateChange {
        switch self {
        case .flow, .tab: self
        case .stack(let name, let from, let to): .stack(name, from: ListedNames(from).shown, to: ListedNames(to).shown)
        case .modals(let from, let to): .modals(from: ListedNames(from).shown, to: ListedNames(to).shown)
        }
    }
}

/// The states around findings and what changed between them, as findings keep them: made
/// once for all the findings of one event (or one group's end).
struct StateExplanation: Sendable {
    var before: NavigationState
    var after: NavigationState
    /// Found on the whole states when a list was condensed; `nil` when none was.
    var changes: [StateChange]?

    /// From the whole states.
    init(before: NavigationState, after: NavigationState) {
        let condensedBefore = CondensedState(before, fingerprinted: false)
        let condensedAfter = CondensedState(after, fingerprinted: false)
        self.before = condensedBefore.state
        self.after = condensedAfter.state
        if condensedBefore.isCondensed || condensedAfter.isCondensed { changes = before.changes(to: after).map(\.condensed) }
    }

    /// From states already condensed (held until a group ends).
    init(before: CondensedState, after: CondensedState) {
        self.before = before.state
        self.after = after.state
        if before.isCondensed || after.isCondensed { changes = before.changes(to: after) }
    }
}

extension Finding {
    /// Sets the states around this finding from the whole states: kept condensed
    /// (`CondensedState`), with what changed found on the whole states.
    public mutating func explain(before: NavigationState, after: NavigationState) {
        explain(StateExplanation(before: before, after: after))
    }

    mutating func explain(_ explanation: StateExplanation) {
        setStates(before: explanation.before, after: explanation.after, changes: explanation.changes)
    }
}
