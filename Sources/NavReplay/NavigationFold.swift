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
    /// The model's stacks by number: the fold works on stack numbers, not names.
    private let stacks: StackTable
    /// The state, in the fold's working form (see `FoldState`).
    private var working: FoldState
    /// `model.flows[working.flow]`, kept with the flow: most events ask what the flow owns.
    private var flowSpec: FlowSpec?
    /// The model's initial state, in working form: a session_start without a snapshot resets to it.
    private let initialState: FoldState

    /// The state after the events applied so far.
    public var state: NavigationState { working.state(stacks) }

    /// Whether findings carry the state before and after their event (for explanations).
    /// An audit that writes only the contract's keys turns it off: a session's findings are held
    /// until it ends, and with their states they would hold a copy of a deep stack each.
    public var keepsStates = true

    /// The last event that changed each part of the state: the witnesses of findings.
    private var stackWitness: [EventReference?]
    /// Witnesses of stacks the model does not declare (only a hand-built, inconsistent model has such).
    private var otherStackWitness: [String: EventReference] = [:]
    private var flowWitness: EventReference?
    private var tabWitness: EventReference?
    private var modalWitness: [String: EventReference] = [:]
    private var lastEvent: EventReference?

    /// Correlation groups that have started and not yet ended, by correlation id, except the
    /// latest one.
    private var openGroups: [String: GroupTracker] = [:]
    /// The group of the latest event, kept out of `openGroups`: a group's events come together,
    /// so this spares hashing its id (36 bytes) twice an event.
    private var latestGroupID: String?
    private var latestGroup = GroupTracker()
    /// The groups in `openGroups` that hold a command with a reset stack not yet seen empty:
    /// usually none, so the per-event watch costs nothing.
    private var groupsWithCommands: Set<String> = []

    public init(model: NavigationModel) {
        self.model = model
        stacks = model.stackTable
        initialState = FoldState(initialOf: model, table: stacks)
        working = initialState
        flowSpec = model.flows[working.flow]
        stackWitness = Array(repeating: nil, count: stacks.count)
    }

    /// Starts from a given state (e.g. a router restored from a snapshot).
    public init(model: NavigationModel, state: NavigationState) {
        self.init(model: model)
        working = FoldState(state, table: stacks)
        flowSpec = model.flows[working.flow]
    }

    /// The visible screen: `model.visibleScreen(in: state)`, without building the state.
    public var visibleScreen: Screen? {
        if let modal = working.modals.last {
            if let stack = model.modals[modal]?.stack, let route = top(of: stack) {
                return .stack(stack, route: route)
            }
            return .modal(modal)
        }
        guard let spec = flowSpec else { return nil }
        switch spec.kind {
        case .stack(let stack):
            return .stack(stack, route: top(of: stack))
        case .tabs(let tabs):
            guard let tab = working.tab, tabs.contains(tab) else { return nil }
            return .stack(tab, route: top(of: tab))
        }
    }

    /// What is open in one correlation group while its events arrive.
    private struct GroupTracker: Sendable {
        var authorizesFlowSwitch = false
        var resetStacks: Set<String> = []
        var pendingCommands: [PendingCommand] = []
        /// The reset stacks of `pendingCommands` not yet seen empty, by stack: each event looks
        /// at these stacks, not at every command (a group of thousands of commands looked at each
        /// of them at every event: quadratic).
        var resetsAwaitingEmpty: [String: [ResetSlot]] = [:]
        var pendingLinks: [PendingLink] = []
        /// The links of `pendingLinks` (their indices, ascending) with a step still to land, by
        /// the kind of event that lands it: an event looks at the links it can advance, not at
        /// every link (a group of thousands of links looked at each of them at every push).
        var linksAwaiting: [StepKey: [Int]] = [:]
        /// Every command the group's `command_applied` events name, declared or not.
        var appliedCommands: [String] = []
        /// The group's last flow switch, the state before the group's first one and the stacks
        /// at the last one: flow-bound positions are checked at the group's end.
        var flowSwitch: FlowSwitch?
        var contentIdentities = ContentIdentities()

        /// Marks the reset stacks that are empty now, or were emptied at some moment of the event
        /// just applied, as seen empty, and stops watching them.
        mutating func noteEmptyResets(in state: FoldState, _ table: StackTable, emptied: [String]) {
            var seenEmpty: [String] = []
            for stack in resetsAwaitingEmpty.keys
            where (state.routes(of: stack, in: table)?.isEmpty ?? true) || emptied.contains(stack) {
                seenEmpty.append(stack)
            }
            for stack in seenEmpty {
                for slot in resetsAwaitingEmpty.removeValue(forKey: stack) ?? [] {
                    pendingCommands[slot.command].resetSeenEmpty[slot.position] = true
                }
            }
        }
    }

    /// One reset stack of a pending command: `pendingCommands[command].spec.reset[position]`.
    private struct ResetSlot: Sendable {
        var command: Int
        var position: Int
    }

    /// What an event must be to land a deep link step: a tab switch to its tab, a push of its route
    /// on its stack (or a pop back to it: a singleton is opened once), a present of its modal.
    private enum StepKey: Hashable, Sendable {
        case tab(String)
        case route(stack: String, route: String)
        case modal(String)

        init(_ step: DeepLinkStep) {
            switch step {
            case .selectTab(let tab): self = .tab(tab)
            case .push(let stack, let route): self = .route(stack: stack, route: route)
            case .present(let modal, _): self = .modal(modal)
            }
        }

        /// The step an event can land, if any: other events pass the group's links by.
        init?(_ payload: NavigationEvent.Payload) {
            switch payload {
            case .tabSwitch(_, let to): self = .tab(to)
            case .routePush(let stack, _, let to, _): self = .route(stack: stack, route: to)
            case .routePopTo(let stack, _, let to?): self = .route(stack: stack, route: to)
            case .modalPresent(let modal, _): self = .modal(modal)
            default: return nil
            }
        }
    }

    /// A flow switch whose group must leave the new flow's positions satisfied.
    private struct FlowSwitch: Sendable {
        var event: EventReference
        var sessionID: String
        var stateBefore: FoldState
        var stacksAtSwitch: FoldState
    }

    /// A deep link whose model command must be applied, and steps land in order, in its group:
    /// a resolved link that matches a pattern, or a fallback (`link` is then the model's
    /// `fallback_command`, with no pattern and no steps).
    private struct PendingLink: Sendable {
        var url: String
        var link: DeepLink
        var isFallback = false
        var event: EventReference
        var sessionID: String
        var stateAtLink: FoldState
        /// What lands each of `link.steps`.
        var stepKeys: [StepKey] = []
        /// The next step to land.
        var cursor = 0
        /// Steps that landed, in the order they did.
        var landed: [Int] = []
        /// Steps passed over without holding: they may still land, late.
        var skipped: Set<Int> = []
        /// What went wrong, for the finding.
        var problems: [String] = []

        /// Whether an event of `key` can still land one of its steps (late, or at or after the next).
        func awaits(_ key: StepKey) -> Bool {
            skipped.contains { stepKeys[$0] == key } || stepKeys[cursor...].contains(key)
        }
    }

    private struct PendingCommand: Sendable {
        var name: String
        var spec: CommandSpec
        var event: EventReference
        var sessionID: String
        var stateAtCommand: FoldState
        /// Whether each of `spec.reset` has been seen empty.
        var resetSeenEmpty: [Bool]
    }

    /// The findings of the event being applied, before their states are filled in.
    private var pending: [Finding] = []
    /// The state before the event being applied, taken at its first finding: most events
    /// have none, and holding a copy would make every mutation copy the state.
    private var stateBefore: FoldState?
    /// Stacks that became empty at some moment of the event being applied (usually none).
    private var emptiedDuringEvent: [String] = []
    /// The event being applied, as its findings name it, while `isApplying`.
    private var currentEvent = EventReference(seq: 0, eventID: "", name: .sessionStart, location: nil)
    private var currentSessionID = ""
    private var isApplying = false

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
        #if DEBUG
            let debugBefore = working
        #endif
        let reference = EventReference(event, at: location)
        currentEvent = reference
        currentSessionID = event.sessionID
        isApplying = true
        selectGroup(event.correlationID)

        let undeclaredStack = event.payload.stack.map { stacks.number(of: $0) == nil } ?? false
        if let contentIdentity, !undeclaredStack {
            if let earlier = latestGroup.contentIdentities[contentIdentity] {
                report(
                    .analyticsDuplicate,
                    "\(event.name.rawValue) repeats seq \(earlier.seq) of the same correlation group "
                        + "(\(JSONWriter.quoted(event.correlationID))): one action, one event",
                    witness: earlier)
            } else {
                latestGroup.contentIdentities.insert(contentIdentity, reference)
            }
        }

        if !latestGroup.linksAwaiting.isEmpty, let key = StepKey(event.payload),
            var waiting = latestGroup.linksAwaiting.removeValue(forKey: key)
        {
            var links = latestGroup.pendingLinks
            latestGroup.pendingLinks = []  // so that `links` is the only reference, changed in place
            waiting.removeAll { index in
                advance(&links[index], on: key)
                return !links[index].awaits(key)
            }
            latestGroup.pendingLinks = links
            if !waiting.isEmpty { latestGroup.linksAwaiting[key] = waiting }
        }

        switch event.payload {
        case .sessionStart(let snapshot):
            start(from: snapshot, reference: reference)
        case .routePush, .routePop, .routeReplace, .routePopTo, .routeInsert, .routeRemove:
            applyStackOperation(event.payload, reference: reference)
        case .flowSwitch(let from, let to):
            if !latestGroup.authorizesFlowSwitch {
                report(
                    .flowWithoutCommand,
                    "flow_switch \(JSONWriter.quoted(from)) → \(JSONWriter.quoted(to)) has no command_applied or "
                        + "deep_link before it in its correlation group (\(JSONWriter.quoted(event.correlationID)))")
            }
            checkFlow(claimed: from, field: "from_flow")
            if model.flows[to] == nil {
                report(
                    .flowUnknown, "flow_switch to \(JSONWriter.quoted(to)), a flow the model does not declare",
                    found: .string(to))
            }
            latestGroup.flowSwitch = FlowSwitch(
                event: reference, sessionID: event.sessionID,
                stateBefore: latestGroup.flowSwitch?.stateBefore ?? capturedStateBefore(), stacksAtSwitch: working)
            setFlow(to)
            flowWitness = reference
        case .tabSwitch(let from, let to):
            if from != working.tab {
                report(
                    .stateMismatch,
                    "tab_switch claims from_tab \(describe(from)) but the selected tab is \(describe(working.tab))",
                    expected: .optionalString(working.tab), found: .optionalString(from), witness: tabWitness)
                working.tab = from
            }
            if let tabs = flowSpec?.tabs {
                if !tabs.contains(to) {
                    let listed = ListedNames(tabs)
                    report(
                        .tabInvalid,
                        "flow \(JSONWriter.quoted(working.flow)) has no tab \(JSONWriter.quoted(to)) "
                            + "(its tabs: \(listed.joined(separator: ", ")))",
                        expected: listed.json, found: .string(to))
                }
            } else {
                report(
                    .tabInvalid, "tab_switch to \(JSONWriter.quoted(to)) in flow \(JSONWriter.quoted(working.flow)), which has no tabs",
                    found: .string(to), witness: flowWitness)
            }
            working.tab = to
            tabWitness = reference
        case .commandApplied(let command, let fromFlow, let toFlow):
            latestGroup.authorizesFlowSwitch = true
            latestGroup.appliedCommands.append(command)
            let spec = model.commands[command]
            if spec == nil {
                report(.commandUnknown, "command \(JSONWriter.quoted(command)) is not declared in the model", found: .string(command))
            }
            checkFlow(claimed: fromFlow, field: "from_flow")
            if model.flows[toFlow] == nil {
                report(
                    .flowUnknown, "command_applied names to_flow \(JSONWriter.quoted(toFlow)), a flow the model does not declare",
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
                latestGroup.resetStacks.formUnion(spec.reset)
                for (position, stack) in spec.reset.enumerated() {
                    latestGroup.resetsAwaitingEmpty[stack, default: []].append(
                        ResetSlot(command: latestGroup.pendingCommands.count, position: position))
                }
                latestGroup.pendingCommands.append(
                    PendingCommand(
                        name: command, spec: spec, event: reference, sessionID: event.sessionID,
                        stateAtCommand: working, resetSeenEmpty: Array(repeating: false, count: spec.reset.count)))
            }
        case .modalPresent(let modal, let style):
            if working.modals.contains(modal) {
                report(
                    .modalAlreadyPresented, "modal \(JSONWriter.quoted(modal)) is already presented; it is not added twice",
                    witness: modalWitness[modal])
            } else {
                if model.modals[modal] == nil {
                    report(.modalNotAllowed, "modal \(JSONWriter.quoted(modal)) is not declared in the model", found: .string(modal))
                } else if let spec = model.modals[modal], !spec.isAllowed(in: working.flow) {
                    let listed = ListedNames(spec.flows ?? [])
                    report(
                        .modalNotAllowed,
                        "modal \(JSONWriter.quoted(modal)) is not allowed in flow \(JSONWriter.quoted(working.flow))"
                            + " (allowed in: \(listed.joined(separator: ", ")))",
                        expected: listed.json, found: .string(working.flow),
                        witness: flowWitness)
                } else if let spec = model.modals[modal], !spec.allowsStyle(style.rawValue) {
                    let listed = ListedNames(spec.styles ?? [])
                    report(
                        .modalNotAllowed,
                        "modal \(JSONWriter.quoted(modal)) is presented as \(style.rawValue); the model allows "
                            + listed.joined(separator: ", "),
                        expected: listed.json, found: .string(style.rawValue))
                } else if let limit = flowSpec?.maxModals, working.modals.count >= limit {
                    report(
                        .modalNotAllowed,
                        "flow \(JSONWriter.quoted(working.flow)) allows at most \(limit) modal(s) at once; "
                            + "\(working.modals.count) already presented (\(ListedNames(working.modals).joined(separator: ", ")))",
                        expected: .number(String(limit)), found: .number(String(working.modals.count + 1)),
                        witness: working.modals.last.flatMap { modalWitness[$0] })
                }
                working.modals.append(modal)
                modalWitness[modal] = reference
                // A modal's own stack starts at its root each time it is presented.
                if let stack = model.modals[modal]?.stack, depth(of: stack) > 0 {
                    empty(stack, reference: reference)
                }
            }
        case .modalDismiss(let modal):
            if let index = working.modals.lastIndex(of: modal) {
                for removed in working.modals[index...] { modalWitness[removed] = reference }
                closeStacks(of: Array(working.modals[index...]), reference: reference)
                working.modals.removeSubrange(index...)
            } else {
                let listed = ListedNames(working.modals)
                report(
                    .modalNotPresented,
                    "modal_dismiss of \(JSONWriter.quoted(modal)), which is not presented (presented: "
                        + "\(working.modals.isEmpty ? "none" : listed.joined(separator: ", ")))",
                    expected: listed.json, found: .string(modal),
                    witness: modalWitness[modal])
            }
        case .screenView(let claim, _):
            checkScreenView(claim, reference: reference)
        case .deepLink(let url, let outcome):
            latestGroup.authorizesFlowSwitch = true
            // Seed 001 §7.11: a link maps to a command plus its route payload (the steps); an
            // unsupported one falls back to the safe root (`fallback_command`). A resolved URL no
            // pattern matches is not checked (the model's table may be incomplete).
            if outcome == .resolved, let segments = DeepLinkURL(url)?.segments,
                let (link, _) = model.deepLinks.match(segments), !link.steps.isEmpty || link.command != nil
            {
                let stepKeys = link.steps.map(StepKey.init)
                for key in Set(stepKeys) {
                    latestGroup.linksAwaiting[key, default: []].append(latestGroup.pendingLinks.count)
                }
                latestGroup.pendingLinks.append(
                    PendingLink(
                        url: url, link: link, event: reference, sessionID: event.sessionID, stateAtLink: working,
                        stepKeys: stepKeys))
            } else if outcome == .fallback, let fallback = model.deepLinks.fallbackCommand {
                latestGroup.pendingLinks.append(
                    PendingLink(
                        url: url, link: DeepLink(pattern: "", command: fallback, steps: []), isFallback: true, event: reference,
                        sessionID: event.sessionID, stateAtLink: working))
            }
        }

        lastEvent = reference
        noteEmptyStacksForPendingCommands()
        emptiedDuringEvent.removeAll()

        var findings = pending
        if keepsStates, !findings.isEmpty, let before = stateBefore {
            #if DEBUG
                assert(before == debugBefore, "a state change came before the event's first finding")
            #endif
            let stateBefore = before.state(stacks)
            let stateAfter = state
            for index in findings.indices {
                findings[index].stateBefore = stateBefore
                findings[index].stateAfter = stateAfter
            }
        }
        pending = []
        stateBefore = nil
        isApplying = false
        return findings
    }

    /// Makes `latestGroup` the group of the event being applied: taken out of `openGroups`, or new.
    private mutating func selectGroup(_ correlationID: String) {
        if latestGroupID == correlationID { return }
        parkLatestGroup()
        if !openGroups.isEmpty, let group = openGroups.removeValue(forKey: correlationID) {
            if !group.resetsAwaitingEmpty.isEmpty { groupsWithCommands.remove(correlationID) }
            latestGroup = group
        }
        latestGroupID = correlationID
    }

    private mutating func takeLatestGroup() -> GroupTracker {
        var group = GroupTracker()
        swap(&group, &latestGroup)
        return group
    }

    /// Moves the latest group into `openGroups`.
    private mutating func parkLatestGroup() {
        guard let id = latestGroupID else { return }
        latestGroupID = nil
        let group = takeLatestGroup()
        if !group.resetsAwaitingEmpty.isEmpty { groupsWithCommands.insert(id) }
        openGroups[id] = group
    }

    /// Ends a correlation group: checks each of its commands' postconditions (CONTRACT §7).
    ///
    /// Offline, the auditor calls it after the group's highest `seq`; a live router calls it
    /// when it has emitted everything for one action.
    public mutating func endGroup(_ correlationID: String) -> [Finding] {
        let group: GroupTracker
        if latestGroupID == correlationID {
            latestGroupID = nil
            if latestGroup.pendingCommands.isEmpty && latestGroup.pendingLinks.isEmpty && latestGroup.flowSwitch == nil {
                latestGroup = GroupTracker()  // nothing to check: most groups
                return []
            }
            group = takeLatestGroup()
        } else {
            guard !openGroups.isEmpty, let parked = openGroups.removeValue(forKey: correlationID) else { return [] }
            groupsWithCommands.remove(correlationID)
            group = parked
        }
        var findings: [Finding] = []
        for command in group.pendingCommands {
            var broken: [String] = []
            var expected = JSONObject()
            var found = JSONObject()
            if working.flow != command.spec.flow {
                broken.append("flow is \(JSONWriter.quoted(working.flow)), not \(JSONWriter.quoted(command.spec.flow))")
                expected.append("flow", .string(command.spec.flow))
                found.append("flow", .string(working.flow))
            }
            if let tab = command.spec.tab, working.tab != tab {
                broken.append("tab is \(describe(working.tab)), not \(JSONWriter.quoted(tab))")
                expected.append("tab", .string(tab))
                found.append("tab", .optionalString(working.tab))
            }
            if command.spec.dismissModals, !working.modals.isEmpty {
                let listed = ListedNames(working.modals)
                broken.append("modals are still presented (\(listed.joined(separator: ", ")))")
                expected.append("modals", .array([]))
                found.append("modals", listed.json)
            }
            let notReset = zip(command.spec.reset, command.resetSeenEmpty).filter { !$0.1 }.map(\.0)
            if !notReset.isEmpty {
                broken.append("stack(s) \(notReset.joined(separator: ", ")) never emptied")
                expected.append("reset", .array(notReset.map(JSONValue.string)))
                found.append("reset", .array(notReset.map { ListedNames(routes(of: $0) ?? []).json }))
            }
            guard !broken.isEmpty else { continue }
            var finding = Finding(
                rule: .commandPostcondition, sessionID: command.sessionID, seq: command.event.seq,
                eventID: command.event.eventID, location: command.event.location,
                message: "command \(JSONWriter.quoted(command.name)) did not complete by the end of its correlation group "
                    + "(\(JSONWriter.quoted(correlationID))): " + broken.joined(separator: "; "),
                expected: .object(expected), found: .object(found), witness: lastEvent,
                eventName: .commandApplied)
            if keepsStates {
                finding.stateBefore = command.stateAtCommand.state(stacks)
                finding.stateAfter = state
            }
            findings.append(finding)
        }
        if let flowSwitch = group.flowSwitch {
            findings += checkFlowBoundPositions(after: flowSwitch, correlationID: correlationID)
        }
        // The group's commands, listed once for all its links (a group may hold thousands of each).
        let appliedCommandSet = group.pendingLinks.isEmpty ? [] : Set(group.appliedCommands)
        let appliedCommands = ListedNames(group.pendingLinks.isEmpty ? [] : group.appliedCommands)
        let applied = group.appliedCommands.isEmpty ? "none" : appliedCommands.shown.map(JSONWriter.quoted).joined(separator: ", ")
        for var link in group.pendingLinks {
            // Steps that never landed as events must hold at the end (already there).
            for index in link.cursor..<link.link.steps.count {
                if isSatisfied(link.link.steps[index]) {
                    link.landed.append(index)
                } else {
                    link.problems.append("step \(index + 1) (\(describe(link.link.steps[index]))) never landed")
                }
            }
            let missingCommand = link.link.command.flatMap { command in appliedCommandSet.contains(command) ? nil : command }
            if let command = missingCommand {
                link.problems.insert("its command \(JSONWriter.quoted(command)) was not applied (applied: \(applied))", at: 0)
            }
            guard !link.problems.isEmpty else { continue }
            var expected = JSONObject()
            var found = JSONObject()
            if let command = missingCommand {
                expected.append("command", .string(command))
                found.append("commands", appliedCommands.json)
            }
            if !link.link.steps.isEmpty {
                expected.append("steps", .array(link.link.steps.map { JSONValue.string(describe($0)) }))
                found.append("steps", .array(link.landed.map { JSONValue.string(describe(link.link.steps[$0])) }))
            }
            let which =
                link.isFallback ? "(outcome fallback)" : "(pattern \(JSONWriter.quoted(link.link.pattern.joined(separator: "/"))))"
            let what = missingCommand == nil ? "did not land its steps in the declared order" : "did not do what the model declares"
            var finding = Finding(
                rule: .commandPostcondition, sessionID: link.sessionID, seq: link.event.seq,
                eventID: link.event.eventID, location: link.event.location,
                message: "deep link \(JSONWriter.quoted(link.url)) \(which) \(what) in its correlation group "
                    + "(\(JSONWriter.quoted(correlationID))): " + link.problems.joined(separator: "; "),
                expected: .object(expected), found: .object(found), witness: lastEvent, eventName: .deepLink)
            if keepsStates {
                finding.stateBefore = link.stateAtLink.state(stacks)
                finding.stateAfter = state
            }
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
        for stack in flowSpec?.ownedStacks ?? [] {
            guard let number = stacks.number(of: stack) else { continue }
            let spec = stacks.specs[number]
            let routes = working.routes[number]
            for requirement in spec.positions where requirement.flows != nil && requirement.index < routes.count {
                let route = routes[requirement.index]
                guard !requirement.allows(route, at: requirement.index, in: working.flow) else { continue }
                let atSwitch = flowSwitch.stacksAtSwitch.routes[number]
                guard requirement.index < atSwitch.count, atSwitch[requirement.index] == route else { continue }
                let oneOf = ListedNames(requirement.oneOf)
                let required = requirement.oneOf.isEmpty ? "no route there" : "one of \(oneOf.joined(separator: ", ")) there"
                var finding = Finding(
                    rule: .routePosition, sessionID: flowSwitch.sessionID, seq: flowSwitch.event.seq,
                    eventID: flowSwitch.event.eventID, location: flowSwitch.event.location,
                    message: "after the switch to flow \(JSONWriter.quoted(working.flow)) (correlation group "
                        + "\(JSONWriter.quoted(correlationID))), stack \(JSONWriter.quoted(stack)) still holds "
                        + "\(JSONWriter.quoted(route)) at index \(requirement.index); the model requires \(required) in that flow",
                    expected: oneOf.json, found: .string(route),
                    witness: stackWitness[number], eventName: .flowSwitch)
                if keepsStates {
                    finding.stateBefore = flowSwitch.stateBefore.state(stacks)
                    finding.stateAfter = state
                }
                findings.append(finding)
            }
        }
        return findings
    }

    // MARK: Deep link steps

    /// Whether a step's effect already holds, so that it needs no event.
    private func isSatisfied(_ step: DeepLinkStep) -> Bool {
        switch step {
        case .selectTab(let tab): working.tab == tab
        case .push(let stack, let route): top(of: stack) == route
        case .present(let modal, _): working.modals.contains(modal)
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
    private func advance(_ link: inout PendingLink, on key: StepKey) {
        let steps = link.link.steps
        if let late = link.skipped.sorted().first(where: { link.stepKeys[$0] == key }) {
            link.skipped.remove(late)
            link.landed.append(late)
            return
        }
        guard link.cursor < steps.count, let hit = (link.cursor..<steps.count).first(where: { link.stepKeys[$0] == key })
        else { return }
        for skipped in link.cursor..<hit {
            if isSatisfied(steps[skipped]) {
                link.landed.append(skipped)
            } else {
                link.skipped.insert(skipped)
                link.problems.append(
                    "step \(hit + 1) (\(describe(steps[hit]))) landed before step \(skipped + 1) (\(describe(steps[skipped])))")
            }
        }
        link.landed.append(hit)
        link.cursor = hit + 1
    }

    /// Ends every open group (at the end of a session), in correlation id order.
    public mutating func endAllGroups() -> [Finding] {
        parkLatestGroup()
        return openGroups.keys.sorted().flatMap { endGroup($0) }
    }

    /// Marks, for every pending command, the reset stacks that are empty now or were emptied at
    /// some moment of the event just applied (an adoption may empty a stack, then a push fills it).
    private mutating func noteEmptyStacksForPendingCommands() {
        if latestGroupID != nil, !latestGroup.resetsAwaitingEmpty.isEmpty {
            latestGroup.noteEmptyResets(in: working, stacks, emptied: emptiedDuringEvent)
        }
        guard !groupsWithCommands.isEmpty else { return }
        var settled: [String] = []
        for key in groupsWithCommands {
            openGroups[key]?.noteEmptyResets(in: working, stacks, emptied: emptiedDuringEvent)
            if openGroups[key]?.resetsAwaitingEmpty.isEmpty ?? true { settled.append(key) }
        }
        for key in settled { groupsWithCommands.remove(key) }
    }

    // MARK: Reporting

    private mutating func report(
        _ rule: Rule, _ message: String, expected: JSONValue? = nil, found: JSONValue? = nil,
        witness: EventReference? = nil
    ) {
        guard isApplying else { return }
        captureStateBefore()
        pending.append(
            Finding(
                rule: rule, sessionID: currentSessionID, seq: currentEvent.seq, eventID: currentEvent.eventID,
                location: currentEvent.location, message: message, expected: expected, found: found, witness: witness,
                eventName: currentEvent.name))
    }

    /// Keeps the state before the event being applied. Every change of the state in `apply`
    /// comes after the event's first finding, or takes this itself first: the debug build checks.
    /// Without `keepsStates` nothing is kept: the copy would make the event's own change copy
    /// the stack it changes (a finding at every push onto a deep stack was quadratic).
    private mutating func captureStateBefore() {
        if keepsStates, stateBefore == nil { stateBefore = working }
    }

    private mutating func capturedStateBefore() -> FoldState {
        captureStateBefore()
        return stateBefore ?? working
    }

    private mutating func setFlow(_ flow: String) {
        working.flow = flow
        flowSpec = model.flows[flow]
    }

    // MARK: Stacks by name

    /// A stack's routes; `nil` when the state does not list it.
    private func routes(of stack: String) -> [String]? {
        working.routes(of: stack, in: stacks)
    }

    private func top(of stack: String) -> String? {
        routes(of: stack)?.last
    }

    private func depth(of stack: String) -> Int {
        routes(of: stack)?.count ?? 0
    }

    private func witness(of stack: String) -> EventReference? {
        if let number = stacks.number(of: stack) { return stackWitness[number] }
        return otherStackWitness[stack]
    }

    private mutating func setWitness(_ reference: EventReference, of stack: String) {
        if let number = stacks.number(of: stack) {
            stackWitness[number] = reference
        } else {
            otherStackWitness[stack] = reference
        }
    }

    /// Empties a stack (a modal's own, when its modal comes or goes).
    private mutating func empty(_ stack: String, reference: EventReference) {
        working.setRoutes([], of: stack, in: stacks)
        setWitness(reference, of: stack)
        emptiedDuringEvent.append(stack)
    }

    private func describe(_ value: String?) -> String {
        value.map(JSONWriter.quoted) ?? "null"
    }

    private func describeTop(_ route: String?) -> String {
        route.map(JSONWriter.quoted) ?? "the root"
    }

    /// Checks a claimed current flow; on a mismatch, adopts it.
    private mutating func checkFlow(claimed: String, field: String) {
        guard claimed != working.flow else { return }
        report(
            .stateMismatch,
            "\((isApplying ? currentEvent.name.rawValue : "event")) claims \(field) \(JSONWriter.quoted(claimed)) "
                + "but the flow is \(JSONWriter.quoted(working.flow))",
            expected: .string(working.flow), found: .string(claimed), witness: flowWitness)
        setFlow(claimed)
    }

    // MARK: session_start

    private mutating func start(from snapshot: NavigationState?, reference: EventReference) {
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
                if spec.singletons.contains(route), seen.contains(route) {
                    report(
                        .routeSingleton,
                        "the snapshot's stack \(JSONWriter.quoted(stack)) holds singleton \(JSONWriter.quoted(route)) twice",
                        found: .string(route))
                }
                checkPosition(stack: stack, spec: spec, route: route, index: index, flow: snapshot.flow)
                seen.insert(route)
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
        working = restored
        flowSpec = model.flows[working.flow]
    }

    // MARK: Stack operations

    private mutating func applyStackOperation(
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
        //    or, for a modal's own stack, by its presented modal.
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
        // 3. The claimed top before the operation.
        switch payload {
        case .routePush(_, let from, _, _), .routePop(_, let from, _, _), .routeReplace(_, let from, _, _),
            .routePopTo(_, let from, _):
            checkTop(of: number, claimed: from, field: "from_route")
        default: break
        }
        // 4. The operation's own checks, then apply, in place. Each finding comes before the
        //    change (see `captureStateBefore()`).
        let topBefore = working.routes[number].last
        let wasEmpty = working.routes[number].isEmpty
        // A pop's claimed top is checked after it, against the stack's witness before it.
        let witnessBefore: EventReference? = if case .routePop = payload { stackWitness[number] } else { nil }
        switch payload {
        case .routePush(_, _, let route, _):
            checkEntering(route, number: number, routes: working.routes[number][...], index: working.routes[number].count)
            working.routes[number].append(route)
        case .routePop(_, _, let to, let amount):
            let depth = working.routes[number].count
            let removed: Int
            switch amount {
            case .toRoot:
                removed = depth
            case .count(let count):
                if count < 1 || count > Int64(depth) {
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
        case .routeReplace(_, _, let route, _):
            // No copy of the stack is kept across the change: it made every replace copy it.
            let count = working.routes[number].count
            checkEntering(route, number: number, routes: working.routes[number].dropLast(), index: max(count - 1, 0))
            if count == 0 {
                working.routes[number].append(route)
            } else {
                working.routes[number][count - 1] = route
            }
        case .routePopTo(_, _, let target):
            if let target {
                if let index = working.routes[number].lastIndex(of: target) {
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
        case .routeInsert(_, let route, let index, _):
            let count = working.routes[number].count
            var at = index
            if index < 0 || index > Int64(count) {
                at = min(max(index, 0), Int64(count))
                report(
                    .stackOutOfRange,
                    "route_insert at index \(index) of stack \(JSONWriter.quoted(stack)), which holds \(count); clamped to \(at)",
                    expected: .string("0...\(count)"), found: .number(String(index)), witness: stackWitness[number])
            }
            checkEntering(route, number: number, routes: working.routes[number][...], index: Int(at))
            working.routes[number].insert(route, at: Int(at))
        case .routeRemove(_, let route):
            working.routes[number].removeAll { $0 == route }
        default:
            break
        }
        let isEmpty = working.routes[number].isEmpty
        if working.routes[number].last != topBefore || isEmpty != wasEmpty {
            stackWitness[number] = reference  // the witness of a stack is the event that last set its top
        }
        working.listed[number] = true
        if isEmpty { emptiedDuringEvent.append(stack) }
        // 5. A pop's claimed top after the operation.
        switch payload {
        case .routePop(_, _, let to, _):
            // Witnessed by the event that left the stack as this pop found it, not by the pop.
            checkTop(of: number, claimed: to, field: "to_route", after: .pop(witness: witnessBefore))
        default: break
        }
    }

    /// Whether the current flow owns a stack: `model.flow(working.flow, owns:)`.
    private func currentFlowOwns(_ stack: String) -> Bool {
        guard let flowSpec else { return false }
        switch flowSpec.kind {
        case .stack(let own): return own == stack
        case .tabs(let tabs): return tabs.contains(stack)
        }
    }

    /// Where a claimed top is checked: as the stack is, or after a pop, whose witness is the
    /// event that left the stack as the pop found it.
    private enum TopCheck {
        case now
        case pop(witness: EventReference?)
    }

    /// Checks a claimed top route of a stack; on a mismatch, adopts it (CONTRACT §7, resync).
    private mutating func checkTop(of number: Int, claimed: String?, field: String, after check: TopCheck = .now) {
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
        if working.routes[number].isEmpty { emptiedDuringEvent.append(stack) }
    }

    /// The checks where a route enters a stack: declared, singleton, position.
    private mutating func checkEntering(_ route: String, number: Int, routes: ArraySlice<String>, index: Int) {
        let stack = stacks.names[number]
        let spec = stacks.specs[number]
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
        if !spec.singletons.isEmpty, spec.singletons.contains(route), routes.contains(route) {
            let listed = ListedNames(Array(routes))
            report(
                .routeSingleton,
                "singleton route \(JSONWriter.quoted(route)) is already in stack \(JSONWriter.quoted(stack)) "
                    + "(\(listed.joined(separator: " › "))); open it once: pop back to it instead",
                expected: listed.json, found: .string(route), witness: stackWitness[number])
        }
        checkPosition(stack: stack, spec: spec, route: route, index: index)
    }

    private mutating func checkPosition(stack: String, spec: StackSpec, route: String, index: Int, flow: String? = nil) {
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
    private mutating func closeStacks(of dismissed: [String], reference: EventReference) {
        for modal in dismissed {
            guard let stack = model.modals[modal]?.stack, depth(of: stack) > 0 else { continue }
            empty(stack, reference: reference)
        }
    }

    // MARK: screen_view

    private mutating func checkScreenView(_ claim: NavigationEvent.ScreenClaim, reference: EventReference) {
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
            stackWitness[number] = reference
        }
    }

    /// Whether a screen_view's claim names the visible screen, that is whether
    /// `visibleScreen == canonicalScreen(claim.screen)`, decided without building either
    /// screen: a third of the events are screen views, and they almost always agree.
    private func claimIsVisible(_ claim: NavigationEvent.ScreenClaim) -> Bool {
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
    private func topModalShowsItself(_ modal: String) -> Bool {
        guard working.modals.last == modal else { return false }
        if let stack = model.modals[modal]?.stack, top(of: stack) != nil { return false }
        return true
    }

    /// `model.canonicalScreen(_:)`, with the stack's modal from the table.
    private func canonicalScreen(_ screen: Screen) -> Screen {
        guard case .stack(let stack, nil) = screen else { return screen }
        let modal = stacks.number(of: stack).map { stacks.owningModals[$0] } ?? model.owningModal(of: stack)
        return modal.map(Screen.modal) ?? screen
    }

    /// Makes a modal the top one: removes those above it (with their own stacks), or appends it.
    private mutating func bringToTop(_ modal: String, reference: EventReference) {
        if let index = working.modals.lastIndex(of: modal) {
            closeStacks(of: Array(working.modals[(index + 1)...]), reference: reference)
            working.modals.removeSubrange((index + 1)...)
        } else {
            working.modals.append(modal)
        }
        modalWitness[modal] = reference
    }
}
