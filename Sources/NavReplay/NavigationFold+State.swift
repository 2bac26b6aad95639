import NavEvents
import NavJSON
import NavModel

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
        return CondensedState((stateBefore ?? working).state(stacks))
    }

    /// With `keepsStates`: the state now, as a group holds it until it ends.
    func heldState() -> CondensedState? {
        keepsStates ? CondensedState(state) : nil
    }

    mutating func setFlow(_ flow: String) {
        working.flow = flow
        flowSpec = model.flows[flow]
    }

    // MARK: Stacks by name

    /// A stack's routes; `nil` when the state does not list it.
    func routes(of stack: String) -> [String]? {
        working.routes(of: stack, in: stacks)
    }

    func top(of stack: String) -> String? {
        routes(of: stack)?.last
    }

    func depth(of stack: String) -> Int {
        routes(of: stack)?.count ?? 0
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
        working.setRoutes([], of: stack, in: stacks)
        setWitness(reference, of: stack)
        emptiedDuringEvent.append(stack)
    }

    func describe(_ value: String?) -> String {
        value.map(JSONWriter.quoted) ?? "null"
    }

    func describeTop(_ route: String?) -> String {
        route.map(JSONWriter.quoted) ?? "the root"
    }

    /// Checks a claimed current flow; on a mismatch, adopts it.
    mutating func checkFlow(claimed: String, field: String) {
        guard claimed != working.flow else { return }
        report(
            .stateMismatch,
            "\((isApplying ? currentEvent.name.rawValue : "event")) claims \(field) \(JSONWriter.quoted(claimed)) "
                + "but the flow is \(JSONWriter.quoted(working.flow))",
            expected: .string(working.flow), found: .string(claimed), witness: flowWitness)
        setFlow(claimed)
    }

    // MARK: session_start

    mutating func start(from snapshot: NavigationState?, reference: EventReference) {
        for number in stackWitness.indices { stackWitness[number] = nil }
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
        if model.flows[snapshot.flow] == nil {
            report(
                .flowUnknown, "the snapshot's flow \(JSONWriter.quoted(snapshot.flow)) is not declared in the model",
                found: .string(snapshot.flow))
        } else if let tabs = model.flows[snapshot.flow]?.tabs, !(snapshot.tab.map(tabs.contains) ?? false) {
            let listed = ListedNames(tabs)
            report(
                .tabInvalid,
                "the snapshot's tab \(describe(snapshot.tab)) is not a tab of flow \(JSONWriter.quoted(snapshot.flow)) "
                    + "(its tabs: \(listed.joined(separator: ", ")))",
                expected: listed.json, found: .optionalString(snapshot.tab))
        }
        for stack in snapshot.stacks.keys.sorted() {
            let routes = snapshot.stacks[stack] ?? []
            guard let number = stacks.number(of: stack) else {
                report(
                    .stackUnknown, "the snapshot has stack \(JSONWriter.quoted(stack)), which the model does not declare; it is dropped",
                    found: .string(stack))
                continue
            }
            let spec = stacks.specs[number]
            var seen: Set<String> = []
            for (index, route) in routes.enumerated() {
                if !spec.accepts(route) {
                    report(
                        .routeUnknown,
                        "the snapshot's stack \(JSONWriter.quoted(stack)) holds \(JSONWriter.quoted(route)), a route the model does not declare for it",
                        found: .string(route))
                }
                // A snapshot names routes without their parameters: under `identity: value` two
                // routes of one name may be two values, so its singletons are not checked here.
                if spec.identity == .name, spec.singletons.contains(route), seen.contains(route) {
                    report(
                        .routeSingleton,
                        "the snapshot's stack \(JSONWriter.quoted(stack)) holds singleton \(JSONWriter.quoted(route)) twice",
                        found: .string(route))
                }
                checkPosition(stack: stack, spec: spec, route: route, index: index, flow: snapshot.flow)
                seen.insert(route)
            }
            if let limit = spec.maxDepth, routes.count > limit {
                report(
                    .stackOutOfRange,
                    "the snapshot's stack \(JSONWriter.quoted(stack)) holds \(routes.count) routes; the model allows at most \(limit)",
                    expected: .string("0...\(limit)"), found: .number(String(routes.count)))
            }
            if let modal = stacks.owningModals[number], !routes.isEmpty, !snapshot.modals.contains(modal) {
                report(
                    .stackNotOwned,
                    "the snapshot's stack \(JSONWriter.quoted(stack)) holds routes, but its modal \(JSONWriter.quoted(modal)) is not presented",
                    expected: .string(modal), found: ListedNames(snapshot.modals).json)
            }
            restored.routes[number] = routes
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

    // MARK: Stack operations

    mutating func applyStackOperation(
        _ payload: NavigationEvent.Payload, reference: EventReference
    ) {
        guard let stack = payload.stack else { return }
        // 1. Declared: otherwise nothing else is checked and the event is not applied.
        guard let number = stacks.number(of: stack) else {
            report(
                .stackUnknown,
                "\(payload.name.rawValue) on stack \(JSONWriter.quoted(stack)), which the model does not declare; not applied",
                found: .string(stack))
            return
        }
        // 2. Owned by the current flow (a to_root pop of a stack its command resets is exempt),
        //    or, for a modal's own stack, by its presented modal; not covered by a modal of its
        //    context, in a flow that presents by context.
        let reportedBefore = pending.count
        if let modal = stacks.owningModals[number] {
            if !working.modals.contains(modal) {
                let listed = ListedNames(working.modals)
                report(
                    .stackNotOwned,
                    "\(payload.name.rawValue) on stack \(JSONWriter.quoted(stack)) of modal \(JSONWriter.quoted(modal)), "
                        + "which is not presented (presented: \(working.modals.isEmpty ? "none" : listed.joined(separator: ", ")))",
                    expected: .string(modal), found: listed.json, witness: modalWitness[modal])
            }
        } else if !currentFlowOwns(stack) {
            var exempt = false
            if case .routePop(_, _, _, .toRoot) = payload, latestGroup.resetStacks.contains(stack) { exempt = true }
            if !exempt {
                let owner = model.owningFlow(of: stack)
                report(
                    .stackNotOwned,
                    "\(payload.name.rawValue) on stack \(JSONWriter.quoted(stack)) while flow \(JSONWriter.quoted(working.flow)) is active"
                        + (owner.map { " (the stack belongs to flow \(JSONWriter.quoted($0)))" } ?? ""),
                    expected: .optionalString(owner), found: .string(working.flow), witness: flowWitness)
            }
        }
        if usesPresentationKeys, !working.modals.isEmpty { checkCoveredPop(payload, stack: stack, reported: reportedBefore) }
        if hasRouteBoundModals, !working.modals.isEmpty { captureStateBefore() }  // checked after the change
        // 3. The claimed top before the operation.
        switch payload {
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
            checkTop(of: number, claimed: to, field: "to_route", after: .pop(witness: witnessBefore))
        default: break
        }
    }

    /// Step 4 of a stack event: the operation's own checks, then the change, in place. Each
    /// finding comes before the change (see `captureStateBefore()`).
    mutating func applyOperation(_ payload: NavigationEvent.Payload, number: Int, stack: String) {
        switch payload {
        case .routePush(_, _, let route, let params):
            let count = working.routes[number].count
            checkEntering(route, params: params, number: number, below: 0..<count, index: count, depthAfter: count + 1)
            working.routes[number].append(route)
            if stacks.valueIdentity[number] { working.params[number].append(params) }
        case .routePop(_, _, let to, let amount):
            let depth = working.routes[number].count
            let removed: Int
            switch amount {
            case .toRoot:
                removed = depth
            case .count(let count):
                if count < 1 || count > Int64(depth), !stacks.specs[number].clampedPops {
                    report(
                        .stackOutOfRange,
                        "route_pop asks for \(count) route(s) on stack \(JSONWriter.quoted(stack)), which holds \(depth); "
                            + "clamped to \(min(max(count, 0), Int64(depth)))",
                        expected: .string("1...\(depth)"), found: .number(String(count)), witness: stackWitness[number])
                }
                removed = Int(min(max(count, 0), Int64(depth)))
            }
            // Step 5 reports a wrong to_route after the change: keep the state before it first.
            if to != (removed < depth ? working.routes[number][depth - removed - 1] : nil) { captureStateBefore() }
            // Emptied stacks keep their storage: the next push would allocate it again.
            if removed == depth {
                working.routes[number].removeAll(keepingCapacity: true)
            } else {
                working.routes[number].removeLast(removed)
            }
        case .routeReplace(_, _, let route, let params):
            // No copy of the stack is kept across the change: it made every replace copy it.
            let count = working.routes[number].count
            checkEntering(
                route, params: params, number: number, below: 0..<max(count - 1, 0), index: max(count - 1, 0), depthAfter: max(count, 1))
            if count == 0 {
                working.routes[number].append(route)
                if stacks.valueIdentity[number] { working.params[number].append(params) }
            } else {
                working.routes[number][count - 1] = route
                if stacks.valueIdentity[number] { working.params[number][count - 1] = params }
            }
        case .routePopTo(_, _, let target):
            if let target {
                let first = stacks.specs[number].popTo == .first
                if let index = first ? working.routes[number].firstIndex(of: target) : working.routes[number].lastIndex(of: target) {
                    working.routes[number].removeSubrange((index + 1)...)
                } else {
                    let routes = working.routes[number]
                    let listed = ListedNames(routes)
                    report(
                        .stackOutOfRange,
                        "route_pop_to \(JSONWriter.quoted(target)), which is not in stack \(JSONWriter.quoted(stack)) "
                            + "(\(routes.isEmpty ? "empty" : listed.joined(separator: " › "))); no-op",
                        expected: listed.json, found: .string(target), witness: stackWitness[number])
                }
            } else {
                working.routes[number].removeAll()
            }
        case .routeInsert(_, let route, let index, let params):
            let count = working.routes[number].count
            var at = index
            if index < 0 || index > Int64(count) {
                at = min(max(index, 0), Int64(count))
                report(
                    .stackOutOfRange,
                    "route_insert at index \(index) of stack \(JSONWriter.quoted(stack)), which holds \(count); clamped to \(at)",
                    expected: .string("0...\(count)"), found: .number(String(index)), witness: stackWitness[number])
            }
            checkEntering(route, params: params, number: number, below: 0..<count, index: Int(at), depthAfter: count + 1)
            working.routes[number].insert(route, at: Int(at))
            if stacks.valueIdentity[number] { working.params[number].insert(params, at: Int(at)) }
        case .routeRemove(_, let route):
            if stacks.valueIdentity[number] {
                working.params[number] = zip(working.routes[number], working.params[number]).filter { $0.0 != route }.map(\.1)
            }
            working.routes[number].removeAll { $0 == route }
        default:
            break
        }
    }

    /// The snapshot's modals, checked and adopted into `restored`.
    mutating func restoreModals(of snapshot: NavigationState, into restored: inout FoldState, reference: EventReference) {
        for modal in snapshot.modals {
            if restored.modals.contains(modal) {
                report(
                    .modalAlreadyPresented, "the snapshot lists modal \(JSONWriter.quoted(modal)) twice; it is kept once",
                    found: .string(modal))
                continue
            }
            if model.modals[modal] == nil {
                report(
                    .modalNotAllowed, "the snapshot's modal \(JSONWriter.quoted(modal)) is not declared in the model",
                    found: .string(modal))
            } else if let spec = model.modals[modal], !spec.isAllowed(in: snapshot.flow) {
                report(
                    .modalNotAllowed,
                    "the snapshot's modal \(JSONWriter.quoted(modal)) is not allowed in flow \(JSONWriter.quoted(snapshot.flow))",
                    found: .string(modal))
            } else if let limit = model.flows[snapshot.flow]?.maxModals, restored.modals.count >= limit {
                report(
                    .modalNotAllowed,
                    "the snapshot presents more than \(limit) modal(s) in flow \(JSONWriter.quoted(snapshot.flow))",
                    expected: .number(String(limit)), found: .number(String(restored.modals.count + 1)))
            }
            restored.modals.append(modal)
            modalWitness[modal] = reference
        }
    }

    /// Whether the current flow owns a stack: `model.flow(working.flow, owns:)`.
    func currentFlowOwns(_ stack: String) -> Bool {
        guard let flowSpec else { return false }
        switch flowSpec.kind {
        case .stack(let own): return own == stack
        case .tabs(let tabs): return tabs.contains(stack)
        }
    }

    /// Where a claimed top is checked: as the stack is, or after a pop, whose witness is the
    /// event that left the stack as the pop found it.
    enum TopCheck {
        case now
        case pop(witness: EventReference?)
    }

    /// Checks a claimed top route of a stack; on a mismatch, adopts it (CONTRACT §7, resync).
    mutating func checkTop(of number: Int, claimed: String?, field: String, after check: TopCheck = .now) {
        let top = working.routes[number].last
        guard claimed != top else { return }
        let stack = stacks.names[number]
        let name = (isApplying ? currentEvent.name.rawValue : "event")
        let witness: EventReference?
        let source: String?
        switch check {
        case .now:
            witness = stackWitness[number]
            source = witness.map { " (set by \($0.name.rawValue) at seq \($0.seq))" }
        case .pop(let before):
            witness = before
            source = witness.map { " (the pop applied to the stack as \($0.name.rawValue) at seq \($0.seq) left it)" }
        }
        let tense = if case .now = check { "is " } else { "after it is " }
        report(
            .stateMismatch,
            "\(name) on \(JSONWriter.quoted(stack)) claims \(field) \(describeTop(claimed)) but the top "
                + tense + describeTop(top) + (source ?? ""),
            expected: .optionalString(top), found: .optionalString(claimed), witness: witness)
        if let claimed {
            if let index = working.routes[number].lastIndex(of: claimed) {
                working.routes[number].removeSubrange((index + 1)...)
            } else {
                working.routes[number].append(claimed)
            }
        } else {
            working.routes[number].removeAll()
        }
        working.listed[number] = true
        if stacks.anyValueIdentity, stacks.valueIdentity[number] { working.syncParams(number) }
        if working.routes[number].isEmpty { emptiedDuringEvent.append(stack) }
    }

    /// The checks where a route enters a stack: declared, singleton (among the routes at
    /// `below`), position, depth.
    mutating func checkEntering(
        _ route: String, params: RouteParams?, number: Int, below: Range<Int>, index: Int, depthAfter: Int
    ) {
        let stack = stacks.names[number]
        let spec = stacks.specs[number]
        let routes = working.routes[number][below]
        if !stacks.accepts(route, number: number) {
            let declared = spec.routes.map(ListedNames.init)
            report(
                .routeUnknown,
                "route \(JSONWriter.quoted(route)) is not declared for stack \(JSONWriter.quoted(stack))"
                    + (declared.map { " (declared: \($0.joined(separator: ", ")))" } ?? ""),
                expected: declared?.json, found: .string(route))
        }
        // Most stacks have no singletons: then neither a hash nor a search of the stack (a search
        // at every push made a deep stack quadratic).
        if !spec.singletons.isEmpty, spec.singletons.contains(route),
            spec.identity == .value ? working.holds(route, params: params, number: number, in: below) : routes.contains(route)
        {
            let listed = ListedNames(Array(routes))
            let what = spec.identity == .value ? "with the same route_params " : ""
            report(
                .routeSingleton,
                "singleton route \(JSONWriter.quoted(route)) \(what)is already in stack \(JSONWriter.quoted(stack)) "
                    + "(\(listed.joined(separator: " › "))); open it once: pop back to it instead",
                expected: listed.json, found: .string(route), witness: stackWitness[number])
        }
        checkPosition(stack: stack, spec: spec, route: route, index: index)
        if let limit = spec.maxDepth, depthAfter > limit {
            report(
                .stackOutOfRange,
                "route \(JSONWriter.quoted(route)) would make stack \(JSONWriter.quoted(stack)) hold \(depthAfter) routes; "
                    + "the model allows at most \(limit)",
                expected: .string("0...\(limit)"), found: .number(String(depthAfter)), witness: stackWitness[number])
        }
    }

    mutating func checkPosition(stack: String, spec: StackSpec, route: String, index: Int, flow: String? = nil) {
        let flow = flow ?? working.flow
        for requirement in spec.positions where !requirement.allows(route, at: index, in: flow) {
            let oneOf = ListedNames(requirement.oneOf)
            let required = requirement.oneOf.isEmpty ? "no route there" : "one of \(oneOf.joined(separator: ", ")) there"
            report(
                .routePosition,
                "route \(JSONWriter.quoted(route)) at index \(index) of stack \(JSONWriter.quoted(stack)); the model requires "
                    + required + (requirement.flows == nil ? "" : " in flow \(JSONWriter.quoted(flow))"),
                expected: oneOf.json, found: .string(route),
                witness: requirement.flows == nil ? nil : flowWitness)
        }
    }

    /// Empties the own stacks of modals that are dismissed: a modal's navigation goes with it.
    mutating func closeStacks(of dismissed: [String], reference: EventReference) {
        for modal in dismissed {
            guard let stack = model.modals[modal]?.stack, depth(of: stack) > 0 else { continue }
            empty(stack, reference: reference)
        }
    }

    // MARK: screen_view

    mutating func checkScreenView(_ claim: NavigationEvent.ScreenClaim, reference: EventReference) {
        guard !claimIsVisible(claim) else { return }
        let visible = visibleScreen
        let claimed = canonicalScreen(claim.screen)
        guard visible != claimed else { return }
        let witness: EventReference? =
            switch visible {
            case .modal(let modal): modalWitness[modal]
            case .stack(let stack, _): witness(of: stack)
            case nil: flowWitness
            }
        report(
            .screenNotVisible,
            "screen_view of \(claimed.label) but the visible screen is \(visible?.label ?? "none")",
            expected: visible.map { .string($0.label) } ?? .null, found: .string(claimed.label), witness: witness)
        // Resync: adopt the reported screen without changing flow or tab.
        switch claimed {
        case .modal(let modal):
            bringToTop(modal, reference: reference)
            if let stack = model.modals[modal]?.stack, depth(of: stack) > 0 {
                // The modal's own root is shown: its stack is back at the root.
                empty(stack, reference: reference)
            }
        case .stack(let stack, let route):
            guard let number = stacks.number(of: stack) else { return }
            if let modal = stacks.owningModals[number] {
                bringToTop(modal, reference: reference)
            } else {
                closeStacks(of: working.modals, reference: reference)
                working.modals.removeAll()
            }
            if let route {
                if let index = working.routes[number].lastIndex(of: route) {
                    working.routes[number].removeSubrange((index + 1)...)
                } else {
                    working.routes[number].append(route)
                }
            } else {
                working.routes[number].removeAll()
            }
            working.listed[number] = true
            if stacks.anyValueIdentity, stacks.valueIdentity[number] { working.syncParams(number) }
            stackWitness[number] = reference
        }
    }

    /// Whether a screen_view's claim names the visible screen, that is whether
    /// `visibleScreen == canonicalScreen(claim.screen)`, decided without building either
    /// screen: a third of the events are screen views, and they almost always agree.
    func claimIsVisible(_ claim: NavigationEvent.ScreenClaim) -> Bool {
        switch claim {
        case .modal(let modal):
            return topModalShowsItself(modal)
        case .stack(let stack, let route):
            if route == nil, let owner = stacks.number(of: stack).map({ stacks.owningModals[$0] }) ?? model.owningModal(of: stack) {
                return topModalShowsItself(owner)  // the root of a modal's stack is that modal
            }
            if let topModal = working.modals.last {
                guard let modalStack = model.modals[topModal]?.stack, modalStack == stack,
                    let visibleRoute = top(of: modalStack)
                else { return false }
                return visibleRoute == route
            }
            switch flowSpec?.kind {
            case .stack(let own)?:
                return own == stack && top(of: stack) == route
            case .tabs(let tabs)?:
                guard let tab = working.tab, tab == stack, tabs.contains(tab) else { return false }
                return top(of: stack) == route
            case nil:
                return false
            }
        }
    }

    /// Whether the visible screen is the modal itself: on top, and not showing its own stack.
    func topModalShowsItself(_ modal: String) -> Bool {
        guard working.modals.last == modal else { return false }
        if let stack = model.modals[modal]?.stack, top(of: stack) != nil { return false }
        return true
    }

    /// `model.canonicalScreen(_:)`, with the stack's modal from the table.
    func canonicalScreen(_ screen: Screen) -> Screen {
        guard case .stack(let stack, nil) = screen else { return screen }
        let modal = stacks.number(of: stack).map { stacks.owningModals[$0] } ?? model.owningModal(of: stack)
        return modal.map(Screen.modal) ?? screen
    }

    /// Makes a modal the top one: removes those above it (with their own stacks), or appends it.
    mutating func bringToTop(_ modal: String, reference: EventReference) {
        if let index = working.modals.lastIndex(of: modal) {
            closeStacks(of: Array(working.modals[(index + 1)...]), reference: reference)
            working.modals.removeSubrange((index + 1)...)
        } else {
            working.modals.append(modal)
        }
        modalWitness[modal] = reference
    }
}
