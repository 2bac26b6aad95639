import NavJSON
public import NavEvents

extension RuleDescription {
    static let stateMismatch = RuleDescription(
        id: "state.mismatch", severity: .error,
        summary: "A from_* field (or a pop's to_route) disagrees with the rebuilt state.",
        explanation:
            "The event claims a state (the top route, the flow, the tab) that the events before it did not produce. The audit adopts the claimed value and goes on, so that one lost event yields one finding, not a finding on every event after it.",
        likelyCauses: [
            "an event before it was lost (look for a seq.gap) or never emitted",
            "an event emitted twice, or emitted before the router changed its state",
            "a router that changed its state without emitting an event",
        ],
        triggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "route_push", #""stack":"onboarding","from_route":null,"to_route":"welcome""#),
                ExampleLog.event(2, "route_push", #""stack":"onboarding","from_route":"permissions","to_route":"signup""#))
        ],
        nonTriggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "route_push", #""stack":"onboarding","from_route":null,"to_route":"welcome""#),
                ExampleLog.event(2, "route_push", #""stack":"onboarding","from_route":"welcome","to_route":"signup""#))
        ])
}

/// `state.mismatch`'s checks: what an event claims about the state before it (its `from_*`
/// fields, a pop's `to_route`) is what the state is.
public enum StateMismatch {
    /// An `event` (its name) that claims the current flow in `field`.
    public static func check(claimedFlow claimed: String, field: String, flow: String, event: String) -> Violation? {
        guard claimed != flow else { return nil }
        return Violation(
            .stateMismatch, "\(event) claims \(field) \(Phrase.quoted(claimed)) but the flow is \(Phrase.quoted(flow))",
            expected: .string(flow), found: .string(claimed), setBy: .flow)
    }

    /// A `tab_switch` that claims the selected tab.
    public static func check(claimedTab claimed: String?, tab: String?) -> Violation? {
        guard claimed != tab else { return nil }
        return Violation(
            .stateMismatch,
            "tab_switch claims from_tab \(Phrase.value(claimed)) but the selected tab is \(Phrase.value(tab))",
            expected: .optionalString(tab), found: .optionalString(claimed), setBy: .tab)
    }

    /// A `command_applied` whose `to_flow` is not the flow the model's command goes to.
    public static func check(command: String, goesTo flow: String, claimed: String) -> Violation? {
        guard claimed != flow else { return nil }
        return Violation(
            .stateMismatch,
            "command \(Phrase.quoted(command)) goes to flow \(Phrase.quoted(flow)) in the model, "
                + "but the event claims to_flow \(Phrase.quoted(claimed))",
            expected: .string(flow), found: .string(claimed))
    }

    /// An `event` (its name) on `stack` that claims its top in `field`. `witness`: the event that
    /// set the top as it is (`afterPop`: the one that left the stack as the pop found it, for a
    /// pop's `to_route`, judged after the pop).
    public static func check(
        claimedTop claimed: String?, field: String, top: String?, stack: String, event: String, witness: EventReference?,
        afterPop: Bool
    ) -> Violation? {
        guard claimed != top else { return nil }
        let source =
            afterPop
            ? witness.map { " (the pop applied to the stack as \($0.name.rawValue) at seq \($0.seq) left it)" }
            : witness.map { " (set by \($0.name.rawValue) at seq \($0.seq))" }
        return Violation(
            .stateMismatch,
            "\(event) on \(Phrase.quoted(stack)) claims \(field) \(Phrase.top(claimed)) but the top "
                + (afterPop ? "after it is " : "is ") + Phrase.top(top) + (source ?? ""),
            expected: .optionalString(top), found: .optionalString(claimed), setBy: .event(witness))
    }
}
