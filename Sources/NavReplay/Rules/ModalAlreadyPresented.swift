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
