import NavJSON
public import NavModel

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

/// `tab.invalid`'s checks: a tab selected is one of the active flow's tabs.
public enum TabInvalid {
    /// Why a tab cannot be selected.
    public enum Problem: Sendable, Hashable {
        /// The flow has no tabs.
        case noTabs
        /// The flow's tabs do not include it.
        case notATab(tabs: [String])
    }

    /// A `tab_switch` to `tab` in a flow (`flowSpec`: its spec, `nil` for an undeclared flow).
    public static func check(switchingTo tab: String, flowSpec: FlowSpec?) -> Problem? {
        guard let tabs = flowSpec?.tabs else { return .noTabs }
        return tabs.contains(tab) ? nil : .notATab(tabs: tabs)
    }

    public static func violation(_ problem: Problem, switchingTo tab: String, flow: String) -> Violation {
        switch problem {
        case .noTabs:
            return Violation(
                .tabInvalid, "tab_switch to \(Phrase.quoted(tab)) in flow \(Phrase.quoted(flow)), which has no tabs",
                found: .string(tab), setBy: .flow)
        case .notATab(let tabs):
            let listed = ListedNames(tabs)
            return Violation(
                .tabInvalid,
                "flow \(Phrase.quoted(flow)) has no tab \(Phrase.quoted(tab)) (its tabs: \(listed.joined(separator: ", ")))",
                expected: listed.json, found: .string(tab))
        }
    }

    /// A snapshot's tab, in its declared `flow`: one of the flow's tabs, if the flow has tabs.
    public static func check(restoring tab: String?, flow: String, model: NavigationModel) -> Violation? {
        guard let tabs = model.flows[flow]?.tabs, !(tab.map(tabs.contains) ?? false) else { return nil }
        let listed = ListedNames(tabs)
        return Violation(
            .tabInvalid,
            "the snapshot's tab \(Phrase.value(tab)) is not a tab of flow \(Phrase.quoted(flow)) "
                + "(its tabs: \(listed.joined(separator: ", ")))",
            expected: listed.json, found: .optionalString(tab))
    }
}
