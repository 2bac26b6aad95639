public import NavEvents

/// Where a router writes the events it emits, one call per event, in `seq` order.
///
/// A sink is called on the router's isolation domain (the main actor, in an app), synchronously,
/// at the moment the router decides a transition. Keep `write(_:)` cheap: hand the event to a
/// buffer, a file (`NavLog.FileEventSink`) or an analytics client; never call back into the
/// router from it.
///
/// Implementations in this module: `InMemoryEventSink` (keeps the events, for tests and
/// in-app inspection), `MulticastSink` (several sinks at once) and `ClosureEventSink` (adapts
/// any function, such as `FileEventSink.write(_:)`).
public protocol NavigationEventSink: AnyObject {
    /// Takes one event. Called once per event, in `seq` order.
    func write(_ event: NavigationEvent)
}

/// A sink that keeps every event in memory, in the order written.
///
/// Use it in tests, or in a debug screen that lists the session's navigation. It is not
/// `Sendable`: use it from the router's isolation domain.
public final class InMemoryEventSink: NavigationEventSink {
    /// The events written so far, oldest first.
    public private(set) var events: [NavigationEvent] = []

    public init() {}

    public func write(_ event: NavigationEvent) {
        events.append(event)
    }

    /// The events as canonical NDJSON lines (without line ends).
    public var lines: [String] { events.map(\.canonicalJSON) }

    /// Forgets the events written so far.
    public func removeAll() {
        events.removeAll()
    }
}

/// A sink that writes each event to several sinks, in the order given.
public final class MulticastSink: NavigationEventSink {
    public let sinks: [any NavigationEventSink]

    public init(_ sinks: [any NavigationEventSink]) {
        self.sinks = sinks
    }

    public func write(_ event: NavigationEvent) {
        for sink in sinks { sink.write(event) }
    }
}

/// A sink that calls a function for each event.
///
/// Adapts writers that do not conform to `NavigationEventSink`, for example a
/// `NavLog.FileEventSink`:
///
/// ```swift
/// let file = try FileEventSink(path: logPath, syncPolicy: .interval(events: 50))
/// let router = NavigationRouter(appVersion: "1.4.0", sink: ClosureEventSink { file.write($0) })
/// ```
public final class ClosureEventSink: NavigationEventSink {
    private let body: (NavigationEvent) -> Void

    public init(_ body: @escaping (NavigationEvent) -> Void) {
        self.body = body
    }

    public func write(_ event: NavigationEvent) {
        body(event)
    }
}
