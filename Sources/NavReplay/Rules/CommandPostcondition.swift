import NavJSON
public import NavModel

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

/// `command.postcondition`'s checks: at the end of its correlation group, a command (or a deep
/// link) has done what the model declares.
public enum CommandPostcondition {
    /// Command `name` (`spec`) at the end of group `correlationID`, with the state's `flow`,
    /// `tab` and `modals`; `notReset`: the stacks it resets that were never seen empty in the
    /// group, `routes` gives a stack's routes.
    public static func check(
        command name: String, spec: CommandSpec, flow: String, tab: String?, modals: [String], notReset: [String],
        correlationID: String, routes: (String) -> [String]?
    ) -> Violation? {
        var broken: [String] = []
        var expected = JSONObject()
        var found = JSONObject()
        if flow != spec.flow {
            broken.append("flow is \(Phrase.quoted(flow)), not \(Phrase.quoted(spec.flow))")
            expected.append("flow", .string(spec.flow))
            found.append("flow", .string(flow))
        }
        if let wanted = spec.tab, tab != wanted {
            broken.append("tab is \(Phrase.value(tab)), not \(Phrase.quoted(wanted))")
            expected.append("tab", .string(wanted))
            found.append("tab", .optionalString(tab))
        }
        if spec.dismissModals, !modals.isEmpty {
            let listed = ListedNames(modals)
            broken.append("modals are still presented (\(listed.joined(separator: ", ")))")
            expected.append("modals", .array([]))
            found.append("modals", listed.json)
        }
        if !notReset.isEmpty {
            broken.append("stack(s) \(notReset.joined(separator: ", ")) never emptied")
            expected.append("reset", .array(notReset.map(JSONValue.string)))
            found.append("reset", .array(notReset.map { ListedNames(routes($0) ?? []).json }))
        }
        guard !broken.isEmpty else { return nil }
        return Violation(
            .commandPostcondition,
            "command \(Phrase.quoted(name)) did not complete by the end of its correlation group "
                + "(\(Phrase.quoted(correlationID))): " + broken.joined(separator: "; "),
            expected: .object(expected), found: .object(found))
    }

    /// A deep link `url` (`link`; `isFallback`: the model's `fallback_command`) at the end of
    /// group `correlationID`: its command among the group's `applied` commands (`appliedSet`,
    /// and `appliedText`, as a message lists them), and its steps landed in order (`landed`: the
    /// steps that did, in the order they did; `problems`: what went wrong with them).
    public static func check(
        deepLink url: String, link: DeepLink, isFallback: Bool, landed: [Int], problems: [String], applied: ListedNames,
        appliedSet: Set<String>, appliedText: String, correlationID: String
    ) -> Violation? {
        var problems = problems
        let missingCommand = link.command.flatMap { command in appliedSet.contains(command) ? nil : command }
        if let command = missingCommand {
            problems.insert("its command \(Phrase.quoted(command)) was not applied (applied: \(appliedText))", at: 0)
        }
        guard !problems.isEmpty else { return nil }
        var expected = JSONObject()
        var found = JSONObject()
        if let command = missingCommand {
            expected.append("command", .string(command))
            found.append("commands", applied.json)
        }
        if !link.steps.isEmpty {
            expected.append("steps", .array(link.steps.map { JSONValue.string(describe($0)) }))
            found.append("steps", .array(landed.map { JSONValue.string(describe(link.steps[$0])) }))
        }
        let which = isFallback ? "(outcome fallback)" : "(pattern \(Phrase.quoted(link.pattern.joined(separator: "/"))))"
        let what = missingCommand == nil ? "did not land its steps in the declared order" : "did not do what the model declares"
        return Violation(
            .commandPostcondition,
            "deep link \(Phrase.quoted(url)) \(which) \(what) in its correlation group "
                + "(\(Phrase.quoted(correlationID))): " + problems.joined(separator: "; "),
            expected: .object(expected), found: .object(found))
    }

    /// A deep link step, as findings name it.
    public static func describe(_ step: DeepLinkStep) -> String {
        switch step {
        case .selectTab(let tab): "tab \(tab)"
        case .push(let stack, let route): "push \(stack)/\(route)"
        case .present(let modal, let style): "present \(modal) (\(style))"
        }
    }
}
