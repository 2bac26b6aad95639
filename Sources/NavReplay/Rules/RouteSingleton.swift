extension RuleDescription {
    static let routeSingleton = RuleDescription(
        id: "route.singleton", severity: .error,
        summary: "A singleton route would stand twice in its stack.",
        explanation:
            "The model marks some routes as singletons: they may stand once in their stack. Opening one again should pop back to it, not push a copy. The copy is applied.",
        likelyCauses: [
            "a button that pushes the screen without checking whether it is already open",
            "a deep link that pushes its target on top of an existing copy",
        ],
        triggeringExamples: [
            ExampleLog.log(
                [ExampleLog.start()] + ExampleLog.login(at: 1) + [
                    ExampleLog.event(3, "route_push", #""stack":"tab1","from_route":null,"to_route":"settings""#),
                    ExampleLog.event(4, "route_push", #""stack":"tab1","from_route":"settings","to_route":"settings""#),
                ])
        ],
        nonTriggeringExamples: [
            ExampleLog.log(
                [ExampleLog.start()] + ExampleLog.login(at: 1) + [
                    ExampleLog.event(3, "route_push", #""stack":"tab1","from_route":null,"to_route":"settings""#),
                    ExampleLog.event(4, "route_push", #""stack":"tab1","from_route":"settings","to_route":"detail""#),
                ])
        ])
}
