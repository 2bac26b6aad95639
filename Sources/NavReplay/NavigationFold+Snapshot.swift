import NavEvents
import NavJSON
import NavModel

/// `session_start`: the state resets to the model's initial one, or to the event's snapshot,
/// checked by the same rules' snapshot checks. And the states the fold keeps for its findings.
extension NavigationFold {
    /// Keeps the state before the event being applied. Every change of the state in `apply`
    /// comes after the event's first finding, or takes this itself first: the debug build checks.
    /// Without `keepsStates` nothing is kept: the copy would make the event's own change copy
    /// the stack it changes (a finding at every push onto a deep stack was quadratic).
    mutating func captureStateBefore() {
        if keepsStates, stateBefore == nil { stateBefore = working }
    }

    /// With `keepsStates`: the state before the event being applied, as a group holds it until
    /// it ends (condensed: a whole copy per pending command made memory grow with depth x commands).
    mutating func heldStateBefore() -> CondensedState? {
        guard keepsStates else { return nil }
        captureStateBefore()
        return CondensedState((stateBefore ?? working).state(stacks, symbols))
    }

    /// With `keepsStates`: the state now, as a group holds it until it ends.
    func heldState() -> CondensedState? {
        keepsStates ? CondensedState(state) : nil
    }

    // MARK: session_start

    mutating func start(from snapshot: NavigationState?, reference: EventReference) {
        for number in stackWitness.indices { stackWitness[number] = nil }
        if !doubtfulRoutes.isEmpty { doubtfulRoutes = [:] }
        if !doubtfulCuts.isEmpty { doubtfulCuts = [:] }
        otherStackWitness = [:]
        modalWitness = [:]
        flowWitness = reference
        tabWitness = reference
        guard let snapshot else {
            working = initialState
            flowSpec = model.flows[working.flow]
            return
        }
        var restored = initialState
        restored.flow = snapshot.flow
        restored.tab = snapshot.tab
        if let violation = FlowUnknown.check(snapshot.flow, in: .snapshot, model: model) {
            report(violation)
        } else if let violation = TabInvalid.check(restoring: snapshot.tab, flow: snapshot.flow, model: model) {
            report(violation)
        }
        for stack in snapshot.stacks.keys.sorted() {
            let routes = snapshot.stacks[stack] ?? []
            guard let number = stacks.number(of: stack) else {
                report(StackUnknown.violation(inSnapshot: stack))
                continue
            }
            let spec = stacks.specs[number]
            var seen: Set<String> = []
            for (index, route) in routes.enumerated() {
                if let violation = RouteUnknown.check(restoring: route, stack: stack, spec: spec) { report(violation) }
                if let violation = RouteSingleton.check(restoring: route, stack: stack, spec: spec, seen: seen) {
                    report(violation)
                }
                checkPosition(stack: stack, spec: spec, route: route, index: index, flow: snapshot.flow)
                seen.insert(route)
            }
            if let violation = StackOutOfRange.check(restoring: stack, spec: spec, count: routes.count) { report(violation) }
            if let problem = StackNotOwned.check(restoring: number, routes: routes, modals: snapshot.modals, model: model) {
                report(StackNotOwned.violation(problem, restoring: stack, modals: snapshot.modals))
            }
            restored.routes[number] = routes.map { symbols.intern($0) }
            restored.listed[number] = true
            stackWitness[number] = reference
        }
        restoreModals(of: snapshot, into: &restored, reference: reference)
        working = restored
        flowSpec = model.flows[working.flow]
        if stacks.anyValueIdentity {
            for number in working.routes.indices where stacks.valueIdentity[number] { working.syncParams(number) }
        }
    }

    /// The snapshot's modals, checked and adopted into `restored`.
    mutating func restoreModals(of snapshot: NavigationState, into restored: inout FoldState, reference: EventReference) {
        for modal in snapshot.modals {
            if let violation = ModalAlreadyPresented.check(restoring: modal, listed: restored.modals) {
                report(violation)
                continue
            }
            if let problem = ModalNotAllowed.check(
                restoring: modal, flow: snapshot.flow, presented: restored.modals.count, model: model)
            {
                report(ModalNotAllowed.violation(problem, restoring: modal, flow: snapshot.flow, presented: restored.modals.count))
            }
            restored.modals.append(modal)
            modalWitness[modal] = reference
        }
    }
}
