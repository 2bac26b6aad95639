/// Where a modal may be presented and which stacks a presented modal holds still (model
/// language 1.1: `flows.<name>.presentation`, `modals.<name>.from` and `modals.<name>.routes`).
///
/// The fold and the router ask the same questions here, so that the router refuses exactly
/// what the fold reports. A model without these keys never reaches them.
extension NavigationModel {
    /// Why a modal cannot be presented now, by a rule of model language 1.1.
    public enum PresentationProblem: Sendable, Hashable {
        /// None of the stacks whose context presents the modal (`from`) is shown.
        case contextNotShown(from: [String])
        /// The context that presents the modal already shows `modal` (flows with
        /// `presentation: contexts`): the app ignores a second sheet or cover in one context.
        case contextShowsModal(context: String, modal: String)
        /// The modal overlays only some routes (`routes`) and the stack it covers shows another
        /// one (`nil`: its root).
        case notOnRoute(route: String?, stack: String?, routes: [String])
    }

    /// Whether a model uses any of the presentation keys of model language 1.1.
    public var usesPresentationKeys: Bool {
        flows.values.contains { $0.presentation == .contexts }
            || modals.values.contains { $0.from != nil || $0.routes != nil }
    }

    /// The problem with presenting `modal` over `presented` (bottom first) in `flow`, if any.
    /// `top` gives a stack's top route (`nil` at its root).
    public func presentationProblem(
        of modal: String, flow: String, tab: String?, presented: [String], top: (String) -> String?
    ) -> PresentationProblem? {
        guard let spec = modals[modal] else { return nil }
        if let from = spec.from {
            let base = activeStack(flow: flow, tab: tab)
            // Each context shown, bottom first, with the position of the modal that holds its
            // slot (`nil`: the slot is free, the context is on top).
            var shown: [(stack: String, slotAt: Int?)] = []
            if let base { shown.append((base, presented.isEmpty ? nil : 0)) }
            for (index, name) in presented.enumerated() {
                guard let stack = modals[name]?.stack else { continue }
                shown.append((stack, index + 1 < presented.count ? index + 1 : nil))
            }
            let candidates = shown.filter { from.contains($0.stack) }
            if candidates.isEmpty { return .contextNotShown(from: from) }
            if flows[flow]?.presentation == .contexts, !candidates.contains(where: { $0.slotAt == nil }),
                let busy = candidates.last, let slot = busy.slotAt
            {
                return .contextShowsModal(context: busy.stack, modal: presented[slot])
            }
        }
        if let routes = spec.routes {
            let stack = coveredStack(below: presented.count, modals: presented, flow: flow, tab: tab)
            let route = stack.flatMap(top)
            if stack == nil || !(route.map(routes.contains) ?? false) {
                return .notOnRoute(route: route, stack: stack, routes: routes)
            }
        }
        return nil
    }

    /// In a flow with `presentation: contexts`, the modal shown by the context of `stack`, which
    /// keeps the stack from popping: the modal just above the one that owns the stack, or the
    /// first modal for a stack of the flow. `nil` when nothing covers it, or in a stacked flow.
    public func modalCovering(_ stack: String, flow: String, presented: [String]) -> String? {
        guard flows[flow]?.presentation == .contexts, !presented.isEmpty else { return nil }
        if let owner = owningModal(of: stack) {
            guard let index = presented.lastIndex(of: owner), index + 1 < presented.count else { return nil }
            return presented[index + 1]
        }
        return presented[0]
    }

    /// The presented modals bound to routes (`modals.<name>.routes`) that no longer stand over
    /// one of them, with the stack each covers and its top route.
    public func modalsOffTheirRoutes(
        flow: String, tab: String?, presented: [String], top: (String) -> String?
    ) -> [(modal: String, stack: String?, route: String?)] {
        var off: [(String, String?, String?)] = []
        for (index, modal) in presented.enumerated() {
            guard let routes = modals[modal]?.routes else { continue }
            let stack = coveredStack(below: index, modals: presented, flow: flow, tab: tab)
            let route = stack.flatMap(top)
            if !(route.map(routes.contains) ?? false) { off.append((modal, stack, route)) }
        }
        return off
    }
}
