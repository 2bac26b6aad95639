import NavEvents
import NavJSON
import NavModel

/// Stack operations (`route_push`, `route_pop`, `route_replace`, `route_pop_to`,
/// `route_insert`, `route_remove`): the rules of stacks and routes, through their checks in
/// `Rules/`, then the change, in place.
extension NavigationFold {
    // MARK: Stacks by name

    /// A stack's routes by name; `nil` when the state does not list it.
    func routes(of stack: String) -> [String]? {
        working.routeNames(of: stack, in: stacks, symbols)
    }

    func top(of stack: String) -> String? {
        working.top(of: stack, in: stacks, symbols)
    }

    func depth(of stack: String) -> Int {
        working.depth(of: stack, in: stacks)
    }

    func witness(of stack: String) -> EventReference? {
        if let number = stacks.number(of: stack) { return stackWitness[number] }
        return otherStackWitness[stack]
    }

    mutating func setWitness(_ reference: EventReference, of stack: String) {
        if let number = stacks.number(of: stack) {
            stackWitness[number] = reference
        } else {
            otherStackWitness[stack] = reference
        }
    }

    /// Empties a stack (a modal's own, when its modal comes or goes).
    mutating func empty(_ stack: String, reference: EventReference) {
        working.empty(stack, in: stacks)
        setWitness(reference, of: stack)
        emptiedDuringEvent.append(stack)
    }

    // MARK: Stack operations

    /// `number`: the stack's number, `nil` when the model does not declare it.
    mutating func applyStackOperation(
        _ payload: NavigationEvent.Payload, number: Int?, reference: EventReference
    ) {
        guard let stack = payload.stack else { return }
        // 1. Declared: otherwise nothing else is checked and the event is not applied.
        guard let number else {
            report(StackUnknown.violation(of: stack, operation: payload.name))
            return
        }
        // 2. Owned by the current flow (a to_root pop of a stack its command resets is exempt),
        //    or, for a modal's own stack, by its presented modal; not covered by a modal of its
        //    context, in a flow that presents by context.
        var exempt = false
        if case .routePop(_, _, _, .toRoot) = payload {
            if !latestGroup.resetStacks.isEmpty, latestGroup.resetStacks.contains(stack) {
                exempt = true
            } else if resynchronising, latestGroup.appliedCommands.isEmpty {
                // After a gap, the command of a group that resets its stacks may be lost.
                exempt = true
            }
        }
        var problem = StackNotOwned.check(
            stack, number: number, flowSpec: flowSpec, presented: working.modals, model: model, exempt: exempt)
        if case .none = problem, usesPresentationKeys, !working.modals.isEmpty {
            switch payload {
            case .routePop(_, _, _, .count), .routePopTo(_, _, _?):
                problem = StackNotOwned.check(
                    popping: stack, flow: working.flow, flowSpec: flowSpec, presented: working.modals, model: model)
            default: break
            }
        }
        if let problem {
            report(
                StackNotOwned.violation(problem, operation: payload.name, stack: stack, flow: working.flow, presented: working.modals))
            if resynchronising { adoptOwnership(problem, stack: stack, payload: payload, reference: reference) }
        }
        if hasRouteBoundModals, !working.modals.isEmpty { captureStateBefore() }  // checked after the change
        // 3. The claimed top before the operation.
        if resynchronising { adoptPendingCommand(before: payload, stack: stack, reference: reference) }
        switch payload {
        case .routePop(_, let from, let to, .count(1)) where resynchronising:
            // After a gap, a pop's to_route tells how the claimed top came to be there.
            checkTop(of: number, claimed: from, field: "from_route", thenTop: .some(to))
        case .routePush(_, let from, _, _), .routePop(_, let from, _, _), .routeReplace(_, let from, _, _),
            .routePopTo(_, let from, _):
            checkTop(of: number, claimed: from, field: "from_route")
        default: break
        }
        // 4. The operation's own checks, then apply.
        let topBefore = working.routes[number].last
        let wasEmpty = working.routes[number].isEmpty
        // A pop's claimed top is checked after it, against the stack's witness before it.
        let witnessBefore: EventReference? = if case .routePop = payload { stackWitness[number] } else { nil }
        applyOperation(payload, number: number, stack: stack)
        let isEmpty = working.routes[number].isEmpty
        if working.routes[number].last != topBefore || isEmpty != wasEmpty {
            stackWitness[number] = reference  // the witness of a stack is the event that last set its top
        }
        working.listed[number] = true
        if stacks.anyValueIdentity, stacks.valueIdentity[number] { working.syncParams(number) }
        if isEmpty { emptiedDuringEvent.append(stack) }
        if hasRouteBoundModals, !working.modals.isEmpty { checkModalsOnTheirRoutes(after: stack) }
        // 5. A pop's claimed top after the operation.
        switch payload {
        case .routePop(_, _, let to, _):
            // Witnessed by the event that left the stack as this pop found it, not by the pop.
            checkTop(of: number, claimed: to, field: "to_route", afterPop: true, witness: witnessBefore)
        default: break
        }
    }

    /// Step 4 of a stack event: the operation's own checks, then the change, in place. Each
    /// finding comes before the change (see `captureStateBefore()`).
    mutating func applyOperation(_ payload: NavigationEvent.Payload, number: Int, stack: String) {
        switch payload {
        case .routePush(_, _, let route, let params):
            let count = working.routes[number].count
            let symbol = checkEntering(route, params: params, number: number, below: 0..<count, index: count, depthAfter: count + 1)
            working.routes[number].append(symbol)
            if stacks.valueIdentity[number] { working.params[number].append(params) }
        case .routePop(_, _, let to, let amount):
            let depth = working.routes[number].count
            let removed: Int
            switch amount {
            case .toRoot:
                removed = depth
            case .count(let count):
                if let violation = StackOutOfRange.check(popping: count, stack: stack, spec: stacks.specs[number], depth: depth) {
                    report(violation)
                }
                removed = Int(min(max(count, 0), Int64(depth)))
            }
            // Step 5 reports a wrong to_route after the change: keep the state before it first.
            let topAfter = removed < depth ? symbols.name(working.routes[number][depth - removed - 1]) : nil
            if topAfter != to { captureStateBefore() }
            // Emptied stacks keep their storage: the next push would allocate it again.
            if removed == depth {
                working.routes[number].removeAll(keepingCapacity: true)
            } else {
                working.routes[number].removeLast(removed)
            }
        case .routeReplace(_, _, let route, let params):
            // No copy of the stack is kept across the change: it made every replace copy it.
            let count = working.routes[number].count
            let symbol = checkEntering(
                route, params: params, number: number, below: 0..<max(count - 1, 0), index: max(count - 1, 0), depthAfter: max(count, 1))
            if count == 0 {
                working.routes[number].append(symbol)
                if stacks.valueIdentity[number] { working.params[number].append(params) }
            } else {
                working.routes[number][count - 1] = symbol
                if stacks.valueIdentity[number] { working.params[number][count - 1] = params }
            }
        case .routePopTo(_, _, let target):
            if let target {
                let first = stacks.specs[number].popTo == .first
                let symbol = symbols.existing(target)
                let index =
                    symbol.flatMap { first ? working.routes[number].firstIndex(of: $0) : working.routes[number].lastIndex(of: $0) }
                if let index {
                    working.routes[number].removeSubrange((index + 1)...)
                } else if let violation = StackOutOfRange.check(
                    poppingTo: target, found: false, stack: stack, routes: symbols.names(working.routes[number]))
                {
                    report(violation)
                }
            } else {
                working.routes[number].removeAll()
            }
        case .routeInsert(_, let route, let index, let params):
            let count = working.routes[number].count
            if let violation = StackOutOfRange.check(inserting: index, stack: stack, count: count) { report(violation) }
            let at = Int(min(max(index, 0), Int64(count)))
            let symbol = checkEntering(route, params: params, number: number, below: 0..<count, index: at, depthAfter: count + 1)
            working.routes[number].insert(symbol, at: at)
            if stacks.valueIdentity[number] { working.params[number].insert(params, at: at) }
        case .routeRemove(_, let route):
            guard let symbol = symbols.existing(route) else { break }  // never interned: no stack holds it
            if stacks.valueIdentity[number] {
                working.params[number] = zip(working.routes[number], working.params[number]).filter { $0.0 != symbol }.map(\.1)
            }
            working.routes[number].removeAll { $0 == symbol }
        default:
            break
        }
    }

    /// Checks a claimed top route of a stack; on a mismatch, adopts it (docs/events-and-rules.md, resync).
    /// `afterPop`: a pop's `to_route`, after the pop; `witness` is then the event that left the
    /// stack as the pop found it.
    mutating func checkTop(
        of number: Int, claimed: String?, field: String, afterPop: Bool = false, witness: EventReference? = nil,
        thenTop: String?? = nil
    ) {
        guard !working.topIs(claimed, number: number, symbols) else {  // the usual case, before the check's arguments are built
            if !doubtfulRoutes.isEmpty || !doubtfulCuts.isEmpty { confirmDoubtful(number) }
            return
        }
        if !doubtfulRoutes.isEmpty, resolveDoubtful(number, claimed: claimed) { return }
        if !doubtfulCuts.isEmpty, restoreCut(number, claimed: claimed) { return }
        let top = working.routes[number].last.map(symbols.name)
        let stack = stacks.names[number]
        guard
            let violation = StateMismatch.check(
                claimedTop: claimed, field: field, top: top, stack: stack, event: isApplying ? currentEvent.name.rawValue : "event",
                witness: afterPop ? witness : stackWitness[number], afterPop: afterPop)
        else { return }
        report(violation)
        if let thenTop, let claimed, adoptTop(claimed, number: number, thenTop: thenTop) {
        } else {
            adoptTop(claimed, number: number)
        }
        if working.routes[number].isEmpty { emptiedDuringEvent.append(stack) }
    }

    /// Makes `route` the top of stack `number` (resync, docs/events-and-rules.md): back to its
    /// last occurrence, or pushed when the stack does not hold it; `nil` empties the stack.
    mutating func adoptTop(_ route: String?, number: Int) {
        if let route {
            let symbol = symbols.intern(route)
            if let index = working.routes[number].lastIndex(of: symbol) {
                // After a gap, the routes cut may still be there, under a lost push of the route.
                if resynchronising, index + 1 < working.routes[number].count {
                    doubtfulCuts[number] = (index, Array(working.routes[number][index...]))
                }
                working.routes[number].removeSubrange((index + 1)...)
            } else if resynchronising, let limit = stacks.specs[number].maxDepth, working.routes[number].count >= max(limit, 1) {
                // After a gap, on a full stack: a lost replace put it there.
                working.routes[number][working.routes[number].count - 1] = symbol
                if stacks.valueIdentity[number], !working.params[number].isEmpty {
                    working.params[number][working.params[number].count - 1] = nil
                }
            } else {
                // After a gap, the route under it may be one a lost replace took away.
                if resynchronising, !working.routes[number].isEmpty { doubtfulRoutes[number] = working.routes[number].count - 1 }
                working.routes[number].append(symbol)
            }
        } else {
            working.routes[number].removeAll()
        }
        working.listed[number] = true
        if stacks.anyValueIdentity, stacks.valueIdentity[number] { working.syncParams(number) }
    }

    /// The checks where a route enters a stack: declared, singleton (among the routes at
    /// `below`), position, depth. Returns the route's symbol.
    mutating func checkEntering(
        _ route: String, params: RouteParams?, number: Int, below: Range<Int>, index: Int, depthAfter: Int
    ) -> Symbol {
        let (symbol, declared) = symbols.route(route, number: number, in: stacks)
        if !declared, let violation = RouteUnknown.check(route, stack: stacks.names[number], number: number, model: model) {
            report(violation)
        }
        // Most stacks have no other check: their spec is not even read (a copy of it per push).
        if stacks.plainEntry[number] { return symbol }
        let stack = stacks.names[number]
        let spec = stacks.specs[number]
        if RouteSingleton.applies(to: route, spec: spec),
            let violation = RouteSingleton.check(
                route, params: params, stack: stack, spec: spec, routes: symbols.names(working.routes[number]),
                params: working.params[number], below: below)
        {
            report(violation)
        }
        checkPosition(stack: stack, spec: spec, route: route, index: index, flow: working.flow)
        if let violation = StackOutOfRange.check(entering: route, stack: stack, spec: spec, depthAfter: depthAfter) {
            report(violation)
        }
        return symbol
    }

    mutating func checkPosition(stack: String, spec: StackSpec, route: String, index: Int, flow: String) {
        if spec.positions.isEmpty { return }
        for requirement in RoutePosition.check(route, at: index, spec: spec, flow: flow) {
            report(RoutePosition.violation(requirement, route: route, index: index, stack: stack, flow: flow))
        }
    }
}
