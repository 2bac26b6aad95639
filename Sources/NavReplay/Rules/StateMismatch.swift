extension RuleDescription {
    static let stateMismatch = RuleDescription(
        id: "state.mismatch", severity: .error,
        summary: "A from_* field (or a pop's to_route) disagrees with the rebuilt state.",
        explanation:
            "The event claims a state (the top route, the flow, the tab) that the events before it did not produce. The audit adopts the claimed value and goes on, so that one lost event yields one finding, not a finding on every event after it.",
        likelyCauses: [
            "an event before it was lost (look for a seq.gap) or never emitted",
            "an event emitted twice, or emitted before the router changed its state",
            "a router that changed its state without emitting an event",
        ],
        triggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "route_push", #""stack":"onboarding","from_route":null,"to_route":"welcome""#),
                ExampleLog.event(2, "route_push", #""stack":"onboarding","from_route":"permissions","to_route":"signup""#))
        ],
        nonTriggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "route_push", #""stack":"onboarding","from_route":null,"to_route":"welcome""#),
                ExampleLog.event(2, "route_push", #""stack":"onboarding","from_route":"welcome","to_route":"signup""#))
        ])
}
