public import NavEvents
public import NavModel
public import NavReplay
public import NavRouter
public import Testing

/// A clock for tests: starts at `start` and advances by `step` milliseconds on every read.
public final class TestClock {
    public private(set) var milliseconds: Int64
    public var step: Int64

    public init(start: Int64 = EventBuilder.defaultStart, step: Int64 = 250) {
        self.milliseconds = start
        self.step = step
    }

    public func now() -> Int64 {
        defer { milliseconds += step }
        return milliseconds
    }
}

/// Ids for tests: `prefix-1`, `prefix-2`, …
public final class IncrementingIDs {
    public let prefix: String
    public private(set) var count = 0

    public init(prefix: String = "id") {
        self.prefix = prefix
    }

    public func next() -> String {
        count += 1
        return "\(prefix)-\(count)"
    }
}

/// A deterministic router with an in-memory sink, and checks of what each action writes.
///
/// ```swift
/// let harness = RouterHarness()                    // started, live checks on
/// let events = harness.expectAction { $0.push("detail") }
/// #expect(events.map(\.name) == [.routePush, .screenView])
/// ```
public final class RouterHarness {
    public let router: NavigationRouter
    public let sink: InMemoryEventSink
    public let clock: TestClock
    private var seenCorrelations: Set<String> = []

    /// - Parameters:
    ///   - start: call `router.start()` now.
    public init(
        model: NavigationModel = .pocWithDeepLinks, sessionID: String = "session-1", liveChecks: Bool = true, start: Bool = true
    ) {
        let sink = InMemoryEventSink()
        let clock = TestClock()
        let ids = IncrementingIDs(prefix: sessionID)
        self.sink = sink
        self.clock = clock
        self.router = NavigationRouter(
            model: model, sessionID: sessionID, appVersion: "1.0.0", platform: "test", sink: sink,
            liveChecks: liveChecks, clock: clock.now, makeID: ids.next)
        if start {
            router.start()
            seenCorrelations.formUnion(sink.events.map(\.correlationID))
        }
    }

    public var events: [NavigationEvent] { sink.events }
    public var state: NavigationState { router.state }

    /// Runs one action and returns the events it wrote, after checking the envelope rules:
    /// consecutive seqs continuing the log, one correlation id not used before, one timestamp,
    /// the router's session id, and no new live-check violation.
    @discardableResult
    public func expectAction<Result>(
        sourceLocation: SourceLocation = #_sourceLocation, _ action: (NavigationRouter) -> Result
    ) -> [NavigationEvent] {
        expectActionResult(sourceLocation: sourceLocation, action).events
    }

    /// `expectAction`, also returning the action's result.
    public func expectActionResult<Result>(
        sourceLocation: SourceLocation = #_sourceLocation, _ action: (NavigationRouter) -> Result
    ) -> (result: Result, events: [NavigationEvent]) {
        let before = sink.events.count
        let violationsBefore = router.violations.count
        let result = action(router)
        let written = Array(sink.events[before...])
        for (offset, event) in written.enumerated() where event.seq != Int64(before + offset) {
            Issue.record("event \(event.name.rawValue) has seq \(event.seq), expected \(before + offset)", sourceLocation: sourceLocation)
        }
        if router.nextSeq != Int64(sink.events.count) {
            Issue.record("router.nextSeq is \(router.nextSeq) after \(sink.events.count) events", sourceLocation: sourceLocation)
        }
        let correlations = Set(written.map(\.correlationID))
        if correlations.count > 1 {
            Issue.record("one action wrote \(correlations.count) correlation ids: \(correlations.sorted())", sourceLocation: sourceLocation)
        }
        if let correlation = correlations.first, seenCorrelations.contains(correlation) {
            Issue.record("correlation id \(correlation) was used by an earlier action", sourceLocation: sourceLocation)
        }
        seenCorrelations.formUnion(correlations)
        if Set(written.map(\.timestamp)).count > 1 {
            Issue.record("one action wrote several timestamps", sourceLocation: sourceLocation)
        }
        for event in written where event.sessionID != router.sessionID {
            Issue.record("event \(event.seq) has session \(event.sessionID)", sourceLocation: sourceLocation)
        }
        for violation in router.violations[violationsBefore...] {
            Issue.record(
                "live check: \(violation.rule.rawValue) at seq \(violation.seq.map(String.init) ?? "-"): \(violation.message)",
                sourceLocation: sourceLocation)
        }
        return (result, written)
    }

    /// Audits everything written so far, offline, and checks it has no findings and ends in
    /// the router's state.
    @discardableResult
    public func expectCleanReplay(sourceLocation: SourceLocation = #_sourceLocation) -> SessionAudit? {
        expectReplay(sink.events, model: router.model, sourceLocation: sourceLocation) { [state = router.state] in
            $0 = state
        }
    }
}
