import NavEvents
import NavModel
import NavReplay

/// One transition being planned: a scratch copy of the router's state, the rule checks, and
/// the events that carry the change out, in order.
///
/// Every router operation runs on a draft. A check that fails throws before the router writes
/// anything, so a refused request leaves no event and no state change; a draft that completes
/// is committed whole, its events under one correlation id. The checks are the rules'
/// checks in NavReplay's `Rules/`, which `NavigationFold` applies offline (docs/events-and-rules.md):
/// the draft maps what they return to its refusals, so that a router that commits only drafts
/// writes logs without findings.
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
        guard let number = StackUnknown.check(stack, model: model) else { throw .unknownStack(stack) }
        switch StackNotOwned.check(stack, number: number, flowSpec: model.flows[state.flow], presented: state.modals, model: model) {
        case .modalNotPresented(let modal)?: throw .modalNotPresented(modal)
        case .notOwned?: throw .stackNotOwned(stack: stack, flow: state.flow)
        case .covered(let modal)?: throw .stackCovered(stack: stack, modal: modal)
        case nil: return (stack, model.stackTable.specs[number])
        }
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
        if let requirement = RoutePosition.check(stack: routes, spec: spec, flow: state.flow).first {
            throw .positionRequired(route: routes[requirement.index], stack: stack, index: requirement.index, oneOf: requirement.oneOf)
        }
    }

    /// One action writes each event once (no duplicate analytics events, `analytics.duplicate`): a
    /// transaction or a deep link that would write the same event twice (pushing a route on itself
    /// twice, popping one of two equal routes twice) is refused.
    func checkNoRepeatedEvent() throws(NavigationRefusal) {
        if let repeated = AnalyticsDuplicate.check(group: payloads) { throw .repeatedEvent(repeated.rawValue) }
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
        switch TabInvalid.check(switchingTo: tab, flowSpec: model.flows[state.flow]) {
        case .noTabs?: throw .flowHasNoTabs(state.flow)
        case .notATab?: throw .unknownTab(tab, flow: state.flow)
        case nil: break
        }
        guard tab != state.tab else { return }
        emit(.tabSwitch(from: state.tab, to: tab))
        state.tab = tab
    }

    // MARK: Modals

    mutating func present(_ modal: String, style: ModalStyle) throws(NavigationRefusal) {
        // A modal the model does not declare is never presented: this order refuses it as undeclared.
        if ModalAlreadyPresented.check(presenting: modal, presented: state.modals) != nil { throw .modalAlreadyPresented(modal) }
        if let problem = ModalNotAllowed.check(
            presenting: modal, style: style, flow: state.flow, tab: state.tab, presented: state.modals, model: model,
            top: { state.stacks[$0]?.last })
        {
            throw NavigationRefusal(problem, modal: modal, style: style.rawValue, flow: state.flow)
        }
        emit(.modalPresent(modal: modal, style: style))
        state.modals.append(modal)
        if let stack = model.modals[modal]?.stack { set(stack, routes: [], params: []) }
    }

    /// Dismisses the modal and every modal above it (docs/events-and-rules.md, Modals), with one event.
    /// Their own stacks go with them.
    mutating func dismiss(_ modal: String) throws(NavigationRefusal) {
        if ModalNotPresented.check(dismissing: modal, presented: state.modals) != nil { throw .modalNotPresented(modal) }
        guard let index = state.modals.lastIndex(of: modal) else { return }
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

    /// The modular tabs system's smart dismiss from a context: the sheet or cover it presented
    /// first (the modal just above it, with those above that), then a pop of its own stack, then
    /// the dismissal of the context itself (its parent dismisses it). Nothing of these: refused.
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

    /// The modular tabs system's `close`: dismisses the whole modal flow the context is in (the
    /// modal, its stack and everything above it). At the base there is nothing to close: refused.
    ///
    /// In a flow that presents by context, `close` at the base is what the modular tabs system's
    /// coordinator does when no parent dismisses it: a pop to the root of the base stack.
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

    /// The cross-flow command handler, which applies typed cross-flow commands: the only place flows
    /// change. In order: `command_applied`; a `route_pop` to the root of each non-empty stack
    /// it resets; a `modal_dismiss` per modal, top first, for the modals it dismisses (all of
    /// them with `dismiss_modals`, otherwise those the target flow does not allow, or beyond
    /// its `max_modals`, with the ones above them); `flow_switch` if the flow changes;
    /// `tab_switch` to the command's tab if it names one that is not selected (or to the
    /// target flow's first tab if the selected tab is not one of its tabs).
    mutating func applyCommand(_ name: String) throws(NavigationRefusal) {
        guard let spec = CommandUnknown.check(name, model: model) else { throw .unknownCommand(name) }
        guard FlowUnknown.check(spec.flow, in: .command, model: model) == nil, let target = model.flows[spec.flow] else {
            throw .unknownFlow(spec.flow)
        }
        for stack in spec.reset where StackUnknown.check(stack, model: model) == nil { throw .unknownStack(stack) }
        if let tab = spec.tab, target.tabs != nil, TabInvalid.check(switchingTo: tab, flowSpec: target) != nil {
            throw .unknownTab(tab, flow: spec.flow)
        }

        emit(.commandApplied(command: name, fromFlow: state.flow, toFlow: spec.flow))
        for stack in spec.reset {
            let routes = routes(of: stack)
            guard !routes.isEmpty else { continue }
            emit(.routePop(stack: stack, from: routes.last, to: nil, amount: .toRoot))
            set(stack, routes: [], params: [])
        }
        // The modals kept are those below the first that `modal.not_allowed` forbids in the
        // target flow, as a snapshot of it would list them (not allowed there, or past its
        // `max_modals`).
        var keep = spec.dismissModals ? 0 : state.modals.count
        for (index, modal) in state.modals.enumerated() where index < keep {
            if ModalNotAllowed.check(restoring: modal, flow: spec.flow, presented: index, model: model) != nil {
                keep = index
            }
        }
        dismissModals(keeping: keep)
        // A flow without tabs keeps the tab selected for later (the PoC app's logout selects tab1):
        // switched while the current flow still has it. From a flow without tabs either, no
        // event can switch it (`tab.invalid`): refused.
        if target.tabs == nil, let tab = spec.tab, tab != state.tab {
            if TabInvalid.check(switchingTo: tab, flowSpec: model.flows[state.flow]) != nil { throw .unknownTab(tab, flow: state.flow) }
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

    /// Whether the state now satisfies what the command must leave behind (docs/events-and-rules.md).
    func satisfies(command name: String) -> Bool {
        guard let spec = CommandUnknown.check(name, model: model) else { return false }
        let broken = CommandPostcondition.check(
            command: name, spec: spec, flow: state.flow, tab: state.tab, modals: state.modals, notReset: [], correlationID: "",
            routes: { _ in nil })
        return broken == nil
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

    /// Checks a snapshot against the model (state restoration) with the rules the fold applies to
    /// a `session_start` snapshot, and returns it completed with every declared stack.
    static func validate(
        _ snapshot: NavigationState, model: NavigationModel
    ) -> Result<NavigationState, NavigationRefusal> {
        guard FlowUnknown.check(snapshot.flow, in: .snapshot, model: model) == nil, let flow = model.flows[snapshot.flow] else {
            return .failure(.unknownFlow(snapshot.flow))
        }
        if flow.tabs != nil {
            if TabInvalid.check(restoring: snapshot.tab, flow: snapshot.flow, model: model) != nil {
                return .failure(.unknownTab(snapshot.tab, flow: snapshot.flow))
            }
        } else if let tab = snapshot.tab {
            // A flow without tabs keeps the last selected tab (the PoC starts in onboarding
            // with tab1): the router restores it only if it is a tab of some flow, so that a
            // later command can select it. The fold adopts any.
            guard model.flows.values.contains(where: { $0.tabs?.contains(tab) ?? false }) else {
                return .failure(.unknownTab(tab, flow: snapshot.flow))
            }
        }
        var restored = model.initialState
        restored.flow = snapshot.flow
        restored.tab = snapshot.tab
        for stack in snapshot.stacks.keys.sorted() {
            let routes = snapshot.stacks[stack] ?? []
            guard let number = StackUnknown.check(stack, model: model) else { return .failure(.unknownStack(stack)) }
            let spec = model.stackTable.specs[number]
            var seen: Set<String> = []
            for (index, route) in routes.enumerated() {
                // An empty name is no route for the router.
                guard !route.isEmpty, RouteUnknown.check(restoring: route, stack: stack, spec: spec) == nil else {
                    return .failure(.unknownRoute(route, stack: stack))
                }
                if RouteSingleton.check(restoring: route, stack: stack, spec: spec, seen: seen) != nil {
                    return .failure(.singletonAlreadyPresent(route, stack: stack))
                }
                if let requirement = RoutePosition.check(route, at: index, spec: spec, flow: snapshot.flow).first {
                    return .failure(.positionRequired(route: route, stack: stack, index: index, oneOf: requirement.oneOf))
                }
                seen.insert(route)
            }
            if StackOutOfRange.check(restoring: stack, spec: spec, count: routes.count) != nil {
                return .failure(.stackFull(stack: stack, maxDepth: spec.maxDepth ?? routes.count))
            }
            if case .modalNotPresented(let modal)? = StackNotOwned.check(
                restoring: number, routes: routes, modals: snapshot.modals, model: model)
            {
                return .failure(.modalNotPresented(modal))
            }
            restored.stacks[stack] = routes
        }
        for (index, modal) in snapshot.modals.enumerated() {
            // A modal listed twice was checked at its first listing: undeclared modals are refused as such.
            if ModalAlreadyPresented.check(restoring: modal, listed: Array(snapshot.modals[..<index])) != nil {
                return .failure(.modalAlreadyPresented(modal))
            }
            if let problem = ModalNotAllowed.check(restoring: modal, flow: snapshot.flow, presented: index, model: model) {
                return .failure(NavigationRefusal(problem, modal: modal, style: "", flow: snapshot.flow))
            }
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
