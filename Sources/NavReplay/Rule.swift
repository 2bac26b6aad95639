/// How serious a finding is. Raw values are the wire names.
public enum Severity: String, Sendable, CaseIterable, Comparable {
    /// Something is missing or suspicious, but the session still folds as written.
    case warning
    /// The log breaks the event format or a navigation invariant.
    case error

    public static func < (lhs: Severity, rhs: Severity) -> Bool {
        lhs == .warning && rhs == .error
    }
}

/// The rules every session is checked against, with their stable ids. Raw values are the ids
/// and never change; each rule's description and check are its file in `Rules/`.
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

    /// Rules order by id, which is how findings at one `seq` are ordered.
    public static func < (lhs: Rule, rhs: Rule) -> Bool { lhs.rawValue < rhs.rawValue }

    /// What the rule checks, why, and examples: its file in `Rules/`.
    public var ruleDescription: RuleDescription {
        switch self {
        case .schemaInvalid: .schemaInvalid
        case .seqDuplicate: .seqDuplicate
        case .eventIDConflict: .eventIDConflict
        case .seqGap: .seqGap
        case .sessionNoStart: .sessionNoStart
        case .clockRegression: .clockRegression
        case .stateMismatch: .stateMismatch
        case .stackNotOwned: .stackNotOwned
        case .stackUnknown: .stackUnknown
        case .flowUnknown: .flowUnknown
        case .flowWithoutCommand: .flowWithoutCommand
        case .commandUnknown: .commandUnknown
        case .commandPostcondition: .commandPostcondition
        case .routeUnknown: .routeUnknown
        case .routeSingleton: .routeSingleton
        case .routePosition: .routePosition
        case .stackOutOfRange: .stackOutOfRange
        case .tabInvalid: .tabInvalid
        case .modalNotAllowed: .modalNotAllowed
        case .modalNotPresented: .modalNotPresented
        case .modalAlreadyPresented: .modalAlreadyPresented
        case .screenNotVisible: .screenNotVisible
        case .analyticsDuplicate: .analyticsDuplicate
        }
    }

    public var severity: Severity { ruleDescription.severity }

    /// One line: what the rule checks.
    public var summary: String { ruleDescription.summary }

    /// Why it matters and what usually causes it, for reports.
    public var explanation: String { ruleDescription.fullExplanation }
}
