import NavJSON
extension RuleDescription {
    static let modalAlreadyPresented = RuleDescription(
        id: "modal.already_presented", severity: .warning,
        summary: "A present of a modal that is already presented.",
        explanation: "The modal is already on screen; presenting it again does not add it twice.",
        likelyCauses: [
            "a double tap on the button that presents it",
            "a dismiss that was never logged",
        ],
        triggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "modal_present", #""modal":"paywall","style":"sheet""#),
                ExampleLog.event(2, "modal_present", #""modal":"paywall","style":"sheet""#))
        ],
        nonTriggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "modal_present", #""modal":"paywall","style":"sheet""#),
                ExampleLog.event(2, "modal_dismiss", #""modal":"paywall""#),
                ExampleLog.event(3, "modal_present", #""modal":"paywall","style":"sheet""#))
        ])
}

/// `modal.already_presented`'s check: a modal is presented at most once.
public enum ModalAlreadyPresented {
    /// A `modal_present` of `modal` over `presented`.
    public static func check(presenting modal: String, presented: [String]) -> Violation? {
        guard presented.contains(modal) else { return nil }
        return Violation(
            .modalAlreadyPresented, "modal \(Phrase.quoted(modal)) is already presented; it is not added twice",
            setBy: .modal(modal))
    }

    /// A snapshot's modal, listed after `listed` others.
    public static func check(restoring modal: String, listed: [String]) -> Violation? {
        guard listed.contains(modal) else { return nil }
        return Violation(
            .modalAlreadyPresented, "the snapshot lists modal \(Phrase.quoted(modal)) twice; it is kept once",
            found: .string(modal))
    }
}
