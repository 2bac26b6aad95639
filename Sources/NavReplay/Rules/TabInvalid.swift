extension RuleDescription {
    static let tabInvalid = RuleDescription(
        id: "tab.invalid", severity: .error,
        summary: "A tab switch in a flow without tabs, or to a tab the flow does not have.",
        explanation: "The active flow has no such tab. The switch is adopted, so the session goes on folding as written.",
        likelyCauses: [
            "a tab switch from a stale screen of another flow",
            "a model file older than the app",
        ],
        triggeringExamples: [
            ExampleLog.log(
                [ExampleLog.start()] + ExampleLog.login(at: 1)
                    + [ExampleLog.event(3, "tab_switch", #""from_tab":"tab1","to_tab":"tab3""#)]),
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "tab_switch", #""from_tab":"tab1","to_tab":"tab2""#)),
        ],
        nonTriggeringExamples: [
            ExampleLog.log(
                [ExampleLog.start()] + ExampleLog.login(at: 1)
                    + [ExampleLog.event(3, "tab_switch", #""from_tab":"tab1","to_tab":"tab2""#)])
        ])
}
