import NavEvents
import NavJSON
import NavModel

/// `modal_present` and `modal_dismiss`: the rules of modals, through their checks in `Rules/`,
/// and the modals' own stacks, which come and go with them.
extension NavigationFold {
    mutating func applyPresent(_ modal: String, style: ModalStyle, reference: EventReference) {
        if let violation = ModalAlreadyPresented.check(presenting: modal, presented: working.modals) {
            report(violation)
            if resynchronising { adoptPresentedAgain(modal, reference: reference) }
            return
        }
        let problem = ModalNotAllowed.check(
            presenting: modal, style: style, flow: working.flow, tab: working.tab, presented: working.modals, model: model,
            top: { working.top(of: $0, in: stacks, symbols) })
        if let problem {
            report(
                ModalNotAllowed.violation(
                    problem, presenting: modal, style: style, flow: working.flow, presented: working.modals,
                    visible: visibleScreen))
            if resynchronising, case .tooMany(let limit) = problem { makeRoom(below: limit, reference: reference) }
        }
        working.modals.append(modal)
        modalWitness[modal] = reference
        // A modal's own stack starts at its root each time it is presented.
        if let stack = model.modals[modal]?.stack, depth(of: stack) > 0 {
            empty(stack, reference: reference)
        }
    }

    mutating func applyDismiss(_ modal: String, reference: EventReference) {
        if let violation = ModalNotPresented.check(dismissing: modal, presented: working.modals) {
            report(violation)
            return
        }
        guard let index = working.modals.lastIndex(of: modal) else { return }
        for removed in working.modals[index...] { modalWitness[removed] = reference }
        closeStacks(of: Array(working.modals[index...]), reference: reference)
        working.modals.removeSubrange(index...)
    }

    /// After a stack operation: each presented modal bound to routes must still stand over one
    /// of them (a page's widgets go with the page).
    mutating func checkModalsOnTheirRoutes(after stack: String) {
        let off = ModalNotAllowed.modalsOffTheirRoutes(
            covering: stack, flow: working.flow, tab: working.tab, presented: working.modals, model: model,
            top: { working.top(of: $0, in: stacks, symbols) })
        for (modal, route) in off {
            report(ModalNotAllowed.violation(offRoutes: modal, stack: stack, route: route, model: model))
        }
        // After a gap: such a modal went with its page, by a lost event.
        if resynchronising, let first = off.compactMap({ working.modals.firstIndex(of: $0.0) }).min() {
            let dismissed = Array(working.modals[first...])
            for modal in dismissed { modalWitness[modal] = currentEvent }
            closeStacks(of: dismissed, reference: currentEvent)
            working.modals.removeSubrange(first...)
        }
    }

    /// Empties the own stacks of modals that are dismissed: a modal's navigation goes with it.
    mutating func closeStacks(of dismissed: [String], reference: EventReference) {
        for modal in dismissed {
            guard let stack = model.modals[modal]?.stack, depth(of: stack) > 0 else { continue }
            empty(stack, reference: reference)
        }
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
