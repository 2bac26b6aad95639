extension RuleDescription {
    static let stackUnknown = RuleDescription(
        id: "stack.unknown", severity: .error,
        summary: "A stack operation on a stack the model does not declare.",
        explanation: "The stack is not in the model, so the operation cannot be checked or applied: the event is not folded.",
        likelyCauses: [
            "a model file older than the app",
            "an event that names the stack wrongly (a typo, or a screen's name instead of its stack's)",
        ],
        triggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "route_push", #""stack":"cart","from_route":null,"to_route":"welcome""#))
        ],
        nonTriggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "route_push", #""stack":"onboarding","from_route":null,"to_route":"welcome""#))
        ])
}
