public import NavEvents

/// The sink protocol lives in NavEvents, beneath both the router and the log writer, so that
/// `NavLog.FileEventSink` conforms to it without NavLog depending on the router. This name
/// keeps it reachable from code that imports NavRouter alone.
public typealias NavigationEventSink = NavEvents.NavigationEventSink

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

/// A sink that calls a function for each event: adapts writers that do not conform to
/// `NavigationEventSink`, such as an analytics client:
///
/// ```swift
/// let router = NavigationRouter(appVersion: "1.4.0", sink: ClosureEventSink { analytics.track($0) })
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
