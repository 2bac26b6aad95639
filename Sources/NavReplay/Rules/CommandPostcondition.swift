extension RuleDescription {
    static let commandPostcondition = RuleDescription(
        id: "command.postcondition", severity: .error,
        summary: "A command's correlation group does not do what the model says the command does.",
        explanation:
            "A command declares where it leaves the router: its flow and tab, the stacks it resets (emptied), and whether it dismisses the modals. At the end of the command's correlation group the state must be that; the finding names what differs.",
        likelyCauses: [
            "a command handler that forgot a step (the tab switch, a reset)",
            "part of the command's work logged in another correlation group",
            "a model that promises more than the app's command does",
        ],
        triggeringExamples: [
            // goAuthorizedTab2Root ends on tab2: the group never switches the tab.
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(
                    1, "command_applied", #""command":"goAuthorizedTab2Root","from_flow":"onboarding","to_flow":"authorized""#),
                ExampleLog.event(2, "flow_switch", #""from_flow":"onboarding","to_flow":"authorized""#, group: "c1"))
        ],
        nonTriggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(
                    1, "command_applied", #""command":"goAuthorizedTab2Root","from_flow":"onboarding","to_flow":"authorized""#),
                ExampleLog.event(2, "flow_switch", #""from_flow":"onboarding","to_flow":"authorized""#, group: "c1"),
                ExampleLog.event(3, "tab_switch", #""from_tab":"tab1","to_tab":"tab2""#, group: "c1"))
        ])
}
