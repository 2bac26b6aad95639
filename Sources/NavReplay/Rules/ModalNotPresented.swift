import NavJSON
extension RuleDescription {
    static let modalNotPresented = RuleDescription(
        id: "modal.not_presented", severity: .error,
        summary: "A dismiss of a modal that is not presented.",
        explanation: "Nothing of that name is on screen, so the dismiss changes nothing.",
        likelyCauses: [
            "a dismiss emitted twice (by the modal and by its presenter)",
            "a present that was never logged, or was lost (look for a seq.gap)",
        ],
        triggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "modal_dismiss", #""modal":"paywall""#))
        ],
        nonTriggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "modal_present", #""modal":"paywall","style":"sheet""#),
                ExampleLog.event(2, "modal_dismiss", #""modal":"paywall""#))
        ])
}

/// `modal.not_presented`'s check: a modal dismissed is presented.
public enum ModalNotPresented {
    /// A `modal_dismiss` of `modal` with `presented` modals.
    public static func check(dismissing modal: String, presented: [String]) -> Violation? {
        guard !presented.contains(modal) else { return nil }
        return Violation(
            .modalNotPresented,
            "modal_dismiss of \(Phrase.quoted(modal)), which is not presented (presented: \(Phrase.listOrNone(presented)))",
            expected: ListedNames(presented).json, found: .string(modal), setBy: .modal(modal))
    }
}
