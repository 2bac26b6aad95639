public import NavEvents
public import NavModel

/// Builds valid `NavigationEvent`s for tests, filling in the envelope: consecutive `seq`s from
/// 0, unique event ids, a timestamp that advances by `stepMilliseconds`, and a fresh
/// correlation id per `make` (or one shared by a `group`).
///
/// ```swift
/// var builder = EventBuilder()
/// let events = [builder.start()]
///     + builder.group([
///         .commandApplied(command: "goAuthorizedTab1Root", fromFlow: "onboarding", toFlow: "authorized"),
///         .flowSwitch(from: "onboarding", to: "authorized"),
///     ])
///     + [builder.make(.routePush(stack: "tab1", from: nil, to: "list", params: nil))]
/// ```
public struct EventBuilder: Sendable {
    public var sessionID: String
    /// The `seq` of the next event.
    public var nextSeq: Int64
    /// The time of the next event, in milliseconds since the epoch.
    public var milliseconds: Int64
    public var stepMilliseconds: Int64
    public var appVersion: String?
    public var platform: String?
    private var counter = 0

    /// 2026-11-20T10:00:00.000Z, the default start time.
    public static let defaultStart: Int64 = 1_795_168_800_000

    public init(
        sessionID: String = "session-1", startSeq: Int64 = 0, startMilliseconds: Int64 = EventBuilder.defaultStart,
        stepMilliseconds: Int64 = 1000, appVersion: String? = "1.0.0", platform: String? = nil
    ) {
        self.sessionID = sessionID
        self.nextSeq = startSeq
        self.milliseconds = startMilliseconds
        self.stepMilliseconds = stepMilliseconds
        self.appVersion = appVersion
        self.platform = platform
    }

    /// One event, in its own correlation group unless `correlationID` is given.
    public mutating func make(_ payload: NavigationEvent.Payload, correlationID: String? = nil) -> NavigationEvent {
        counter += 1
        let event = NavigationEvent(
            eventID: "\(sessionID)-event-\(counter)", sessionID: sessionID, seq: nextSeq,
            timestamp: Timestamp(epochMilliseconds: milliseconds),
            correlationID: correlationID ?? "\(sessionID)-action-\(counter)", appVersion: appVersion,
            platform: platform, payload: payload)
        nextSeq += 1
        milliseconds += stepMilliseconds
        return event
    }

    /// Events of one action: one new correlation id for all of them.
    public mutating func group(_ payloads: [NavigationEvent.Payload]) -> [NavigationEvent] {
        let correlationID = "\(sessionID)-action-\(counter + 1)"
        return payloads.map { make($0, correlationID: correlationID) }
    }

    /// `session_start`, from the model's initial state or a snapshot.
    public mutating func start(snapshot: NavigationState? = nil) -> NavigationEvent {
        make(.sessionStart(snapshot: snapshot))
    }
}

/// One valid event with every envelope field filled in; for a single line in a test.
public func makeEvent(
    _ payload: NavigationEvent.Payload, sessionID: String = "session-1", seq: Int64 = 0,
    milliseconds: Int64 = EventBuilder.defaultStart, correlationID: String? = nil, eventID: String? = nil,
    appVersion: String? = "1.0.0"
) -> NavigationEvent {
    NavigationEvent(
        eventID: eventID ?? "\(sessionID)-event-\(seq)", sessionID: sessionID, seq: seq,
        timestamp: Timestamp(epochMilliseconds: milliseconds), correlationID: correlationID ?? "\(sessionID)-action-\(seq)",
        appVersion: appVersion, payload: payload)
}
