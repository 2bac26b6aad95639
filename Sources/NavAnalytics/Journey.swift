public import NavModel
public import NavReplay

/// What analytics reads of one folded session: who it was (version, platform), how long it ran,
/// which rules it broke, and the screens its router logged, each with the state the router was in
/// and the operation that led there.
///
/// Screens are taken where the router logs a `screen_view`: the state at the end of each
/// correlation group. A state passed through inside a group (a tab switch, then a pop, in one
/// command) is not a view. A screen is named as the `screen_view` names it.
public struct Journey: Sendable, Equatable {
    public var sessionID: String
    /// The `app_version` of the session's `session_start`; `nil` without one.
    public var appVersion: String?
    /// The `platform` of the session's `session_start`, else of its first event that has one.
    public var platform: String?
    /// The first and last folded events' times, in milliseconds since the epoch (`seq` order).
    public var start: Int64?
    public var end: Int64?
    /// Events folded.
    public var events: Int
    /// Findings by rule, those past `--max-findings-per-session` included.
    public var findingsByRule: [Rule: Int]
    /// The most routes any stack held above its root after any event.
    public var deepestStack: Int
    /// The flows the session was in, in order, consecutive repeats collapsed; the first is the
    /// flow it started in.
    public var flows: [String]
    /// Every `screen_view`, in `seq` order.
    public var views: [JourneyView]

    public init(
        sessionID: String, appVersion: String? = nil, platform: String? = nil, start: Int64? = nil, end: Int64? = nil,
        events: Int = 0, findingsByRule: [Rule: Int] = [:], deepestStack: Int = 0, flows: [String] = [],
        views: [JourneyView] = []
    ) {
        self.sessionID = sessionID
        self.appVersion = appVersion
        self.platform = platform
        self.start = start
        self.end = end
        self.events = events
        self.findingsByRule = findingsByRule
        self.deepestStack = deepestStack
        self.flows = flows
        self.views = views
    }

    /// `end - start` in milliseconds; `nil` without events.
    public var duration: Int64? {
        guard let start, let end else { return nil }
        return end - start
    }

    /// The rules with at least one finding.
    public var brokenRules: some Sequence<Rule> { findingsByRule.keys }
}

/// One `screen_view` of a session: the screen it names and the router's state after it.
public struct JourneyView: Sendable, Equatable {
    /// The screen as the `screen_view` names it (`.stack(stack, route:)`, route `nil` for the
    /// root, or `.modal(name)`).
    public var screen: Screen
    public var seq: Int64
    /// Milliseconds since the epoch.
    public var time: Int64
    /// What led here: the first state-changing event of this view's correlation group.
    public var operation: JourneyOperation
    /// The command of this view's correlation group, if a `command_applied` is in it.
    public var command: String?
    /// The state after the `screen_view`.
    public var flow: String
    public var tab: String?
    public var modals: [String]

    public init(
        screen: Screen, seq: Int64, time: Int64, operation: JourneyOperation, command: String? = nil, flow: String,
        tab: String? = nil, modals: [String] = []
    ) {
        self.screen = screen
        self.seq = seq
        self.time = time
        self.operation = operation
        self.command = command
        self.flow = flow
        self.tab = tab
        self.modals = modals
    }
}

/// The operation a transition is attributed to: that of the first state-changing event of the
/// correlation group that led to the view, so that the operations of a transition add up to its
/// count. A group whose first such event is a `command_applied` is a `command`, a `deep_link` a
/// `deep_link`; a `session_start` with a snapshot is a `restore`.
public enum JourneyOperation: String, Sendable, Hashable, CaseIterable, Comparable {
    case start
    case restore
    case push
    case pop
    case popTo = "pop_to"
    case replace
    case insert
    case remove
    case tab
    case flow
    case modalPresent = "modal_present"
    case modalDismiss = "modal_dismiss"
    case command
    case deepLink = "deep_link"
    /// A view whose group changed nothing (the screen shown again, or a view after lost events).
    case none

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension Screen {
    /// The screen in the JSON form analytics writes: `{"stack": ..., "route": ...}` (route `null`
    /// for the root) or `{"modal": ...}`; the text form is `label` (`tab1/detail`,
    /// `tab1/(root)`, `modal:paywall`).
    public var sortKey: String {
        switch self {
        case .stack(let stack, let route): "s\u{0}\(stack)\u{0}\(route.map { "r" + $0 } ?? "")"
        case .modal(let modal): "m\u{0}\(modal)"
        }
    }
}
