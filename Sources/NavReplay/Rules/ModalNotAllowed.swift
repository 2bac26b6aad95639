extension RuleDescription {
    static let modalNotAllowed = RuleDescription(
        id: "modal.not_allowed", severity: .error,
        summary: "A modal presented where the model does not allow it.",
        explanation:
            "The model says in which flows each modal may appear, in which styles, and how many modals a flow may show at once. A modal outside those limits (or one the model does not declare) was presented; it is applied.",
        likelyCauses: [
            "a modal presented from a screen of another flow, or after a flow switch it should not survive",
            "a new modal, or a model file older than the app",
            "a second modal stacked where the flow allows one",
        ],
        triggeringExamples: [
            ExampleLog.log(
                [ExampleLog.start()] + ExampleLog.login(at: 1)
                    + [ExampleLog.event(3, "modal_present", #""modal":"paywall","style":"sheet""#)]),
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "modal_present", #""modal":"promo","style":"sheet""#)),
        ],
        nonTriggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "modal_present", #""modal":"paywall","style":"sheet""#))
        ])
}
