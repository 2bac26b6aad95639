extension RuleDescription {
    static let routePosition = RuleDescription(
        id: "route.position", severity: .error,
        summary: "A stack position holds a route the model does not allow there.",
        explanation:
            "A stack may require certain routes at a position (a `positions` entry in the model file), for example the screen just above a hub that depends on what the hub shows, possibly only in some flows. A route entered a position that does not allow it; it is applied.",
        likelyCauses: [
            "a screen opened from the wrong place, skipping the one that must come first",
            "a flow switch that left a stack whose positions the new flow constrains differently",
        ],
        triggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "route_push", #""stack":"hub","from_route":null,"to_route":"space""#),
                ExampleLog.event(2, "route_push", #""stack":"hub","from_route":"space","to_route":"docs""#))
        ],
        nonTriggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "route_push", #""stack":"hub","from_route":null,"to_route":"space""#),
                ExampleLog.event(2, "route_push", #""stack":"hub","from_route":"space","to_route":"widgets""#))
        ],
        exampleModel: """
            {"model_version": 1, "name": "hub", "initial": {"flow": "main"},
             "flows": {"main": {"stack": "hub"}},
             "stacks": {"hub": {"routes": ["space", "widgets", "chat", "docs"],
                                "positions": [{"index": 1, "one_of": ["widgets", "chat"]}]}}}
            """)
}
