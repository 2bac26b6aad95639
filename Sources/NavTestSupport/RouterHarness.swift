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
        let checked = checkAction(action)
        for problem in checked.problems { Issue.record(Comment(rawValue: problem), sourceLocation: sourceLocation) }
        return (checked.result, checked.events)
    }

    /// Runs one action and returns what it wrote and each broken envelope rule, one message
    /// apiece (none for a correct action): what `expectAction` records as test issues.
    public func checkAction<Result>(
        _ action: (NavigationRouter) -> Result
    ) -> (result: Result, events: [NavigationEvent], problems: [String]) {
        let before = sink.events.count
        let violationsBefore = router.violations.count
        let result = action(router)
        let written = Array(sink.events[before...])
        var problems: [String] = []
        for (offset, event) in written.enumerated() where event.seq != Int64(before + offset) {
            problems.append("event \(event.name.rawValue) has seq \(event.seq), expected \(before + offset)")
        }
        if router.nextSeq != Int64(sink.events.count) {
            problems.append("router.nextSeq is \(router.nextSeq) after \(sink.events.count) events")
        }
        let correlations = Set(written.map(\.correlationID))
        if correlations.count > 1 {
            problems.append("one action wrote \(correlations.count) correlation ids: \(correlations.sorted())")
        }
        if let correlation = correlations.first, seenCorrelations.contains(correlation) {
            problems.append("correlation id \(correlation) was used by an earlier action")
        }
        seenCorrelations.formUnion(correlations)
        if Set(written.map(\.timestamp)).count > 1 {
            problems.append("one action wrote several timestamps")
        }
        for event in written where event.sessionID != router.sessionID {
            problems.append("event \(event.seq) has session \(event.sessionID)")
        }
        for violation in router.violations[violationsBefore...] {
            problems.append("live check: \(violation.rule.rawValue) at seq \(violation.seq.map(String.init) ?? "-"): \(violation.message)")
        }
        return (result, written, problems)
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
