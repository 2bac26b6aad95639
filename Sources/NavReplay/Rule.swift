/// How serious a finding is. Raw values are the wire names.
public enum Severity: String, Sendable, CaseIterable, Comparable {
    /// Something is missing or suspicious, but the session still folds as written.
    case warning
    /// The log breaks the contract or a navigation invariant.
    case error

    public static func < (lhs: Severity, rhs: Severity) -> Bool {
        lhs == .warning && rhs == .error
    }
}

/// The rules of CONTRACT §5, with their stable ids. Raw values are the ids and never change.
public enum Rule: String, Sendable, CaseIterable, Comparable {
    case schemaInvalid = "schema.invalid"
    case seqDuplicate = "seq.duplicate"
    case eventIDConflict = "event_id.conflict"
    case seqGap = "seq.gap"
    case sessionNoStart = "session.no_start"
    case clockRegression = "clock.regression"
    case stateMismatch = "state.mismatch"
    case stackNotOwned = "stack.not_owned"
    case stackUnknown = "stack.unknown"
    case flowUnknown = "flow.unknown"
    case flowWithoutCommand = "flow.without_command"
    case commandUnknown = "command.unknown"
    case commandPostcondition = "command.postcondition"
    case routeUnknown = "route.unknown"
    case routeSingleton = "route.singleton"
    /// A NavReplay extension: a stack position that the model requires to hold certain routes.
    case routePosition = "route.position"
    case stackOutOfRange = "stack.out_of_range"
    case tabInvalid = "tab.invalid"
    case modalNotAllowed = "modal.not_allowed"
    case modalNotPresented = "modal.not_presented"
    case modalAlreadyPresented = "modal.already_presented"
    case screenNotVisible = "screen.not_visible"
    case analyticsDuplicate = "analytics.duplicate"

    /// Rules order by id, which is how findings at one `seq` are ordered (CONTRACT §6).
    public static func < (lhs: Rule, rhs: Rule) -> Bool { lhs.rawValue < rhs.rawValue }

    public var severity: Severity {
        switch self {
        case .seqGap, .sessionNoStart, .clockRegression, .stackOutOfRange, .modalAlreadyPresented,
            .screenNotVisible, .analyticsDuplicate:
            .warning
        default:
            .error
        }
    }

    /// One line: what the rule checks.
    public var summary: String {
        switch self {
        case .schemaInvalid: "A line is not a valid v1 event."
        case .seqDuplicate: "Two different events of one session have the same seq."
        case .eventIDConflict: "One event_id carries two different contents."
        case .seqGap: "Seq numbers are missing: events were lost."
        case .sessionNoStart: "The session does not begin with session_start at seq 0."
        case .clockRegression: "A timestamp is earlier than the previous event's."
        case .stateMismatch: "A from_* field (or a pop's to_route) disagrees with the rebuilt state."
        case .stackNotOwned: "A stack operation on a stack the current flow does not own."
        case .stackUnknown: "A stack operation on a stack the model does not declare."
        case .flowUnknown: "A flow the model does not declare."
        case .flowWithoutCommand: "A flow switch outside a command or deep link."
        case .commandUnknown: "A command the model does not declare."
        case .commandPostcondition: "A command's correlation group does not do what the model says the command does."
        case .routeUnknown: "A route the model does not declare for that stack."
        case .routeSingleton: "A singleton route would stand twice in its stack."
        case .routePosition: "A stack position holds a route the model does not allow there."
        case .stackOutOfRange: "A pop count, pop-to target or insert index outside the stack."
        case .tabInvalid: "A tab switch in a flow without tabs, or to a tab the flow does not have."
        case .modalNotAllowed: "A modal presented where the model does not allow it."
        case .modalNotPresented: "A dismiss of a modal that is not presented."
        case .modalAlreadyPresented: "A present of a modal that is already presented."
        case .screenNotVisible: "A screen_view of a screen that is not the visible one."
        case .analyticsDuplicate: "One action emitted the same event twice."
        }
    }

    /// Why it matters and what usually causes it, for reports.
    public var explanation: String {
        switch self {
        case .schemaInvalid:
            "The line cannot be read as a v1 event, so it is not folded. Likely causes: a torn write when the app was killed, an app version that writes a field with the wrong type, or corruption in transit."
        case .seqDuplicate:
            "Each event of a session has its own seq. Two different events at one seq usually mean two writers for one session, or a seq counter reset after restoration. The earliest is folded; the others are not."
        case .eventIDConflict:
            "An identical repeat is a redelivery and is folded once; a different content under the same event_id means the id generator is not unique or an event was rewritten."
        case .seqGap:
            "Events between two seqs never arrived: lost in transit, dropped by a full buffer, or filtered upstream. Findings after a gap may be consequences of the loss."
        case .sessionNoStart:
            "Without session_start at seq 0 the fold cannot know the state the session began in; it assumes the model's initial state. A session_start later in the session resets the state."
        case .clockRegression:
            "Timestamps should not go backwards within a session; a device clock change or events stamped on different threads can cause it. Durations computed from this session are unreliable."
        case .stateMismatch:
            "The event claims a state (the top route, the flow, the tab) that the events before it did not produce: an event was lost, emitted twice, or emitted before the router changed state. The fold adopts the claimed value so that one lost event yields one finding."
        case .stackNotOwned:
            "A coordinator edited a stack of a flow that is not active (seed 001 invariant 2): usually a stale coordinator still receiving actions after a flow switch."
        case .stackUnknown:
            "The stack is not in the model: the model is out of date or the event names the stack wrongly. The event is not applied."
        case .flowUnknown:
            "The flow is not in the model: the model is out of date or the event is wrong."
        case .flowWithoutCommand:
            "Cross-flow transitions must go through the command handler (seed 001 invariant 3); a bare flow switch means some code changed the flow directly."
        case .commandUnknown:
            "The command is not in the model: the model is out of date, or the app sent an untyped command."
        case .commandPostcondition:
            "A command must leave the router in the state its definition promises (seed 001 contract 5.5): its flow and tab, its reset stacks emptied, modals dismissed when it says so."
        case .routeUnknown:
            "The route is not declared for this stack: a route pushed on the wrong stack, or a destination that is not registered."
        case .routeSingleton:
            "A singleton screen may stand once in its stack (seed 000 openOnce): opening it again should pop back to it, not push a copy."
        case .routePosition:
            "The model requires certain routes at this position of the stack (seed 000: the screen just above the space hub depends on the space's kind)."
        case .stackOutOfRange:
            "The operation asked for more or fewer routes than the stack has; the router clamps it (seed 001 contract 5.2), but the caller computed a wrong count or target."
        case .tabInvalid:
            "The flow has no such tab: the tab switch came from a stale screen or the model is out of date."
        case .modalNotAllowed:
            "The model does not allow this modal in the current flow, or the flow already shows its maximum number of modals."
        case .modalNotPresented:
            "Nothing of that name is presented: a dismiss emitted twice, or a present that was never logged."
        case .modalAlreadyPresented:
            "The modal is already on screen; presenting it again is a double tap or a missing dismiss. It is not added twice."
        case .screenNotVisible:
            "The app reported a screen as shown that the rebuilt state does not show: a navigation event is missing, or the view logged before the router changed. The fold adopts the reported screen."
        case .analyticsDuplicate:
            "One user action should produce each event once (seed 001 §7.9); the same event twice in one correlation group means analytics is emitted from two layers."
        }
    }
}
