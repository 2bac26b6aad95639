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
    let stacks: StackTable
    /// The state, in the fold's working form (see `FoldState`).
    var working: FoldState
    /// `model.flows[working.flow]`, kept with the flow: most events ask what the flow owns.
    var flowSpec: FlowSpec?
    /// The model's initial state, in working form: a session_start without a snapshot resets to it.
    let initialState: FoldState
    /// Whether the model states presentation contexts or modals' `from` or `routes` (model
    /// language 1.1): without them, none of their checks runs.
    let usesPresentationKeys: Bool
    /// Whether some modal is bound to routes (`modals.<name>.routes`).
    let hasRouteBoundModals: Bool

    /// The state after the events applied so far.
    public var state: NavigationState { working.state(stacks) }

    /// Whether findings carry the state before and after their event (for explanations).
    /// An audit that writes only the contract's keys turns it off: a session's findings are held
    /// until it ends, and with their states they would hold a copy of a deep stack each.
    public var keepsStates = true

    /// The last event that changed each part of the state: the witnesses of findings.
    var stackWitness: [EventReference?]
    /// Witnesses of stacks the model does not declare (only a hand-built, inconsistent model has such).
    var otherStackWitness: [String: EventReference] = [:]
    var flowWitness: EventReference?
    var tabWitness: EventReference?
    var modalWitness: [String: EventReference] = [:]
    var lastEvent: EventReference?

    /// Correlation groups that have started and not yet ended, by correlation id, except the
    /// latest one.
    var openGroups: [String: GroupTracker] = [:]
    /// The group of the latest event, kept out of `openGroups`: a group's events come together,
    /// so this spares hashing its id (36 bytes) twice an event.
    var latestGroupID: String?
    var latestGroup = GroupTracker()
    /// The groups in `openGroups` that hold a command with a reset stack not yet seen empty:
    /// usually none, so the per-event watch costs nothing.
    var groupsWithCommands: Set<String> = []

    public init(model: NavigationModel) {
        self.model = model
        stacks = model.stackTable
        initialState = FoldState(initialOf: model, table: stacks)
        working = initialState
        flowSpec = model.flows[working.flow]
        stackWitness = Array(repeating: nil, count: stacks.count)
        usesPresentationKeys = model.usesPresentationKeys
        hasRouteBoundModals = model.modals.values.contains { $0.routes != nil }
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
    struct GroupTracker: Sendable {
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
    struct ResetSlot: Sendable {
        var command: Int
        var position: Int
    }

    /// What an event must be to land a deep link step: a tab switch to its tab, a push of its route
    /// on its stack (or a pop back to it: a singleton is opened once), a present of its modal.
    enum StepKey: Hashable, Sendable {
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
    struct FlowSwitch: Sendable {
        var event: EventReference
        var sessionID: String
        /// The state before the group's first flow switch, with `keepsStates`.
        var stateBefore: CondensedState?
        /// Each stack's routes at the last switch, up to its last position bound to flows (the
        /// routes above are never compared): a whole copy of a deep stack per open group grew
        /// with depth x groups.
        var stacksAtSwitch: [[String]]
    }

    /// A deep link whose model command must be applied, and steps land in order, in its group:
    /// a resolved link that matches a pattern, or a fallback (`link` is then the model's
    /// `fallback_command`, with no pattern and no steps).
    struct PendingLink: Sendable {
        var url: String
        var link: DeepLink
        var isFallback = false
        var event: EventReference
        var sessionID: String
        /// With `keepsStates`: the state at the link, for its finding's explanation.
        var stateAtLink: CondensedState?
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

    struct PendingCommand: Sendable {
        var name: String
        var spec: CommandSpec
        var event: EventReference
        var sessionID: String
        /// With `keepsStates`: the state at the command, for its finding's explanation.
        var stateAtCommand: CondensedState?
        /// Whether each of `spec.reset` has been seen empty.
        var resetSeenEmpty: [Bool]
    }

    /// The findings of the event being applied, before their states are filled in.
    var pending: [Finding] = []
    /// The state before the event being applied, taken at its first finding: most events
    /// have none, and holding a copy would make every mutation copy the state.
    var stateBefore: FoldState?
    /// Stacks that became empty at some moment of the event being applied (usually none).
    var emptiedDuringEvent: [String] = []
    /// The event being applied, as its findings name it, while `isApplying`.
    var currentEvent = EventReference(seq: 0, eventID: "", name: .sessionStart, location: nil)
    var currentSessionID = ""
    var isApplying = false

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
            applyFlowSwitch(from: from, to: to, event: event, reference: reference)
        case .tabSwitch(let from, let to):
            applyTabSwitch(from: from, to: to, reference: reference)
        case .commandApplied(let command, let fromFlow, let toFlow):
            applyCommand(command, fromFlow: fromFlow, toFlow: toFlow, event: event, reference: reference)
        case .modalPresent(let modal, let style):
            applyPresent(modal, style: style, reference: reference)
        case .modalDismiss(let modal):
            applyDismiss(modal, reference: reference)
        case .screenView(let claim, _):
            checkScreenView(claim, reference: reference)
        case .deepLink(let url, let outcome):
            applyDeepLink(url, outcome: outcome, event: event, reference: reference)
        }

        lastEvent = reference
        noteEmptyStacksForPendingCommands()
        emptiedDuringEvent.removeAll()

        var findings = pending
        if keepsStates, !findings.isEmpty, let before = stateBefore {
            #if DEBUG
                assert(before == debugBefore, "a state change came before the event's first finding")
            #endif
            let explanation = StateExplanation(before: before.state(stacks), after: state)
            for index in findings.indices { findings[index].explain(explanation) }
        }
        pending = []
        stateBefore = nil
        isApplying = false
        return findings
    }

    /// Makes `latestGroup` the group of the event being applied: taken out of `openGroups`, or new.
    mutating func selectGroup(_ correlationID: String) {
        if latestGroupID == correlationID { return }
        parkLatestGroup()
        if !openGroups.isEmpty, let group = openGroups.removeValue(forKey: correlationID) {
            if !group.resetsAwaitingEmpty.isEmpty { groupsWithCommands.remove(correlationID) }
            latestGroup = group
        }
        latestGroupID = correlationID
    }

    mutating func takeLatestGroup() -> GroupTracker {
        var group = GroupTracker()
        swap(&group, &latestGroup)
        return group
    }

    /// Moves the latest group into `openGroups`.
    mutating func parkLatestGroup() {
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
        // Each finding with the state it judges from (at its command, link or flow switch).
        var findings: [(finding: Finding, before: CondensedState?)] = commandFindings(of: group, correlationID: correlationID)
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
            let finding = Finding(
                rule: .commandPostcondition, sessionID: link.sessionID, seq: link.event.seq,
                eventID: link.event.eventID, location: link.event.location,
                message: "deep link \(JSONWriter.quoted(link.url)) \(which) \(what) in its correlation group "
                    + "(\(JSONWriter.quoted(correlationID))): " + link.problems.joined(separator: "; "),
                expected: .object(expected), found: .object(found), witness: lastEvent, eventName: .deepLink)
            findings.append((finding, link.stateAtLink))
        }
        guard keepsStates, findings.contains(where: { $0.before != nil }) else { return findings.map(\.finding) }
        let stateAtEnd = CondensedState(state)
        return findings.map { finding, before in
            var finding = finding
            if let before { finding.explain(StateExplanation(before: before, after: stateAtEnd)) }
            return finding
        }
    }

    /// The postconditions of a group's commands that do not hold at its end (CONTRACT §7).
    func commandFindings(of group: GroupTracker, correlationID: String) -> [(finding: Finding, before: CondensedState?)] {
        var findings: [(finding: Finding, before: CondensedState?)] = []
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
            let finding = Finding(
                rule: .commandPostcondition, sessionID: command.sessionID, seq: command.event.seq,
                eventID: command.event.eventID, location: command.event.location,
                message: "command \(JSONWriter.quoted(command.name)) did not complete by the end of its correlation group "
                    + "(\(JSONWriter.quoted(correlationID))): " + broken.joined(separator: "; "),
                expected: .object(expected), found: .object(found), witness: lastEvent,
                eventName: .commandApplied)
            findings.append((finding, command.stateAtCommand))
        }
        return findings
    }
}
