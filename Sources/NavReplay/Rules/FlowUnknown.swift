import NavJSON
public import NavModel

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

/// `flow.unknown`'s check: every flow named is declared.
public enum FlowUnknown {
    /// Where a flow is named.
    public enum Source: Sendable {
        /// A `session_start` snapshot's flow.
        case snapshot
        /// A `flow_switch`'s `to_flow`.
        case flowSwitch
        /// A `command_applied`'s `to_flow`.
        case command
    }

    public static func check(_ flow: String, in source: Source, model: NavigationModel) -> Violation? {
        guard model.flows[flow] == nil else { return nil }
        let message =
            switch source {
            case .snapshot: "the snapshot's flow \(Phrase.quoted(flow)) is not declared in the model"
            case .flowSwitch: "flow_switch to \(Phrase.quoted(flow)), a flow the model does not declare"
            case .command: "command_applied names to_flow \(Phrase.quoted(flow)), a flow the model does not declare"
            }
        return Violation(.flowUnknown, message, found: .string(flow))
    }
}
