import NavJSON
public import NavEvents
public import NavModel

extension RuleDescription {
    static let stackUnknown = RuleDescription(
        id: "stack.unknown", severity: .error,
        summary: "A stack operation on a stack the model does not declare.",
        explanation: "The stack is not in the model, so the operation cannot be checked or applied: the event is not folded.",
        likelyCauses: [
            "a model file older than the app",
            "an event that names the stack wrongly (a typo, or a screen's name instead of its stack's)",
        ],
        triggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "route_push", #""stack":"cart","from_route":null,"to_route":"welcome""#))
        ],
        nonTriggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "route_push", #""stack":"onboarding","from_route":null,"to_route":"welcome""#))
        ])
}

/// `stack.unknown`'s check: the model declares every stack an event or a snapshot names.
public enum StackUnknown {
    /// The stack's number in the model's table, or `nil` when the model does not declare it
    /// (then `violation(of:operation:)` or `violation(inSnapshot:)` is the finding).
    public static func check(_ stack: String, model: NavigationModel) -> Int? {
        model.stackTable.number(of: stack)
    }

    /// The finding of an operation (`route_push`…) on an undeclared stack: it is not applied.
    public static func violation(of stack: String, operation: EventName) -> Violation {
        Violation(
            .stackUnknown, "\(operation.rawValue) on stack \(Phrase.quoted(stack)), which the model does not declare; not applied",
            found: .string(stack))
    }

    /// The finding of a snapshot's undeclared stack: it is dropped.
    public static func violation(inSnapshot stack: String) -> Violation {
        Violation(
            .stackUnknown, "the snapshot has stack \(Phrase.quoted(stack)), which the model does not declare; it is dropped",
            found: .string(stack))
    }
}
