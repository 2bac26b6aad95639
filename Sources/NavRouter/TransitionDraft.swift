import NavEvents
import NavModel

/// One transition being planned: a scratch copy of the router's state, the rule checks, and
/// the events that carry the change out, in order.
///
/// Every router operation runs on a draft. A check that fails throws before the router writes
/// anything, so a refused request leaves no event and no state change; a draft that completes
/// is committed whole, its events under one correlation id. The checks are the rules that
/// `NavigationFold` applies offline (CONTRACT §5, §7), in the same terms, so that a router
/// that commits only drafts writes logs without findings.
struct TransitionDraft {
    let model: NavigationModel
    let successModal: String
    var state: NavigationState
    /// The parameters of each route, parallel to `state.stacks`.
    var params: [String: [RouteParams?]]
    var success: SuccessPayload?
    private(set) var payloads: [NavigationEvent.Payload] = []

    init(
        model: NavigationModel, successModal: String, state: NavigationState, params: [String: [RouteParams?]],
        success: SuccessPayload?
    ) {
        self.model = model
        self.successModal = successModal
        self.state = state
        self.params = params
        self.success = success
    }

    mutating func emit(_ payload: NavigationEvent.Payload) {
        payloads.append(payload)
    }

    // MARK: Stacks

    /// The named stack, or the active one (the own stack of the top-most presented modal that
    /// has one, else the flow's); it must be declared and owned by the current flow, or be the
    /// own stack of a presented modal.
    func resolve(_ name: String?) throws(NavigationRefusal) -> (name: String, spec: StackSpec) {
        let stack: String
        if let name {
            stack = name
        } else {
            guard let active = model.activeStack(in: state) else {
                throw .noActiveStack(flow: state.flow)
            }
            stack = active
        }
        guard let spec = model.stacks[stack] else { throw .unknownStack(stack) }
        if let modal = model.owningModal(of: stack) {
            guard state.modals.contains(modal) else { throw .modalNotPresented(modal) }
        } else {
            guard model.flow(state.flow, owns: stack) else { throw .stackNotOwned(stack: stack, flow: state.flow) }
        }
        return (stack, spec)
    }

    func routes(of stack: String) -> [String] {
        state.stacks[stack] ?? []
    }

    func routeParams(of stack: String) -> [RouteParams?] {
        let routes = routes(of: stack)
        var list = params[stack] ?? []
        if list.count > routes.count { list.removeLast(list.count - routes.count) }
        if list.count < routes.count { list += Array(repeating: nil, count: routes.count - list.count) }
        return list
    }

    mutating func set(_ stack: String, routes: [String], params list: [RouteParams?]) {
        state.stacks[stack] = routes
        params[stack] = list
    }

    /// Every positional requirement of the stack, for operations that shift routes (insert,
    /// remove). The fold checks positions only where a route enters; the router also refuses
    /// to shift a route out of its required place, so that every state it reaches is one a
    /// snapshot of it can restore.
    func checkPositions(_ routes: [String], stack: String, spec: StackSpec) throws(NavigationRefusal) {
        for requirement in spec.positions where requirement.index < routes.count {
            let route = routes[requirement.index]
            if !requirement.allows(route, at: requirement.index, in: state.flow) {
                throw .positionRequired(route: route, stack: stack, index: requirement.index, oneOf: requirement.oneOf)
            }
        }
    }

    /// One action writes each event once (seed 001 §7.9, `analytics.duplicate`): a transaction
    /// or a deep link that would write the same event twice (pushing a route on itself twice,
    /// popping one of two equal routes twice) is refused.
    func checkNoRepeatedEvent() throws(NavigationRefusal) {
        var seen: Set<NavigationEvent.Payload> = []
        for payload in payloads where !seen.insert(payload).inserted {
            throw .repeatedEvent(payload.name.rawValue)
        }
    }

    /// Every positional requirement of every stack, in the current flow: checked before a
    /// draft is committed, so that a command that changes the flow cannot leave a stack that
    /// the new flow's requirements forbid (the router's states all restore).
    func checkAllPositions() throws(NavigationRefusal) {
        for stack in model.stackNames {
            guard let spec = model.stacks[stack], !spec.positions.isEmpty else { continue }
            try checkPositions(routes(of: stack), stack: stack, spec: spec)
        }
    }

    /// Parameters must encode to a valid event: unique names, numbers in JSON syntax.
    func checkParams(_ params: RouteParams?) throws(NavigationRefusal) {
        guard let params else { return }
        var names: Set<String> = []
        for (name, value) in params.entries {
            guard names.insert(name).inserted else {
                throw .invalidRouteParams("the name \"\(name)\" is given twice")
            }
            if case .number(let text) = value, !isJSONNumber(text) {
                throw .invalidRouteParams("\"\(text)\" (parameter \"\(name)\") is not a JSON number")
            }
        }
    }

    // MARK: Tabs

    mutating func selectTab(_ tab: String) throws(NavigationRefusal) {
        guard let tabs = model.flows[state.flow]?.tabs else { throw .flowHasNoTabs(state.flow) }
        guard tabs.contains(tab) else { throw .unknownTab(tab, flow: state.flow) }
        guard tab != state.tab else { return }
        emit(.tabSwitch(from: state.tab, to: tab))
        state.tab = tab
    }

    // MARK: Modals

    mutating func present(_ modal: String, style: ModalStyle) throws(NavigationRefusal) {
        guard let spec = model.modals[modal] else { throw .unknownModal(modal) }
        guard !state.modals.contains(modal) else { throw .modalAlreadyPresented(modal) }
        guard spec.isAllowed(in: state.flow) else { throw .modalNotAllowed(modal, flow: state.flow) }
        guard spec.allowsStyle(style.rawValue) else { throw .modalStyleNotAllowed(modal, style: style.rawValue) }
        if let limit = model.flows[state.flow]?.maxModals, state.modals.count >= limit {
            throw .tooManyModals(limit: limit, flow: state.flow)
        }
        if spec.from != nil || spec.routes != nil,
            let problem = model.presentationProblem(
                of: modal, flow: state.flow, tab: state.tab, presented: state.modals, top: { state.stacks[$0]?.last })
        {
            throw .presentationNotAllowed(modal: modal, problem)
        }
        emit(.modalPresent(modal: modal, style: style))
        state.modals.append(modal)
        if let stack = spec.stack { set(stack, routes: [], params: []) }
    }

    /// Dismisses the modal and every modal above it (CONTRACT §7, Modals), with one event.
    /// Their own stacks go with them.
    mutating func dismiss(_ modal: String) throws(NavigationRefusal) {
        guard let index = state.modals.lastIndex(of: modal) else { throw .modalNotPresented(modal) }
        emit(.modalDismiss(modal: modal))
        if state.modals[index...].contains(successModal) { success = nil }
        for removed in state.modals[index...] { closeStack(of: removed) }
        state.modals.removeSubrange(index...)
    }

    /// Dismisses modals one by one, top first, until `count` remain.
    mutating func dismissModals(keeping count: Int) {
        while state.modals.count > max(count, 0), let top = state.modals.popLast() {
            emit(.modalDismiss(modal: top))
            if top == successModal { success = nil }
            closeStack(of: top)
        }
    }

    private mutating func closeStack(of modal: String) {
        if let stack = model.modals[modal]?.stack { set(stack, routes: [], params: []) }
    }

    /// Where a smart dismiss or a close starts: the context of the calling coordinator.
    /// `nil` is the base (the flow's stack, under every modal).
    func level(of context: NavigationContext) throws(NavigationRefusal) -> Int? {
        switch context {
        case .visible: return state.modals.isEmpty ? nil : state.modals.count - 1
        case .base: return nil
        case .modal(let modal):
            guard let index = state.modals.lastIndex(of: modal) else { throw .modalNotPresented(modal) }
            return index
        }
    }

    /// Seed 002's smart dismiss from a context: the sheet or cover it presented first (the modal
    /// just above it, with those above that), then a pop of its own stack, then the dismissal
    /// of the context itself (its parent dismisses it). Nothing of these: refused.
    mutating func smartDismiss(from context: NavigationContext) throws(NavigationRefusal) {
        let level = try level(of: context)
        let above = (level ?? -1) + 1
        if above < state.modals.count {
            try dismiss(state.modals[above])
            return
        }
        let stack: String? =
            if let level { model.modals[state.modals[level]]?.stack } else { model.activeStack(flow: state.flow, tab: state.tab) }
        if let stack, !routes(of: stack).isEmpty {
            try pop(1, on: stack)
            return
        }
        guard let level else { throw .nothingToDismiss }
        try dismiss(state.modals[level])
    }

    /// Seed 002's `close`: dismisses the whole modal flow the context is in (the modal, its
    /// stack and everything above it). At the base there is nothing to close: refused.
    ///
    /// In a flow that presents by context, `close` at the base is what seed 002's coordinator
    /// does when no parent dismisses it: a pop to the root of the base stack.
    mutating func close(from context: NavigationContext) throws(NavigationRefusal) {
        guard let level = try level(of: context) else {
            guard model.flows[state.flow]?.presentation == .contexts,
                let stack = model.activeStack(flow: state.flow, tab: state.tab), !routes(of: stack).isEmpty
            else { throw .nothingToDismiss }
            try popToRoot(on: stack)
            return
        }
        try dismiss(state.modals[level])
    }

    // MARK: Commands

    /// The cross-flow command handler (seed 001 §4.3, contract 5.5): the only place flows
    /// change. In order: `command_applied`; a `route_pop` to the root of each non-empty stack
    /// it resets; a `modal_dismiss` per modal, top first, for the modals it dismisses (all of
    /// them with `dismiss_modals`, otherwise those the target flow does not allow, or beyond
    /// its `max_modals`, with the ones above them); `flow_switch` if the flow changes;
    /// `tab_switch` to the command's tab if it names one that is not selected (or to the
    /// target flow's first tab if the selected tab is not one of its tabs).
    mutating func applyCommand(_ name: String) throws(NavigationRefusal) {
        guard let spec = model.commands[name] else { throw .unknownCommand(name) }
        guard let target = model.flows[spec.flow] else { throw .unknownFlow(spec.flow) }
        for stack in spec.reset where model.stacks[stack] == nil { throw .unknownStack(stack) }
        if let tab = spec.tab, let tabs = target.tabs, !tabs.contains(tab) { throw .unknownTab(tab, flow: spec.flow) }

        emit(.commandApplied(command: name, fromFlow: state.flow, toFlow: spec.flow))
        for stack in spec.reset {
            let routes = routes(of: stack)
            guard !routes.isEmpty else { continue }
            emit(.routePop(stack: stack, from: routes.last, to: nil, amount: .toRoot))
            set(stack, routes: [], params: [])
        }
        var keep = state.modals.count
        if spec.dismissModals {
            keep = 0
        } else {
            if let firstDisallowed = state.modals.firstIndex(where: { !(model.modals[$0]?.isAllowed(in: spec.flow) ?? false) }) {
                keep = firstDisallowed
            }
            if let limit = target.maxModals { keep = min(keep, limit) }
        }
        dismissModals(keeping: keep)
        // A flow without tabs keeps the tab selected for later (seed 001's logout selects tab1):
        // switched while the current flow still has it. From a flow without tabs either, no
        // event can switch it (`tab.invalid`): refused.
        if target.tabs == nil, let tab = spec.tab, tab != state.tab {
            guard model.flows[state.flow]?.tabs?.contains(tab) ?? false else { throw .unknownTab(tab, flow: state.flow) }
            emit(.tabSwitch(from: state.tab, to: tab))
            state.tab = tab
        }
        if spec.flow != state.flow {
            emit(.flowSwitch(from: state.flow, to: spec.flow))
            state.flow = spec.flow
        }
        var tab = target.tabs == nil ? nil : spec.tab
        if tab == nil, let tabs = target.tabs, !(state.tab.map(tabs.contains) ?? false) {
            tab = tabs.first
        }
        if let tab, tab != state.tab {
            emit(.tabSwitch(from: state.tab, to: tab))
            state.tab = tab
        }
    }

    /// Whether the state now satisfies what the command must leave behind (CONTRACT §7).
    func satisfies(command name: String) -> Bool {
        guard let spec = model.commands[name] else { return false }
        if state.flow != spec.flow { return false }
        if let tab = spec.tab, state.tab != tab { return false }
        if spec.dismissModals, !state.modals.isEmpty { return false }
        return true
    }

    // MARK: Deep links

    /// A matched deep link: its command, then its steps. The captured parameters go on the
    /// last route the link pushes (its target). A push of a singleton already in its stack
    /// pops back to it (`openOnce`); presenting a modal already presented does nothing.
    mutating func follow(_ link: DeepLink, captures: [(String, String)]) throws(NavigationRefusal) {
        if let command = link.command { try applyCommand(command) }
        let targetIndex = link.steps.lastIndex { step in
            if case .push = step { true } else { false }
        }
        let captured = captures.isEmpty ? nil : RouteParams(captures.map { ($0.0, ParamValue.string($0.1)) })
        for (index, step) in link.steps.enumerated() {
            switch step {
            case .selectTab(let tab):
                try selectTab(tab)
            case .push(let stack, let route):
                let spec = try resolve(stack).spec
                if spec.singletons.contains(route), routes(of: stack).contains(route) {
                    try popTo(route, on: stack)
                } else {
                    try push(route, on: stack, params: index == targetIndex ? captured : nil)
                }
            case .present(let modal, let style):
                if !state.modals.contains(modal) {
                    try present(modal, style: ModalStyle(rawValue: style) ?? .sheet)
                }
            }
        }
        if let command = link.command, !satisfies(command: command) {
            throw .commandPostcondition(command: command)
        }
    }

    // MARK: Snapshots

    /// Checks a snapshot against the model (seed 001 §7.12) with the rules the fold applies to
    /// a `session_start` snapshot, and returns it completed with every declared stack.
    static func validate(
        _ snapshot: NavigationState, model: NavigationModel
    ) -> Result<NavigationState, NavigationRefusal> {
        guard let flow = model.flows[snapshot.flow] else { return .failure(.unknownFlow(snapshot.flow)) }
        if let tabs = flow.tabs {
            guard let tab = snapshot.tab, tabs.contains(tab) else {
                return .failure(.unknownTab(snapshot.tab, flow: snapshot.flow))
            }
        } else if let tab = snapshot.tab {
            // A flow without tabs keeps the last selected tab (the PoC starts in onboarding
            // with tab1): it must be a tab of some flow.
            guard model.flows.values.contains(where: { $0.tabs?.contains(tab) ?? false }) else {
                return .failure(.unknownTab(tab, flow: snapshot.flow))
            }
        }
        var restored = model.initialState
        restored.flow = snapshot.flow
        restored.tab = snapshot.tab
        for stack in snapshot.stacks.keys.sorted() {
            let routes = snapshot.stacks[stack] ?? []
            guard let spec = model.stacks[stack] else { return .failure(.unknownStack(stack)) }
            var seen: [String] = []
            for (index, route) in routes.enumerated() {
                guard !route.isEmpty, spec.accepts(route) else { return .failure(.unknownRoute(route, stack: stack)) }
                // A snapshot names routes without their parameters: under `identity: value` two
                // routes of one name may be two values, so its singletons are not checked here.
                if spec.identity == .name, spec.singletons.contains(route), seen.contains(route) {
                    return .failure(.singletonAlreadyPresent(route, stack: stack))
                }
                for requirement in spec.positions where !requirement.allows(route, at: index, in: snapshot.flow) {
                    return .failure(.positionRequired(route: route, stack: stack, index: index, oneOf: requirement.oneOf))
                }
                seen.append(route)
            }
            if let limit = spec.maxDepth, routes.count > limit { return .failure(.stackFull(stack: stack, maxDepth: limit)) }
            if let modal = model.owningModal(of: stack), !routes.isEmpty, !snapshot.modals.contains(modal) {
                return .failure(.modalNotPresented(modal))
            }
            restored.stacks[stack] = routes
        }
        for (index, modal) in snapshot.modals.enumerated() {
            guard let spec = model.modals[modal] else { return .failure(.unknownModal(modal)) }
            if snapshot.modals[..<index].contains(modal) { return .failure(.modalAlreadyPresented(modal)) }
            guard spec.isAllowed(in: snapshot.flow) else { return .failure(.modalNotAllowed(modal, flow: snapshot.flow)) }
            if let limit = flow.maxModals, index >= limit { return .failure(.tooManyModals(limit: limit, flow: snapshot.flow)) }
        }
        restored.modals = snapshot.modals
        return .success(restored)
    }
}

/// RFC 8259 number syntax: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
func isJSONNumber(_ text: String) -> Bool {
    var bytes = Array(text.utf8)[...]
    func digits(_ bytes: inout ArraySlice<UInt8>) -> Int {
        var count = 0
        while let byte = bytes.first, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
            bytes.removeFirst()
            count += 1
        }
        return count
    }
    if bytes.first == UInt8(ascii: "-") { bytes.removeFirst() }
    if bytes.first == UInt8(ascii: "0") {
        bytes.removeFirst()
    } else if digits(&bytes) == 0 {
        return false
    }
    if bytes.first == UInt8(ascii: ".") {
        bytes.removeFirst()
        guard digits(&bytes) > 0 else { return false }
    }
    if bytes.first == UInt8(ascii: "e") || bytes.first == UInt8(ascii: "E") {
        bytes.removeFirst()
        if bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") { bytes.removeFirst() }
        guard digits(&bytes) > 0 else { return false }
    }
    return bytes.isEmpty
}
