extension RuleDescription {
    static let eventIDConflict = RuleDescription(
        id: "event_id.conflict", severity: .error,
        summary: "One event_id carries two different contents.",
        explanation:
            "An event_id names one event. An identical repeat is a redelivery and is folded once; a different content under an id already seen (in this session or an earlier one) is this finding, and the later event is not folded.",
        likelyCauses: [
            "an event id generator that is not unique (a counter restarted, a truncated UUID)",
            "an event rewritten after it was first sent",
        ],
        triggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "route_push", #""stack":"onboarding","from_route":null,"to_route":"welcome""#),
                ExampleLog.event(2, "route_push", #""stack":"onboarding","from_route":"welcome","to_route":"signup""#, id: "e1"))
        ],
        nonTriggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "route_push", #""stack":"onboarding","from_route":null,"to_route":"welcome""#),
                ExampleLog.event(2, "route_push", #""stack":"onboarding","from_route":"welcome","to_route":"signup""#))
        ])
}
