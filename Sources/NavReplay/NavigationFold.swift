public import NavEvents
import NavJSON
public import NavModel

/// The pure fold: applies one session's events, in `seq` order, to a `NavigationState` and
/// reports every navigation rule they break (docs/events-and-rules.md).
///
/// It has no clock, no files and no randomness: everything comes from the events and the
/// model, so the same events always give the same state and findings. `SessionAuditor` drives
/// it over a whole session (dedupe, ordering, gaps); a router can drive it live, one event at a
/// time, to check its own invariants with exactly the rules `navreplay` applies offline.
///
/// The fold follows the log: an event that breaks a rule is still applied where it can be, and
/// after a `state.mismatch` the fold adopts the event's claimed value, so that one lost event
/// yields one finding rather than a cascade; after a seq gap it adopts all that an event claims
/// (`resynchronising`).
public struct NavigationFold: Sendable {
    public let model: NavigationModel
    /// The model's stacks by number: the fold works on stack numbers, not names.
    let stacks: StackTable
    /// The state, in the fold's working form (see `FoldState`).
    var working: FoldState
    /// The symbols of the names the state holds: the model's, and the session's own.
    var symbols: SessionSymbols
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
    public var state: NavigationState { working.state(stacks, symbols) }

    /// Whether the session has lost events before the one being applied (a seq gap, set by
    /// `SessionFolding` at the first): a finding then adopts all its event claims, not only the
    /// value it names (`NavigationFold+Resync.swift`). A live router never has a gap.
    public var resynchronising = false
    /// The commands whose postconditions failed at the group that ended at the last event, while
    /// not `resynchronising`: a gap found at the next event adopts them (`startResynchronising`).
    var failedAtLastGroupEnd: [PendingCommand] = []
    /// After a gap: for a stack whose claimed top was adopted by pushing it, the index of the
    /// route it was pushed over, which a lost replace may have taken away (`resolveDoubtful`).
    var doubtfulRoutes: [Int: Int] = [:]
    /// After a gap: for a stack cut back to a claimed top, where that top stood and the routes
    /// from it up, which a lost push of the same route would have left in place (`restoreCut`).
    var doubtfulCuts: [Int: (index: Int, routes: [Symbol])] = [:]

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
        symbols = SessionSymbols(model.symbolTable)
        flowSpec = model.flows[working.flow]
        stackWitness = Array(repeating: nil, count: stacks.count)
        usesPresentationKeys = model.usesPresentationKeys
        hasRouteBoundModals = model.modals.values.contains { $0.routes != nil }
    }

    /// Starts from a given state (e.g. a router restored from a snapshot).
    public init(model: NavigationModel, state: NavigationState) {
        self.init(model: model)
        working = FoldState(state, table: stacks, symbols: &symbols)
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
        if !failedAtLastGroupEnd.isEmpty { failedAtLastGroupEnd.removeAll() }
        currentEvent = reference
        currentSessionID = event.sessionID
        isApplying = true
        selectGroup(event.correlationID)

        // The event's stack, resolved once: its number, `nil` for a name the model does not declare.
        let stack = event.payload.stack
        let stackNumber = stack.flatMap { stacks.number(of: $0) }
        let undeclaredStack = stack != nil && stackNumber == nil
        if let contentIdentity, !undeclaredStack {
            let earlier = latestGroup.contentIdentities[contentIdentity]
            if let violation = AnalyticsDuplicate.check(event.name, earlier: earlier, correlationID: event.correlationID) {
                report(violation)
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
            applyStackOperation(event.payload, number: stackNumber, reference: reference)
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
            let explanation = StateExplanation(before: before.state(stacks, symbols), after: state)
            for index in findings.indices { findings[index].explain(explanation) }
        }
        pending = []
        stateBefore = nil
        isApplying = false
        return findings
    }

    // MARK: Reporting

    /// Reports what a rule's check returned, as a finding of the event being applied; its
    /// witness is the event that last changed what `violation.setBy` names, unless given.
    mutating func report(_ violation: Violation) {
        guard isApplying else { return }
        report(violation, witness: witness(of: violation.setBy))
    }

    mutating func report(_ violation: Violation, witness: EventReference?) {
        guard isApplying else { return }
        captureStateBefore()
        pending.append(
            Finding(
                rule: violation.rule, sessionID: currentSessionID, seq: currentEvent.seq, eventID: currentEvent.eventID,
                location: currentEvent.location, message: violation.message, expected: violation.expected,
                found: violation.found, witness: witness, eventName: currentEvent.name))
    }

    /// The event that last changed a part of the state.
    func witness(of setter: Violation.Setter) -> EventReference? {
        switch setter {
        case .none: nil
        case .flow: flowWitness
        case .tab: tabWitness
        case .stack(let stack): witness(of: stack)
        case .modal(let modal): modalWitness[modal]
        case .event(let reference): reference
        }
    }

    /// A finding that a group's end reports at the event `reference` (its command, link or flow
    /// switch), witnessed by the group's last event unless the violation names another.
    func finding(_ violation: Violation, at reference: EventReference, sessionID: String, _ name: EventName) -> Finding {
        let witness = violation.setBy == .none ? lastEvent : witness(of: violation.setBy)
        return Finding(
            rule: violation.rule, sessionID: sessionID, seq: reference.seq, eventID: reference.eventID,
            location: reference.location, message: violation.message, expected: violation.expected, found: violation.found,
            witness: witness, eventName: name)
    }
}
