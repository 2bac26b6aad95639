import NavEvents
import NavJSON
import NavModel

/// Re-synchronising after a seq gap (docs/events-and-rules.md, "Adopting a claimed value"): the
/// lost events may have changed anything, so a finding after the gap adopts the whole of what its
/// event claims, not only the value it names: a screen's flow and tab, the flow or modal a stack
/// operation needs, a modal presented again. The finding is still reported; the events after it
/// then agree with the state, so that one lost event costs the gap and at most one consequence.
///
/// Only after a gap (`resynchronising`): a session without one folds exactly as before.
extension NavigationFold {
    /// After a `screen.not_visible` of a stack that no modal owns: the flow that owns the stack
    /// (the current one if it does, else the first in the model that does) and, in a flow with
    /// tabs, the stack's tab, as the screen shows them.
    mutating func adoptFlowAndTab(showing stack: String, reference: EventReference) {
        if !StackNotOwned.owns(flowSpec, stack) {
            guard let owner = model.owningFlow(of: stack) else { return }
            setFlow(owner)
            flowWitness = reference
        }
        if let tabs = flowSpec?.tabs, tabs.contains(stack), working.tab != stack {
            working.tab = stack
            tabWitness = reference
        }
    }

    /// After a `stack.not_owned`: what the operation needs to be allowed, adopted. A modal's own
    /// stack: its modal presented (on top); a stack of another flow: that flow (not for a pop to
    /// the root, which a command of a lost event may have allowed); a stack covered by a modal of
    /// its context: that modal dismissed, with those above it.
    mutating func adoptOwnership(
        _ problem: StackNotOwned.Problem, stack: String, payload: NavigationEvent.Payload, reference: EventReference
    ) {
        switch problem {
        case .modalNotPresented(let modal):
            bringToTop(modal, reference: reference)
        case .notOwned(let owner):
            if case .routePop(_, _, _, .toRoot) = payload { return }
            guard let owner else { return }
            setFlow(owner)
            flowWitness = reference
            if let tabs = flowSpec?.tabs, let tab = working.tab, !tabs.contains(tab) {
                working.tab = tabs.contains(stack) ? stack : tabs.first
                tabWitness = reference
            }
        case .covered(let modal):
            guard let index = working.modals.lastIndex(of: modal) else { return }
            for removed in working.modals[index...] { modalWitness[removed] = reference }
            closeStacks(of: Array(working.modals[index...]), reference: reference)
            working.modals.removeSubrange(index...)
        }
    }

    /// After a `modal.already_presented`: the modal was dismissed by a lost event and is
    /// presented again, on top, its own stack at its root.
    mutating func adoptPresentedAgain(_ modal: String, reference: EventReference) {
        bringToTop(modal, reference: reference)
        if let stack = model.modals[modal]?.stack, depth(of: stack) > 0 {
            empty(stack, reference: reference)
        }
    }

    /// From a seq gap on (the first is found before its event is applied): a finding adopts all
    /// its event claims. The commands of the group that ended at the last event, whose
    /// postconditions failed, are adopted now: the lost events may have been theirs.
    public mutating func startResynchronising() {
        resynchronising = true
        if !failedAtLastGroupEnd.isEmpty {
            adoptPostconditions(of: failedAtLastGroupEnd)
            failedAtLastGroupEnd.removeAll()
        }
    }

    /// After a `command.postcondition` (after a gap): what each command claims, adopted: its
    /// flow and tab, its modals dismissed, and the routes its reset stacks held at the command
    /// removed (routes pushed after the command stay).
    mutating func adoptPostconditions(of commands: [PendingCommand]) {
        for command in commands {
            let spec = command.spec
            if working.flow != spec.flow {
                setFlow(spec.flow)
                flowWitness = command.event
            }
            if let tab = spec.tab, working.tab != tab {
                working.tab = tab
                tabWitness = command.event
            }
            if spec.dismissModals, !working.modals.isEmpty {
                for modal in working.modals { modalWitness[modal] = command.event }
                closeStacks(of: working.modals, reference: command.event)
                working.modals.removeAll()
            }
            for (position, stack) in spec.reset.enumerated() where !command.resetSeenEmpty[position] {
                guard let number = stacks.number(of: stack), position < command.resetDepths.count else { continue }
                let stale = min(command.resetDepths[position], working.routes[number].count)
                guard stale > 0 else { continue }
                working.routes[number].removeFirst(stale)
                if stacks.anyValueIdentity, stacks.valueIdentity[number] {
                    working.params[number].removeFirst(min(stale, working.params[number].count))
                }
                stackWitness[number] = command.event
            }
        }
    }

    /// After a `tab.invalid` of a switch to a tab the flow does not have: the flow that has it.
    mutating func adoptFlow(ofTab tab: String, reference: EventReference) {
        guard let owner = model.owningFlow(of: tab), model.flows[owner]?.tabs?.contains(tab) == true else { return }
        setFlow(owner)
        flowWitness = reference
    }

    /// After a `modal.not_allowed` for a flow's `max_modals`: the modals on top dismissed (by lost
    /// events) until the new one fits.
    mutating func makeRoom(below limit: Int, reference: EventReference) {
        guard limit > 0, working.modals.count >= limit else { return }
        let dismissed = Array(working.modals[(limit - 1)...])
        for modal in dismissed { modalWitness[modal] = reference }
        closeStacks(of: dismissed, reference: reference)
        working.modals.removeSubrange((limit - 1)...)
    }

    /// After a gap, before a stack operation of a group whose command changes the flow (or, on
    /// one of the flow's tabs, the tab) that the state does not show yet: the group's lost events
    /// were its `flow_switch` or `tab_switch`, which come before its routes enter. Adopted for a
    /// route entering a stack only (a command's resets come before its switch).
    mutating func adoptPendingCommand(before payload: NavigationEvent.Payload, stack: String, reference: EventReference) {
        switch payload {
        case .routePush, .routeReplace, .routeInsert: break
        default: return
        }
        guard latestGroup.flowSwitch == nil, let command = latestGroup.pendingCommands.last else { return }
        if working.flow != command.spec.flow, model.flow(command.spec.flow, owns: stack) {
            captureStateBefore()
            setFlow(command.spec.flow)
            flowWitness = command.event
        }
        if let tab = command.spec.tab, tab == stack, working.tab != tab, flowSpec?.tabs?.contains(tab) == true {
            captureStateBefore()
            working.tab = tab
            tabWitness = command.event
        }
    }

    /// A pop's claimed top (after a gap) that is not the top: adopted as the one of three
    /// histories that leaves `thenTop` below it, the pop's `to_route`: the claimed route pushed
    /// (a lost push), put in the top's place (a lost replace), or the stack cut back to it (lost
    /// pops). Returns whether one of them does.
    mutating func adoptTop(_ route: String, number: Int, thenTop: String?) -> Bool {
        let routes = working.routes[number]
        func name(at index: Int) -> String? { index >= 0 && index < routes.count ? symbols.name(routes[index]) : nil }
        let symbol = symbols.intern(route)
        if name(at: routes.count - 1) == thenTop {
            working.routes[number].append(symbol)
        } else if !routes.isEmpty, name(at: routes.count - 2) == thenTop {
            working.routes[number][routes.count - 1] = symbol
        } else if let index = routes.lastIndex(of: symbol), name(at: index - 1) == thenTop {
            working.routes[number].removeSubrange((index + 1)...)
        } else {
            return false
        }
        working.listed[number] = true
        if stacks.anyValueIdentity, stacks.valueIdentity[number] {
            if routes.count == working.routes[number].count, !working.params[number].isEmpty {
                working.params[number][working.params[number].count - 1] = nil
            }
            working.syncParams(number)
        }
        return true
    }

    /// A claimed top that is the doubtful route of its stack, now on top: it is confirmed.
    mutating func confirmDoubtful(_ number: Int) {
        if let index = doubtfulRoutes[number], working.routes[number].count <= index + 1 { doubtfulRoutes[number] = nil }
        if let cut = doubtfulCuts[number], working.routes[number].count <= cut.index { doubtfulCuts[number] = nil }
    }

    /// A claimed top that is not the top, on a stack whose top is its doubtful route: if the
    /// route below it is the claim, the doubtful route was taken away by the lost events (a
    /// replace): it is removed, and nothing is reported.
    mutating func resolveDoubtful(_ number: Int, claimed: String?) -> Bool {
        guard let index = doubtfulRoutes[number] else { return false }
        let routes = working.routes[number]
        guard routes.count == index + 1 else {
            if routes.count <= index { doubtfulRoutes[number] = nil }
            return false
        }
        let below = index > 0 ? symbols.name(routes[index - 1]) : nil
        guard below == claimed else { return false }
        captureStateBefore()
        working.routes[number].removeLast()
        if stacks.anyValueIdentity, stacks.valueIdentity[number] { working.syncParams(number) }
        if working.routes[number].isEmpty { emptiedDuringEvent.append(stacks.names[number]) }
        doubtfulRoutes[number] = nil
        return true
    }

    /// A claimed top that is not the top, on a stack cut back after a gap, now just below where
    /// the cut left its top: if the claim is the route the cut removed last, the lost event was a
    /// push, not pops; the routes cut are put back, and nothing is reported.
    mutating func restoreCut(_ number: Int, claimed: String?) -> Bool {
        guard let cut = doubtfulCuts[number] else { return false }
        let routes = working.routes[number]
        guard routes.count == cut.index, cut.routes.count >= 2 else {
            if routes.count < cut.index { doubtfulCuts[number] = nil }
            return false
        }
        guard let last = cut.routes.last, symbols.name(last) == claimed else { return false }
        captureStateBefore()
        working.routes[number].append(contentsOf: cut.routes)
        if stacks.anyValueIdentity, stacks.valueIdentity[number] { working.syncParams(number) }
        doubtfulCuts[number] = nil
        return true
    }
}
