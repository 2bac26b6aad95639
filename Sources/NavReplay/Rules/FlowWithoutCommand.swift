extension RuleDescription {
    static let flowWithoutCommand = RuleDescription(
        id: "flow.without_command", severity: .error,
        summary: "A flow switch outside a command or deep link.",
        explanation:
            "Moving from one flow to another goes through a typed command (or a deep link, which resolves to one), so that every cross-flow transition leaves the state the model promises. A flow_switch whose correlation group has no command_applied or deep_link before it bypassed that path. The switch is applied.",
        likelyCauses: [
            "code that sets the router's flow directly instead of sending a command",
            "a command_applied logged in another correlation group than its flow switch",
        ],
        triggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "flow_switch", #""from_flow":"onboarding","to_flow":"authorized""#))
        ],
        nonTriggeringExamples: [
            ExampleLog.log([ExampleLog.start()] + ExampleLog.login(at: 1))
        ])
}
