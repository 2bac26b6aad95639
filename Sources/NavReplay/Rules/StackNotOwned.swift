extension RuleDescription {
    static let stackNotOwned = RuleDescription(
        id: "stack.not_owned", severity: .error,
        summary: "A stack operation on a stack the current flow does not own.",
        explanation:
            "Only the active flow (or a presented modal with its own stack) may change a stack; the model says which flow owns which stack. The operation is applied to the stack all the same, so that the rest of the session folds as written.",
        likelyCauses: [
            "a stale coordinator still receiving actions after a flow switch",
            "a screen of one flow that pushes onto another flow's stack",
        ],
        triggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "route_push", #""stack":"tab1","from_route":null,"to_route":"list""#))
        ],
        nonTriggeringExamples: [
            ExampleLog.log(
                [ExampleLog.start()] + ExampleLog.login(at: 1)
                    + [ExampleLog.event(3, "route_push", #""stack":"tab1","from_route":null,"to_route":"list""#)])
        ])
}
