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
