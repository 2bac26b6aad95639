extension RuleDescription {
    static let stackOutOfRange = RuleDescription(
        id: "stack.out_of_range", severity: .warning,
        summary: "A pop count, pop-to target or insert index outside the stack.",
        explanation:
            "The operation asked for more (or fewer) routes than the stack has, a pop to a route the stack does not hold, or an insert past its end. The router clamps it and so does the audit (a pop-to of a missing route does nothing), but the caller computed a wrong count or target.",
        likelyCauses: [
            "a pop count computed from a stale copy of the stack",
            "a pop-to target that was already removed",
        ],
        triggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "route_push", #""stack":"onboarding","from_route":null,"to_route":"welcome""#),
                ExampleLog.event(2, "route_pop", #""stack":"onboarding","from_route":"welcome","to_route":null,"count":2"#))
        ],
        nonTriggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "route_push", #""stack":"onboarding","from_route":null,"to_route":"welcome""#),
                ExampleLog.event(2, "route_pop", #""stack":"onboarding","from_route":"welcome","to_route":null,"count":1"#))
        ])
}
