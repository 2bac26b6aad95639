public import NavModel

/// One navigation event of contract v1: its envelope and payload (docs/events-and-rules.md).
public struct NavigationEvent: Sendable, Hashable {
    public static let schemaVersion = 1

    // The payload is declared first so that the implicit memberwise initialiser,
    // `init(payload:eventID:…)`, differs from the public one and exists beside it: the decoder
    // builds events with it. An explicit initialiser's `self` is assembled in memory and then
    // copied out, and for a struct this large the optimiser keeps the copy: a retain and a
    // release of every string, 3% of an audit's instructions.
    public var payload: Payload
    public var eventID: String
    public var sessionID: String
    public var seq: Int64
    public var timestamp: Timestamp
    public var correlationID: String
    public var appVersion: String?
    public var platform: String?

    public var name: EventName { payload.name }

    /// What happened, with the fields each event carries (docs/events-and-rules.md).
    public enum Payload: Sendable, Hashable {
        case sessionStart(snapshot: NavigationState?)
        case routePush(stack: String, from: String?, to: String, params: RouteParams?)
        case routePop(stack: String, from: String?, to: String?, amount: PopAmount)
        case routeReplace(stack: String, from: String?, to: String, params: RouteParams?)
        case routePopTo(stack: String, from: String?, to: String?)
        case routeInsert(stack: String, route: String, index: Int64, params: RouteParams?)
        case routeRemove(stack: String, route: String)
        case flowSwitch(from: String, to: String)
        case tabSwitch(from: String?, to: String)
        case commandApplied(command: String, fromFlow: String, toFlow: String)
        case modalPresent(modal: String, style: ModalStyle)
        case modalDismiss(modal: String)
        case screenView(ScreenClaim, params: RouteParams?)
        case deepLink(url: String, outcome: DeepLinkOutcome)

        public var name: EventName {
            switch self {
            case .sessionStart: .sessionStart
            case .routePush: .routePush
            case .routePop: .routePop
            case .routeReplace: .routeReplace
            case .routePopTo: .routePopTo
            case .routeInsert: .routeInsert
            case .routeRemove: .routeRemove
            case .flowSwitch: .flowSwitch
            case .tabSwitch: .tabSwitch
            case .commandApplied: .commandApplied
            case .modalPresent: .modalPresent
            case .modalDismiss: .modalDismiss
            case .screenView: .screenView
            case .deepLink: .deepLink
            }
        }

        /// The stack a stack operation works on.
        public var stack: String? {
            switch self {
            case .routePush(let stack, _, _, _), .routePop(let stack, _, _, _), .routeReplace(let stack, _, _, _),
                .routePopTo(let stack, _, _), .routeInsert(let stack, _, _, _), .routeRemove(let stack, _):
                stack
            default: nil
            }
        }
    }

    /// How many routes a pop asks for.
    public enum PopAmount: Sendable, Hashable {
        case count(Int64)
        case toRoot
    }

    /// What a `screen_view` says is visible.
    public enum ScreenClaim: Sendable, Hashable {
        case stack(String, route: String?)
        case modal(String)

        public var screen: Screen {
            switch self {
            case .stack(let stack, let route): .stack(stack, route: route)
            case .modal(let modal): .modal(modal)
            }
        }
    }
}

/// The parameters a route carries: kept with the event, not part of the route's identity.
public struct RouteParams: Sendable, Hashable {
    /// Parameters sorted by name.
    public private(set) var entries: [(name: String, value: ParamValue)]

    /// Parameters sorted by name. Give each name once: a repeated name would encode as a
    /// duplicate key, which the decoder rejects (the router refuses such parameters).
    public init(_ entries: [(String, ParamValue)]) {
        self.entries = entries.map { (name: $0.0, value: $0.1) }.sorted { $0.name < $1.name }
    }

    public var isEmpty: Bool { entries.isEmpty }

    public subscript(name: String) -> ParamValue? {
        entries.first { $0.name == name }?.value
    }

    public static func == (lhs: RouteParams, rhs: RouteParams) -> Bool {
        lhs.entries.count == rhs.entries.count
            && zip(lhs.entries, rhs.entries).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        for entry in entries {
            hasher.combine(entry.name)
            hasher.combine(entry.value)
        }
    }
}

/// A route parameter's scalar value; numbers keep their JSON text.
public enum ParamValue: Sendable, Hashable {
    case string(String)
    /// A number as JSON text (`42`, `-0.5`, `1e3`): it is written verbatim, so it must follow
    /// the JSON number grammar. `ParamValue.integer(_:)` builds one safely.
    case number(String)
    case bool(Bool)
    case null

    /// An integer parameter.
    public static func integer(_ value: Int64) -> ParamValue { .number(String(value)) }
}

extension NavigationEvent {
    public init(
        eventID: String, sessionID: String, seq: Int64, timestamp: Timestamp, correlationID: String,
        appVersion: String? = nil, platform: String? = nil, payload: Payload
    ) {
        self.init(
            payload: payload, eventID: eventID, sessionID: sessionID, seq: seq, timestamp: timestamp, correlationID: correlationID,
            appVersion: appVersion, platform: platform)
    }
}
