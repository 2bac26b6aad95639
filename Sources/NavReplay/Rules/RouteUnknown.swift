extension RuleDescription {
    static let routeUnknown = RuleDescription(
        id: "route.unknown", severity: .error,
        summary: "A route the model does not declare for that stack.",
        explanation:
            "Each stack declares the routes it may hold. A route outside that list entered the stack; it is applied, so the session goes on folding as written.",
        likelyCauses: [
            "a route pushed on the wrong stack",
            "a destination that is not registered in the model (a new screen, or a model file older than the app)",
        ],
        triggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "route_push", #""stack":"onboarding","from_route":null,"to_route":"checkout""#))
        ],
        nonTriggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "route_push", #""stack":"onboarding","from_route":null,"to_route":"welcome""#))
        ])
}
