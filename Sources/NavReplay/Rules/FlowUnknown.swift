extension RuleDescription {
    static let flowUnknown = RuleDescription(
        id: "flow.unknown", severity: .error,
        summary: "A flow the model does not declare.",
        explanation:
            "A flow_switch or command_applied names a flow that is not in the model. The flow is adopted, so the session goes on folding, but no stack is owned in it.",
        likelyCauses: [
            "a model file older than the app",
            "an event that names the flow wrongly",
        ],
        triggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(
                    1, "command_applied", #""command":"goAuthorizedTab1Root","from_flow":"onboarding","to_flow":"checkout""#),
                ExampleLog.event(2, "flow_switch", #""from_flow":"onboarding","to_flow":"checkout""#, group: "c1"))
        ],
        nonTriggeringExamples: [
            ExampleLog.log([ExampleLog.start()] + ExampleLog.login(at: 1))
        ])
}
