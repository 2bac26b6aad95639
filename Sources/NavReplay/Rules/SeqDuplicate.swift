extension RuleDescription {
    static let seqDuplicate = RuleDescription(
        id: "seq.duplicate", severity: .error,
        summary: "Two different events of one session have the same seq.",
        explanation:
            "Each event of a session has its own seq. When two different events share one, the earliest (by timestamp, then event id) is folded and the others are not. An identical repeat of an event is a redelivery, not a duplicate: it is counted and folded once.",
        likelyCauses: [
            "two writers for one session (two processes, or two app instances sharing a session id)",
            "a seq counter reset after the app restored its state",
        ],
        triggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "route_push", #""stack":"onboarding","from_route":null,"to_route":"welcome""#),
                ExampleLog.event(1, "route_push", #""stack":"onboarding","from_route":null,"to_route":"signup""#, id: "e1b"))
        ],
        nonTriggeringExamples: [
            // The same event delivered twice: a redelivery.
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "route_push", #""stack":"onboarding","from_route":null,"to_route":"welcome""#),
                ExampleLog.event(1, "route_push", #""stack":"onboarding","from_route":null,"to_route":"welcome""#))
        ])
}
