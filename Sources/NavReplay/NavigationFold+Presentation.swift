import NavEvents
import NavJSON
import NavModel

/// The checks of model language 1.1's presentation keys: presentation contexts
/// (`flows.<name>.presentation: contexts`), the contexts that present a modal
/// (`modals.<name>.from`) and modals bound to routes (`modals.<name>.routes`). The fold runs
/// them only for a model that uses these keys.
extension NavigationFold {
    /// The top route of each stack now, for `NavigationModel`'s presentation questions.
    private var topRoutes: (String) -> String? {
        let current = working
        let table = stacks
        return { current.routes(of: $0, in: table)?.last }
    }

    /// At a `modal_present` that passed the v1 checks: the modal's context and its page.
    mutating func checkPresentation(of modal: String) {
        guard
            let problem = model.presentationProblem(
                of: modal, flow: working.flow, tab: working.tab, presented: working.modals, top: topRoutes)
        else { return }
        switch problem {
        case .contextNotShown(let from):
            let listed = ListedNames(from)
            report(
                .modalNotAllowed,
                "modal \(JSONWriter.quoted(modal)) is presented from the context of \(listed.joined(separator: ", ")), "
                    + "and none of these stacks is shown",
                expected: listed.json, found: visibleScreen.map { .string($0.label) } ?? .null, witness: flowWitness)
        case .contextShowsModal(let context, let shown):
            report(
                .modalNotAllowed,
                "modal \(JSONWriter.quoted(modal)) is presented from the context of \(JSONWriter.quoted(context)), which already "
                    + "shows modal \(JSONWriter.quoted(shown)): flow \(JSONWriter.quoted(working.flow)) presents one sheet or cover "
                    + "per context, and the app ignores a second one",
                expected: .null, found: .string(shown), witness: modalWitness[shown])
        case .notOnRoute(let route, let stack, let routes):
            let listed = ListedNames(routes)
            report(
                .modalNotAllowed,
                "modal \(JSONWriter.quoted(modal)) overlays only \(listed.joined(separator: ", ")); "
                    + "\(stack.map { "stack \(JSONWriter.quoted($0)) shows \(describeTop(route))" } ?? "no stack is shown")",
                expected: listed.json, found: .optionalString(route), witness: stack.flatMap { witness(of: $0) })
        }
    }

    /// A pop (`route_pop` with a count, `route_pop_to` of a route) of a stack whose context shows
    /// a modal, in a flow that presents by context: the app's coordinator does not pop then (a
    /// pop to the root still clears). Reported as `stack.not_owned` (the modal holds the stack),
    /// unless the event already was.
    mutating func checkCoveredPop(_ payload: NavigationEvent.Payload, stack: String, reported: Int) {
        switch payload {
        case .routePop(_, _, _, .count), .routePopTo(_, _, _?): break
        default: return
        }
        guard pending.count == reported, let modal = model.modalCovering(stack, flow: working.flow, presented: working.modals)
        else { return }
        report(
            .stackNotOwned,
            "\(payload.name.rawValue) on stack \(JSONWriter.quoted(stack)) while its context shows modal \(JSONWriter.quoted(modal)): "
                + "in flow \(JSONWriter.quoted(working.flow)) a stack does not pop until the modal of its context is dismissed",
            expected: .null, found: .string(modal), witness: modalWitness[modal])
    }

    /// After a stack operation: each presented modal bound to routes must still stand over one
    /// of them (a page's widgets go with the page).
    mutating func checkModalsOnTheirRoutes(after stack: String) {
        let off = model.modalsOffTheirRoutes(flow: working.flow, tab: working.tab, presented: working.modals, top: topRoutes)
        for (modal, covered, route) in off where covered == stack {
            let listed = ListedNames(model.modals[modal]?.routes ?? [])
            report(
                .modalNotAllowed,
                "modal \(JSONWriter.quoted(modal)) stays presented while stack \(JSONWriter.quoted(stack)) shows "
                    + "\(describeTop(route)); it overlays only \(listed.joined(separator: ", ")) and goes with its page",
                expected: listed.json, found: .optionalString(route), witness: modalWitness[modal])
        }
    }
}
