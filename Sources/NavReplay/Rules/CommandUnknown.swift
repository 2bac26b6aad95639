extension RuleDescription {
    static let commandUnknown = RuleDescription(
        id: "command.unknown", severity: .error,
        summary: "A command the model does not declare.",
        explanation:
            "The command is not in the model, so what it should do cannot be checked. Its correlation group still counts as a command's: its flow switch is not flow.without_command.",
        likelyCauses: [
            "a model file older than the app",
            "an untyped or misspelt command sent by the app",
        ],
        triggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "command_applied", #""command":"goCheckout","from_flow":"onboarding","to_flow":"authorized""#),
                ExampleLog.event(2, "flow_switch", #""from_flow":"onboarding","to_flow":"authorized""#, group: "c1"))
        ],
        nonTriggeringExamples: [
            ExampleLog.log([ExampleLog.start()] + ExampleLog.login(at: 1))
        ])
}
