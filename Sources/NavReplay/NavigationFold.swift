public import NavEvents
import NavJSON
public import NavModel

/// The pure fold: applies one session's events, in `seq` order, to a `NavigationState` and
/// reports every navigation rule they break (CONTRACT §3, §5, §7).
///
/// It has no clock, no files and no randomness: everything comes from the events and the
/// model, so the same events always give the same state and findings. `SessionAuditor` drives
/// it over a whole session (dedupe, ordering, gaps); a router can drive it live, one event at a
/// time, to check its own invariants with exactly the rules `navreplay` applies offline.
///
/// The fold follows the log: an event that breaks a rule is still applied where it can be, and
/// after a `state.mismatch` the fold adopts the event's claimed value, so that one lost event
/// yields one finding rather than a cascade.
public struct NavigationFold: Sendable {
    public let model: NavigationModel
    public private(set) var state: NavigationState

    /// The last event that changed each part of the state: the witnesses of findings.
    private var stackWitness: [String: EventReference] = [:]
    private var flowWitness: EventReference?
    private var tabWitness: EventReference?
    private var modalWitness: [String: EventReference] = [:]
    private var lastEvent: EventReference?

    /// Correlation groups that have started and not yet ended, by correlation id.
    private var openGroups: [String: GroupTracker] = [:]
    /// The open groups that hold a command whose reset stacks are being watched: usually none,
    /// so the per-event watch costs nothing.
    private var groupsWithCommands: Set<String> = []

    public init(model: NavigationModel) {
        self.model = model
        self.state = model.initialState
    }

    /// Starts from a given state (e.g. a router restored from a snapshot).
    public init(model: NavigationModel, state: NavigationState) {
        self.model = model
        self.state = state
    }

    /// What is open in one correlation group while its events arrive.
    private struct GroupTracker: Sendable {
        var authorizesFlowSwitch = false
        var resetStacks: Set<String> = []
        var pendingCommands: [PendingCommand] = []
        var pendingLinks: [PendingLink] = []
        /// The group's last flow switch, the state before the group's first one and the stacks
        /// at the last one: flow-bound positions are checked at the group's end.
        var flowSwitch: FlowSwitch?
        var contentIdentities: [UInt64: EventReference] = [:]
    }

    /// A flow switch whose group must leave the new flow's positions satisfied.
    private struct FlowSwitch: Sendable {
        var event: EventReference
        var sessionID: String
        var stateBefore: NavigationState
        var stacksAtSwitch: [String: [String]]
    }

    /// A resolved deep link whose model steps must land, in order, in its group.
    private struct PendingLink: Sendable {
        var url: String
        var link: DeepLink
        var event: EventReference
        var sessionID: String
        var stateAtLink: NavigationState
        /// The next step to land.
        var cursor = 0
        /// Steps that landed, in the order they did.
        var landed: [Int] = []
        /// Steps passed over without holding: they may still land, late.
        var skipped: Set<Int> = []
        /// What went wrong, for the finding.
        var problems: [String] = []
    }

    private struct PendingCommand: Sendable {
        var name: String
        var spec: CommandSpec
        var event: EventReference
        var sessionID: String
        var stateAtCommand: NavigationState
        var stacksSeenEmpty: Set<String>
    }

    /// The findings of the event being applied, before their states are filled in.
    private var pending: [Finding] = []
    /// Stacks that became empty at some moment of the event being applied.
    private var emptiedDuringEvent: Set<String> = []
    private var current: (event: NavigationEvent, location: LineLocation?)?

    // MARK: Applying events

    /// Applies one event and returns the findings it raises, each carrying the state before
    /// and after the event.
    ///
    /// - Parameters:
    ///   - event: the next event of the session in `seq` order.
    ///   - location: where it was read, for findings; `nil` for live checks.
    ///   - contentIdentity: `DecodedEvent.contentIdentity`, for `analytics.duplicate`; pass `nil`
    ///     to skip that rule.
    public mutating func apply(
        _ event: NavigationEvent, at location: LineLocation? = nil, contentIdentity: UInt64? = nil
    ) -> [Finding] {
        let before = state
        current = (event, location)
        pending = []
        let reference = EventReference(event, at: location)
        var group = openGroups.removeValue(forKey: event.correlationID) ?? GroupTracker()

        let undeclaredStack = event.payload.stack.map { model.stacks[$0] == nil } ?? false
        if let contentIdentity, !undeclaredStack {
            if let earlier = group.contentIdentities[contentIdentity] {
                report(
                    .analyticsDuplicate,
                    "\(event.name.rawValue) repeats seq \(earlier.seq) of the same correlation group "
                        + "(\(JSONWriter.quoted(event.correlationID))): one action, one event",
                    witness: earlier)
            } else {
                group.contentIdentities[contentIdentity] = reference
            }
        }

        if !group.pendingLinks.isEmpty { advanceLinks(&group.pendingLinks, with: event.payload) }

        switch event.payload {
        case .sessionStart(let snapshot):
            start(from: snapshot, reference: reference)
        case .routePush, .routePop, .routeReplace, .routePopTo, .routeInsert, .routeRemove:
            applyStackOperation(event.payload, reference: reference, group: group)
        case .flowSwitch(let from, let to):
            if !group.authorizesFlowSwitch {
                report(
                    .flowWithoutCommand,
                    "flow_switch \(JSONWriter.quoted(from)) → \(JSONWriter.quoted(to)) has no command_applied or "
                        + "deep_link before it in its correlation group (\(JSONWriter.quoted(event.correlationID)))")
            }
            checkFlow(claimed: from, field: "from_flow")
            if model.flows[to] == nil {
                report(.flowUnknown, "flow_switch to \(JSONWriter.quoted(to)), a flow the model does not declare",
                    found: .string(to))
            }
            group.flowSwitch = FlowSwitch(
                event: reference, sessionID: event.sessionID, stateBefore: group.flowSwitch?.stateBefore ?? before,
                stacksAtSwitch: state.stacks)
            state.flow = to
            flowWitness = reference
        case .tabSwitch(let from, let to):
            if from != state.tab {
                report(
                    .stateMismatch,
                    "tab_switch claims from_tab \(describe(from)) but the selected tab is \(describe(state.tab))",
                    expected: .optionalString(state.tab), found: .optionalString(from), witness: tabWitness)
                state.tab = from
            }
            if let tabs = model.flows[state.flow]?.tabs {
                if !tabs.contains(to) {
                    report(
                        .tabInvalid,
                        "flow \(JSONWriter.quoted(state.flow)) has no tab \(JSONWriter.quoted(to)) "
                            + "(its tabs: \(tabs.joined(separator: ", ")))",
                        expected: .array(tabs.map(JSONValue.string)), found: .string(to))
                }
            } else {
                report(
                    .tabInvalid, "tab_switch to \(JSONWriter.quoted(to)) in flow \(JSONWriter.quoted(state.flow)), which has no tabs",
                    found: .string(to), witness: flowWitness)
            }
            state.tab = to
            tabWitness = reference
        case .commandApplied(let command, let fromFlow, let toFlow):
            group.authorizesFlowSwitch = true
            let spec = model.commands[command]
            if spec == nil {
                report(.commandUnknown, "command \(JSONWriter.quoted(command)) is not declared in the model", found: .string(command))
            }
            checkFlow(claimed: fromFlow, field: "from_flow")
            if model.flows[toFlow] == nil {
                report(.flowUnknown, "command_applied names to_flow \(JSONWriter.quoted(toFlow)), a flow the model does not declare",
                    found: .string(toFlow))
            }
            if let spec {
                if spec.flow != toFlow {
                    report(
                        .stateMismatch,
                        "command \(JSONWriter.quoted(command)) goes to flow \(JSONWriter.quoted(spec.flow)) in the model, "
                            + "but the event claims to_flow \(JSONWriter.quoted(toFlow))",
                        expected: .string(spec.flow), found: .string(toFlow))
                }
                group.resetStacks.formUnion(spec.reset)
                group.pendingCommands.append(
                    PendingCommand(
                        name: command, spec: spec, event: reference, sessionID: event.sessionID,
                        stateAtCommand: state, stacksSeenEmpty: []))
            }
        case .modalPresent(let modal, let style):
            if state.modals.contains(modal) {
                report(
                    .modalAlreadyPresented, "modal \(JSONWriter.quoted(modal)) is already presented; it is not added twice",
                    witness: modalWitness[modal])
            } else {
                if model.modals[modal] == nil {
                    report(.modalNotAllowed, "modal \(JSONWriter.quoted(modal)) is not declared in the model", found: .string(modal))
                } else if let spec = model.modals[modal], !spec.isAllowed(in: state.flow) {
                    report(
                        .modalNotAllowed,
                        "modal \(JSONWriter.quoted(modal)) is not allowed in flow \(JSONWriter.quoted(state.flow))"
                            + " (allowed in: \((spec.flows ?? []).joined(separator: ", ")))",
                        expected: .array((spec.flows ?? []).map(JSONValue.string)), found: .string(state.flow),
                        witness: flowWitness)
                } else if let spec = model.modals[modal], !spec.allowsStyle(style.rawValue) {
                    report(
                        .modalNotAllowed,
                        "modal \(JSONWriter.quoted(modal)) is presented as \(style.rawValue); the model allows "
                            + (spec.styles ?? []).joined(separator: ", "),
                        expected: .array((spec.styles ?? []).map(JSONValue.string)), found: .string(style.rawValue))
                } else if let limit = model.flows[state.flow]?.maxModals, state.modals.count >= limit {
                    report(
                        .modalNotAllowed,
                        "flow \(JSONWriter.quoted(state.flow)) allows at most \(limit) modal(s) at once; "
                            + "\(state.modals.count) already presented (\(state.modals.joined(separator: ", ")))",
                        expected: .number(String(limit)), found: .number(String(state.modals.count + 1)),
                        witness: state.modals.last.flatMap { modalWitness[$0] })
                }
                state.modals.append(modal)
                modalWitness[modal] = reference
                // A modal's own stack starts at its root each time it is presented.
                if let stack = model.modals[modal]?.stack, state.depth(of: stack) > 0 {
                    state.stacks[stack] = []
                    stackWitness[stack] = reference
                    emptiedDuringEvent.insert(stack)
                }
            }
        case .modalDismiss(let modal):
            if let index = state.modals.lastIndex(of: modal) {
                for removed in state.modals[index...] { modalWitness[removed] = reference }
                closeStacks(of: Array(state.modals[index...]), reference: reference)
                state.modals.removeSubrange(index...)
            } else {
                report(
                    .modalNotPresented,
                    "modal_dismiss of \(JSONWriter.quoted(modal)), which is not presented (presented: "
                        + "\(state.modals.isEmpty ? "none" : state.modals.joined(separator: ", ")))",
                    expected: .array(state.modals.map(JSONValue.string)), found: .string(modal),
                    witness: modalWitness[modal])
            }
        case .screenView(let claim, _):
            checkScreenView(claim, reference: reference)
        case .deepLink(let url, let outcome):
            group.authorizesFlowSwitch = true
            if outcome == .resolved, let segments = DeepLinkURL(url)?.segments,
                let (link, _) = model.deepLinks.match(segments), !link.steps.isEmpty
            {
                group.pendingLinks.append(
                    PendingLink(url: url, link: link, event: reference, sessionID: event.sessionID, stateAtLink: state))
            }
        }

        lastEvent = reference
        if !group.pendingCommands.isEmpty { groupsWithCommands.insert(event.correlationID) }
        openGroups[event.correlationID] = group
        noteEmptyStacksForPendingCommands()
        emptiedDuringEvent = []

        var findings = pending
        for index in findings.indices {
            findings[index].stateBefore = before
            findings[index].stateAfter = state
        }
        pending = []
        current = nil
        return findings
    }

    /// Ends a correlation group: checks each of its commands' postconditions (CONTRACT §7).
    ///
    /// Offline, the auditor calls it after the group's highest `seq`; a live router calls it
    /// when it has emitted everything for one action.
    public mutating func endGroup(_ correlationID: String) -> [Finding] {
        guard let group = openGroups.removeValue(forKey: correlationID) else { return [] }
        groupsWithCommands.remove(correlationID)
        var findings: [Finding] = []
        for command in group.pendingCommands {
            var broken: [String] = []
            var expected = JSONObject()
            var found = JSONObject()
            if state.flow != command.spec.flow {
                broken.append("flow is \(JSONWriter.quoted(state.flow)), not \(JSONWriter.quoted(command.spec.flow))")
                expected.append("flow", .string(command.spec.flow))
                found.append("flow", .string(state.flow))
            }
            if let tab = command.spec.tab, state.tab != tab {
                broken.append("tab is \(describe(state.tab)), not \(JSONWriter.quoted(tab))")
                expected.append("tab", .string(tab))
                found.append("tab", .optionalString(state.tab))
            }
            if command.spec.dismissModals, !state.modals.isEmpty {
                broken.append("modals are still presented (\(state.modals.joined(separator: ", ")))")
                expected.append("modals", .array([]))
                found.append("modals", .array(state.modals.map(JSONValue.string)))
            }
            let notReset = command.spec.reset.filter { !command.stacksSeenEmpty.contains($0) }
            if !notReset.isEmpty {
                broken.append("stack(s) \(notReset.joined(separator: ", ")) never emptied")
                expected.append("reset", .array(notReset.map(JSONValue.string)))
                found.append("reset", .array(notReset.map { .array((state.stacks[$0] ?? []).map(JSONValue.string)) }))
            }
            guard !broken.isEmpty else { continue }
            var finding = Finding(
                rule: .commandPostcondition, sessionID: command.sessionID, seq: command.event.seq,
                eventID: command.event.eventID, location: command.event.location,
                message: "command \(JSONWriter.quoted(command.name)) did not complete by the end of its correlation group "
                    + "(\(JSONWriter.quoted(correlationID))): " + broken.joined(separator: "; "),
                expected: .object(expected), found: .object(found), witness: lastEvent,
                eventName: .commandApplied)
            finding.stateBefore = command.stateAtCommand
            finding.stateAfter = state
            findings.append(finding)
        }
        if let flowSwitch = group.flowSwitch {
            findings += checkFlowBoundPositions(after: flowSwitch, correlationID: correlationID)
        }
        for var link in group.pendingLinks {
            // Steps that never landed as events must hold at the end (already there).
            for index in link.cursor..<link.link.steps.count {
                if isSatisfied(link.link.steps[index]) {
                    link.landed.append(index)
                } else {
                    link.problems.append("step \(index + 1) (\(describe(link.link.steps[index]))) never landed")
                }
            }
            guard !link.problems.isEmpty else { continue }
            let declared = link.link.steps.map { JSONValue.string(describe($0)) }
            let landed = link.landed.map { JSONValue.string(describe(link.link.steps[$0])) }
            var expected = JSONObject()
            expected.append("steps", .array(declared))
            var found = JSONObject()
            found.append("steps", .array(landed))
            var finding = Finding(
                rule: .commandPostcondition, sessionID: link.sessionID, seq: link.event.seq,
                eventID: link.event.eventID, location: link.event.location,
                message: "deep link \(JSONWriter.quoted(link.url)) (pattern \(JSONWriter.quoted(link.link.pattern.joined(separator: "/")))) "
                    + "did not land its steps in the declared order in its correlation group (\(JSONWriter.quoted(correlationID))): "
                    + link.problems.joined(separator: "; "),
                expected: .object(expected), found: .object(found), witness: lastEvent, eventName: .deepLink)
            finding.stateBefore = link.stateAtLink
            finding.stateAfter = state
            findings.append(finding)
        }
        return findings
    }

    /// At the end of a group that switched the flow: the routes of the stacks the new flow owns
    /// that stood at their place at the switch and still do, against the positions bound to
    /// flows (`positions[].flows`), reported at the group's last flow switch. A route that entered
    /// after the switch was checked as it entered; positions that hold in every flow were checked
    /// as the routes entered.
    private func checkFlowBoundPositions(after flowSwitch: FlowSwitch, correlationID: String) -> [Finding] {
        var findings: [Finding] = []
        for stack in model.flows[state.flow]?.ownedStacks ?? [] {
            guard let spec = model.stacks[stack] else { continue }
            let routes = state.stacks[stack] ?? []
            for requirement in spec.positions where requirement.flows != nil && requirement.index < routes.count {
                let route = routes[requirement.index]
                guard !requirement.allows(route, at: requirement.index, in: state.flow) else { continue }
                let atSwitch = flowSwitch.stacksAtSwitch[stack] ?? []
                guard requirement.index < atSwitch.count, atSwitch[requirement.index] == route else { continue }
                let required =
                    requirement.oneOf.isEmpty ? "no route there" : "one of \(requirement.oneOf.joined(separator: ", ")) there"
                var finding = Finding(
                    rule: .routePosition, sessionID: flowSwitch.sessionID, seq: flowSwitch.event.seq,
                    eventID: flowSwitch.event.eventID, location: flowSwitch.event.location,
                    message: "after the switch to flow \(JSONWriter.quoted(state.flow)) (correlation group "
                        + "\(JSONWriter.quoted(correlationID))), stack \(JSONWriter.quoted(stack)) still holds "
                        + "\(JSONWriter.quoted(route)) at index \(requirement.index); the model requires \(required) in that flow",
                    expected: .array(requirement.oneOf.map(JSONValue.string)), found: .string(route),
                    witness: stackWitness[stack], eventName: .flowSwitch)
                finding.stateBefore = flowSwitch.stateBefore
                finding.stateAfter = state
                findings.append(finding)
            }
        }
        return findings
    }

    // MARK: Deep link steps

    /// Whether an event carries out a deep link step: a tab switch to its tab, a push of its
    /// route on its stack (or a pop back to it: a singleton is opened once), a present of its modal.
    private func realizes(_ payload: NavigationEvent.Payload, _ step: DeepLinkStep) -> Bool {
        switch (step, payload) {
        case (.selectTab(let tab), .tabSwitch(_, let to)): tab == to
        case (.push(let stack, let route), .routePush(let on, _, let to, _)): stack == on && route == to
        case (.push(let stack, let route), .routePopTo(let on, _, let to)): stack == on && route == to
        case (.present(let modal, _), .modalPresent(let presented, _)): modal == presented
        default: false
        }
    }

    /// Whether a step's effect already holds, so that it needs no event.
    private func isSatisfied(_ step: DeepLinkStep) -> Bool {
        switch step {
        case .selectTab(let tab): state.tab == tab
        case .push(let stack, let route): state.top(of: stack) == route
        case .present(let modal, _): state.modals.contains(modal)
        }
    }

    private func describe(_ step: DeepLinkStep) -> String {
        switch step {
        case .selectTab(let tab): "tab \(tab)"
        case .push(let stack, let route): "push \(stack)/\(route)"
        case .present(let modal, let style): "present \(modal) (\(style))"
        }
    }

    /// Lands the steps an event carries out (CONTRACT extension, seed 002: a deep link's steps
    /// land in the declared order). An event that carries out a step at or after the next one
    /// lands it; the steps it skips must already hold. Other events of the group (the command's
    /// resets, dismissals, flow and tab switches) are not steps and are passed over.
    private func advanceLinks(_ links: inout [PendingLink], with payload: NavigationEvent.Payload) {
        for index in links.indices {
            let steps = links[index].link.steps
            if let late = links[index].skipped.sorted().first(where: { realizes(payload, steps[$0]) }) {
                links[index].skipped.remove(late)
                links[index].landed.append(late)
                continue
            }
            guard links[index].cursor < steps.count,
                let hit = (links[index].cursor..<steps.count).first(where: { realizes(payload, steps[$0]) })
            else { continue }
            for skipped in links[index].cursor..<hit {
                if isSatisfied(steps[skipped]) {
                    links[index].landed.append(skipped)
                } else {
                    links[index].skipped.insert(skipped)
                    links[index].problems.append(
                        "step \(hit + 1) (\(describe(steps[hit]))) landed before step \(skipped + 1) (\(describe(steps[skipped])))")
                }
            }
            links[index].landed.append(hit)
            links[index].cursor = hit + 1
        }
    }

    /// Ends every open group (at the end of a session), in correlation id order.
    public mutating func endAllGroups() -> [Finding] {
        openGroups.keys.sorted().flatMap { endGroup($0) }
    }

    /// Marks, for every pending command, the reset stacks that are empty now or were emptied at
    /// some moment of the event just applied (an adoption may empty a stack, then a push fills it).
    private mutating func noteEmptyStacksForPendingCommands() {
        for key in groupsWithCommands {
            guard let commands = openGroups[key]?.pendingCommands, !commands.isEmpty else { continue }
            for index in commands.indices {
                for stack in commands[index].spec.reset
                where state.depth(of: stack) == 0 || emptiedDuringEvent.contains(stack) {
                    openGroups[key]?.pendingCommands[index].stacksSeenEmpty.insert(stack)
                }
            }
        }
    }

    // MARK: Reporting

    private mutating func report(
        _ rule: Rule, _ message: String, expected: JSONValue? = nil, found: JSONValue? = nil,
        witness: EventReference? = nil
    ) {
        guard let (event, location) = current else { return }
        pending.append(
            Finding(
                rule: rule, sessionID: event.sessionID, seq: event.seq, eventID: event.eventID, location: location,
                message: message, expected: expected, found: found, witness: witness, eventName: event.name))
    }

    private func describe(_ value: String?) -> String {
        value.map(JSONWriter.quoted) ?? "null"
    }

    private func describeTop(_ route: String?) -> String {
        route.map(JSONWriter.quoted) ?? "the root"
    }

    /// Checks a claimed current flow; on a mismatch, adopts it.
    private mutating func checkFlow(claimed: String, field: String) {
        guard claimed != state.flow else { return }
        report(
            .stateMismatch,
            "\(current?.event.name.rawValue ?? "event") claims \(field) \(JSONWriter.quoted(claimed)) "
                + "but the flow is \(JSONWriter.quoted(state.flow))",
            expected: .string(state.flow), found: .string(claimed), witness: flowWitness)
        state.flow = claimed
    }

    // MARK: session_start

    private mutating func start(from snapshot: NavigationState?, reference: EventReference) {
        stackWitness = [:]
        modalWitness = [:]
        flowWitness = reference
        tabWitness = reference
        guard let snapshot else {
            state = model.initialState
            return
        }
        var restored = model.initialState
        restored.flow = snapshot.flow
        restored.tab = snapshot.tab
        if model.flows[snapshot.flow] == nil {
            report(.flowUnknown, "the snapshot's flow \(JSONWriter.quoted(snapshot.flow)) is not declared in the model",
                found: .string(snapshot.flow))
        } else if let tabs = model.flows[snapshot.flow]?.tabs, !(snapshot.tab.map(tabs.contains) ?? false) {
            report(
                .tabInvalid,
                "the snapshot's tab \(describe(snapshot.tab)) is not a tab of flow \(JSONWriter.quoted(snapshot.flow)) "
                    + "(its tabs: \(tabs.joined(separator: ", ")))",
                expected: .array(tabs.map(JSONValue.string)), found: .optionalString(snapshot.tab))
        }
        for stack in snapshot.stacks.keys.sorted() {
            let routes = snapshot.stacks[stack] ?? []
            guard let spec = model.stacks[stack] else {
                report(.stackUnknown, "the snapshot has stack \(JSONWriter.quoted(stack)), which the model does not declare; it is dropped",
                    found: .string(stack))
                continue
            }
            var seen: Set<String> = []
            for (index, route) in routes.enumerated() {
                if !spec.accepts(route) {
                    report(
                        .routeUnknown,
                        "the snapshot's stack \(JSONWriter.quoted(stack)) holds \(JSONWriter.quoted(route)), a route the model does not declare for it",
                        found: .string(route))
                }
                if spec.singletons.contains(route), seen.contains(route) {
                    report(.routeSingleton, "the snapshot's stack \(JSONWriter.quoted(stack)) holds singleton \(JSONWriter.quoted(route)) twice",
                        found: .string(route))
                }
                checkPosition(stack: stack, spec: spec, route: route, index: index, flow: snapshot.flow)
                seen.insert(route)
            }
            if let modal = model.owningModal(of: stack), !routes.isEmpty, !snapshot.modals.contains(modal) {
                report(
                    .stackNotOwned,
                    "the snapshot's stack \(JSONWriter.quoted(stack)) holds routes, but its modal \(JSONWriter.quoted(modal)) is not presented",
                    expected: .string(modal), found: .array(snapshot.modals.map(JSONValue.string)))
            }
            restored.stacks[stack] = routes
            stackWitness[stack] = reference
        }
        for modal in snapshot.modals {
            if restored.modals.contains(modal) {
                report(.modalAlreadyPresented, "the snapshot lists modal \(JSONWriter.quoted(modal)) twice; it is kept once",
                    found: .string(modal))
                continue
            }
            if model.modals[modal] == nil {
                report(.modalNotAllowed, "the snapshot's modal \(JSONWriter.quoted(modal)) is not declared in the model",
                    found: .string(modal))
            } else if let spec = model.modals[modal], !spec.isAllowed(in: snapshot.flow) {
                report(.modalNotAllowed,
                    "the snapshot's modal \(JSONWriter.quoted(modal)) is not allowed in flow \(JSONWriter.quoted(snapshot.flow))",
                    found: .string(modal))
            } else if let limit = model.flows[snapshot.flow]?.maxModals, restored.modals.count >= limit {
                report(.modalNotAllowed,
                    "the snapshot presents more than \(limit) modal(s) in flow \(JSONWriter.quoted(snapshot.flow))",
                    expected: .number(String(limit)), found: .number(String(restored.modals.count + 1)))
            }
            restored.modals.append(modal)
            modalWitness[modal] = reference
        }
        state = restored
    }

    // MARK: Stack operations

    private mutating func applyStackOperation(
        _ payload: NavigationEvent.Payload, reference: EventReference, group: GroupTracker
    ) {
        guard let stack = payload.stack else { return }
        // 1. Declared: otherwise nothing else is checked and the event is not applied.
        guard let spec = model.stacks[stack] else {
            report(
                .stackUnknown,
                "\(payload.name.rawValue) on stack \(JSONWriter.quoted(stack)), which the model does not declare; not applied",
                found: .string(stack))
            return
        }
        // 2. Owned by the current flow (a to_root pop of a stack its command resets is exempt),
        //    or, for a modal's own stack, by its presented modal.
        if let modal = model.owningModal(of: stack) {
            if !state.modals.contains(modal) {
                report(
                    .stackNotOwned,
                    "\(payload.name.rawValue) on stack \(JSONWriter.quoted(stack)) of modal \(JSONWriter.quoted(modal)), "
                        + "which is not presented (presented: \(state.modals.isEmpty ? "none" : state.modals.joined(separator: ", ")))",
                    expected: .string(modal), found: .array(state.modals.map(JSONValue.string)), witness: modalWitness[modal])
            }
        } else if !model.flow(state.flow, owns: stack) {
            var exempt = false
            if case .routePop(_, _, _, .toRoot) = payload, group.resetStacks.contains(stack) { exempt = true }
            if !exempt {
                let owner = model.owningFlow(of: stack)
                report(
                    .stackNotOwned,
                    "\(payload.name.rawValue) on stack \(JSONWriter.quoted(stack)) while flow \(JSONWriter.quoted(state.flow)) is active"
                        + (owner.map { " (the stack belongs to flow \(JSONWriter.quoted($0)))" } ?? ""),
                    expected: .optionalString(owner), found: .string(state.flow), witness: flowWitness)
            }
        }
        // 3. The claimed top before the operation.
        switch payload {
        case .routePush(_, let from, _, _), .routePop(_, let from, _, _), .routeReplace(_, let from, _, _),
            .routePopTo(_, let from, _):
            checkTop(of: stack, claimed: from, field: "from_route")
        default: break
        }
        // 4. The operation's own checks, then apply.
        var routes = state.stacks[stack] ?? []
        switch payload {
        case .routePush(_, _, let route, _):
            checkEntering(route, stack: stack, spec: spec, routes: routes, index: routes.count)
            routes.append(route)
        case .routePop(_, _, _, let amount):
            let depth = routes.count
            switch amount {
            case .toRoot:
                routes.removeAll()
            case .count(let count):
                if count < 1 || count > Int64(depth) {
                    report(
                        .stackOutOfRange,
                        "route_pop asks for \(count) route(s) on stack \(JSONWriter.quoted(stack)), which holds \(depth); "
                            + "clamped to \(min(max(count, 0), Int64(depth)))",
                        expected: .string("1...\(depth)"), found: .number(String(count)), witness: stackWitness[stack])
                }
                routes.removeLast(Int(min(max(count, 0), Int64(depth))))
            }
        case .routeReplace(_, _, let route, _):
            let below = routes.isEmpty ? routes : Array(routes.dropLast())
            checkEntering(route, stack: stack, spec: spec, routes: below, index: below.count)
            if routes.isEmpty { routes.append(route) } else { routes[routes.count - 1] = route }
        case .routePopTo(_, _, let target):
            if let target {
                if let index = routes.lastIndex(of: target) {
                    routes.removeSubrange((index + 1)...)
                } else {
                    report(
                        .stackOutOfRange,
                        "route_pop_to \(JSONWriter.quoted(target)), which is not in stack \(JSONWriter.quoted(stack)) "
                            + "(\(routes.isEmpty ? "empty" : routes.joined(separator: " › "))); no-op",
                        expected: .array(routes.map(JSONValue.string)), found: .string(target), witness: stackWitness[stack])
                }
            } else {
                routes.removeAll()
            }
        case .routeInsert(_, let route, let index, _):
            var at = index
            if index < 0 || index > Int64(routes.count) {
                at = min(max(index, 0), Int64(routes.count))
                report(
                    .stackOutOfRange,
                    "route_insert at index \(index) of stack \(JSONWriter.quoted(stack)), which holds \(routes.count); clamped to \(at)",
                    expected: .string("0...\(routes.count)"), found: .number(String(index)), witness: stackWitness[stack])
            }
            checkEntering(route, stack: stack, spec: spec, routes: routes, index: Int(at))
            routes.insert(route, at: Int(at))
        case .routeRemove(_, let route):
            routes.removeAll { $0 == route }
        default:
            break
        }
        if routes.last != state.top(of: stack) || routes.isEmpty != (state.depth(of: stack) == 0) {
            stackWitness[stack] = reference  // the witness of a stack is the event that last set its top
        }
        state.stacks[stack] = routes
        if routes.isEmpty { emptiedDuringEvent.insert(stack) }
        // 5. A pop's claimed top after the operation.
        switch payload {
        case .routePop(_, _, let to, _):
            checkTop(of: stack, claimed: to, field: "to_route")
        default: break
        }
    }

    /// Checks a claimed top route of a stack; on a mismatch, adopts it (CONTRACT §7, resync).
    private mutating func checkTop(of stack: String, claimed: String?, field: String) {
        let top = state.top(of: stack)
        guard claimed != top else { return }
        let name = current?.event.name.rawValue ?? "event"
        report(
            .stateMismatch,
            "\(name) on \(JSONWriter.quoted(stack)) claims \(field) \(describeTop(claimed)) but the top is \(describeTop(top))"
                + (stackWitness[stack].map { " (set by \($0.name.rawValue) at seq \($0.seq))" } ?? ""),
            expected: .optionalString(top), found: .optionalString(claimed), witness: stackWitness[stack])
        var routes = state.stacks[stack] ?? []
        if let claimed {
            if let index = routes.lastIndex(of: claimed) {
                routes.removeSubrange((index + 1)...)
            } else {
                routes.append(claimed)
            }
        } else {
            routes.removeAll()
        }
        state.stacks[stack] = routes
        if routes.isEmpty { emptiedDuringEvent.insert(stack) }
    }

    /// The checks where a route enters a stack: declared, singleton, position.
    private mutating func checkEntering(_ route: String, stack: String, spec: StackSpec, routes: [String], index: Int) {
        if !spec.accepts(route) {
            report(
                .routeUnknown,
                "route \(JSONWriter.quoted(route)) is not declared for stack \(JSONWriter.quoted(stack))"
                    + (spec.routes.map { " (declared: \($0.joined(separator: ", ")))" } ?? ""),
                expected: spec.routes.map { .array($0.map(JSONValue.string)) }, found: .string(route))
        }
        if spec.singletons.contains(route), routes.contains(route) {
            report(
                .routeSingleton,
                "singleton route \(JSONWriter.quoted(route)) is already in stack \(JSONWriter.quoted(stack)) "
                    + "(\(routes.joined(separator: " › "))); open it once: pop back to it instead",
                expected: .array(routes.map(JSONValue.string)), found: .string(route), witness: stackWitness[stack])
        }
        checkPosition(stack: stack, spec: spec, route: route, index: index)
    }

    private mutating func checkPosition(stack: String, spec: StackSpec, route: String, index: Int, flow: String? = nil) {
        let flow = flow ?? state.flow
        for requirement in spec.positions where !requirement.allows(route, at: index, in: flow) {
            let required =
                requirement.oneOf.isEmpty
                ? "no route there" : "one of \(requirement.oneOf.joined(separator: ", ")) there"
            report(
                .routePosition,
                "route \(JSONWriter.quoted(route)) at index \(index) of stack \(JSONWriter.quoted(stack)); the model requires "
                    + required + (requirement.flows == nil ? "" : " in flow \(JSONWriter.quoted(flow))"),
                expected: .array(requirement.oneOf.map(JSONValue.string)), found: .string(route),
                witness: requirement.flows == nil ? nil : flowWitness)
        }
    }

    /// Empties the own stacks of modals that are dismissed: a modal's navigation goes with it.
    private mutating func closeStacks(of dismissed: [String], reference: EventReference) {
        for modal in dismissed {
            guard let stack = model.modals[modal]?.stack, state.depth(of: stack) > 0 else { continue }
            state.stacks[stack] = []
            stackWitness[stack] = reference
            emptiedDuringEvent.insert(stack)
        }
    }

    // MARK: screen_view

    private mutating func checkScreenView(_ claim: NavigationEvent.ScreenClaim, reference: EventReference) {
        let visible = model.visibleScreen(in: state)
        let claimed = model.canonicalScreen(claim.screen)
        guard visible != claimed else { return }
        let witness: EventReference? =
            switch visible {
            case .modal(let modal): modalWitness[modal]
            case .stack(let stack, _): stackWitness[stack]
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
            if let stack = model.modals[modal]?.stack, state.depth(of: stack) > 0 {
                // The modal's own root is shown: its stack is back at the root.
                state.stacks[stack] = []
                stackWitness[stack] = reference
                emptiedDuringEvent.insert(stack)
            }
        case .stack(let stack, let route):
            guard model.stacks[stack] != nil else { return }
            if let modal = model.owningModal(of: stack) {
                bringToTop(modal, reference: reference)
            } else {
                closeStacks(of: state.modals, reference: reference)
                state.modals.removeAll()
            }
            var routes = state.stacks[stack] ?? []
            if let route {
                if let index = routes.lastIndex(of: route) {
                    routes.removeSubrange((index + 1)...)
                } else {
                    routes.append(route)
                }
            } else {
                routes.removeAll()
            }
            state.stacks[stack] = routes
            stackWitness[stack] = reference
        }
    }

    /// Makes a modal the top one: removes those above it (with their own stacks), or appends it.
    private mutating func bringToTop(_ modal: String, reference: EventReference) {
        if let index = state.modals.lastIndex(of: modal) {
            closeStacks(of: Array(state.modals[(index + 1)...]), reference: reference)
            state.modals.removeSubrange((index + 1)...)
        } else {
            state.modals.append(modal)
        }
        modalWitness[modal] = reference
    }
}
