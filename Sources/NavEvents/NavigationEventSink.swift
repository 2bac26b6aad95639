/// Where a router writes the events it emits, one call per event, in `seq` order.
///
/// A sink is called on the router's isolation domain (the main actor, in an app), synchronously,
/// at the moment the router decides a transition. Keep `write(_:)` cheap: hand the event to a
/// buffer, a file (`NavLog.FileEventSink`) or an analytics client; never call back into the
/// router from it.
///
/// Implementations: `NavLog.FileEventSink` (an NDJSON log file), and in NavRouter
/// `InMemoryEventSink` (keeps the events, for tests and in-app inspection), `MulticastSink`
/// (several sinks at once) and `ClosureEventSink` (adapts any function).
public protocol NavigationEventSink: AnyObject {
    /// Takes one event. Called once per event, in `seq` order.
    func write(_ event: NavigationEvent)
}
