import NavJSON
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

/// `flow.without_command`'s check: a flow switch comes after the `command_applied` or
/// `deep_link` that causes it, in its correlation group.
public enum FlowWithoutCommand {
    /// A `flow_switch` from `from` to `to` in group `correlationID`; `authorized`: a command or
    /// a deep link came before it in the group.
    public static func check(from: String, to: String, authorized: Bool, correlationID: String) -> Violation? {
        guard !authorized else { return nil }
        return Violation(
            .flowWithoutCommand,
            "flow_switch \(Phrase.quoted(from)) → \(Phrase.quoted(to)) has no command_applied or "
                + "deep_link before it in its correlation group (\(Phrase.quoted(correlationID)))")
    }
}
