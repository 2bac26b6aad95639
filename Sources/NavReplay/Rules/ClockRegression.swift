import NavJSON
public import NavEvents

extension RuleDescription {
    static let clockRegression = RuleDescription(
        id: "clock.regression", severity: .warning,
        summary: "A timestamp is earlier than the previous event's.",
        explanation:
            "Events are folded in seq order; their timestamps should not go backwards. When they do, durations computed from this session are unreliable; the fold itself is unaffected.",
        likelyCauses: [
            "the device clock was changed during the session",
            "events stamped on different threads or queues before they were given their seq",
        ],
        triggeringExamples: [
            ExampleLog.log(
                ExampleLog.event(0, "session_start", second: 5),
                ExampleLog.event(1, "route_push", #""stack":"onboarding","from_route":null,"to_route":"welcome""#, second: 2))
        ],
        nonTriggeringExamples: [
            ExampleLog.log(
                ExampleLog.event(0, "session_start", second: 5),
                ExampleLog.event(1, "route_push", #""stack":"onboarding","from_route":null,"to_route":"welcome""#, second: 5))
        ])
}

/// `clock.regression`'s check: timestamps do not go back as seqs go up.
public enum ClockRegression {
    /// An event's `timestamp`, after the event `previous` at `previousSeq` and `previousTimestamp`.
    public static func check(
        _ timestamp: Timestamp, previousSeq: Int64, previousTimestamp: Timestamp, previous: EventReference?
    ) -> Violation? {
        guard timestamp < previousTimestamp else { return nil }
        return Violation(
            .clockRegression,
            "timestamp \(timestamp.text) is earlier than \(previousTimestamp.text) of seq \(previousSeq)",
            expected: .string(previousTimestamp.text), found: .string(timestamp.text), setBy: .event(previous))
    }
}
