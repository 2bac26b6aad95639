import NavJSON
public import NavModel

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

/// `command.unknown`'s check: a command applied is declared.
public enum CommandUnknown {
    /// The command's spec, or `nil` when the model does not declare it (then `violation(_:)` is
    /// the finding).
    public static func check(_ command: String, model: NavigationModel) -> CommandSpec? {
        model.commands[command]
    }

    public static func violation(_ command: String) -> Violation {
        Violation(.commandUnknown, "command \(Phrase.quoted(command)) is not declared in the model", found: .string(command))
    }
}
