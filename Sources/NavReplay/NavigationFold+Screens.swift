import NavEvents
import NavJSON
import NavModel

/// `screen_view`: the visible screen, checked by `ScreenNotVisible`, and adopted on a mismatch.
extension NavigationFold {
    mutating func checkScreenView(_ claim: NavigationEvent.ScreenClaim, reference: EventReference) {
        // The usual case, decided without building either screen.
        guard !claimIsVisible(claim) else { return }
        let claimed = canonicalScreen(claim.screen)
        guard let violation = ScreenNotVisible.check(claimed: claimed, visible: visibleScreen) else { return }
        report(violation)
        // Resync: adopt the reported screen without changing flow or tab (after a gap, with them).
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
                if resynchronising { adoptFlowAndTab(showing: stack, reference: reference) }
            }
            adoptTop(route, number: number)
            stackWitness[number] = reference
        }
    }

    /// Whether a screen_view's claim names the visible screen, that is whether
    /// `visibleScreen == canonicalScreen(claim.screen)` (what `ScreenNotVisible.check` compares),
    /// decided without building either screen: a third of the events are screen views, and they
    /// almost always agree.
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
}
