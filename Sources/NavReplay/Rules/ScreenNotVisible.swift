import NavJSON
public import NavModel

extension RuleDescription {
    static let screenNotVisible = RuleDescription(
        id: "screen.not_visible", severity: .warning,
        summary: "A screen_view of a screen that is not the visible one.",
        explanation:
            "The app reported a screen as shown that the rebuilt state does not show (the top of the active stack, or the top modal). The audit adopts the reported screen without changing the flow or the tab.",
        likelyCauses: [
            "a navigation event that is missing",
            "a screen view logged before the router changed its state",
        ],
        triggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "screen_view", #""stack":"onboarding","to_route":"welcome""#))
        ],
        nonTriggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "route_push", #""stack":"onboarding","from_route":null,"to_route":"welcome""#),
                ExampleLog.event(2, "screen_view", #""stack":"onboarding","to_route":"welcome""#, group: "c1"))
        ])
}

/// `screen.not_visible`'s check: a screen view names the visible screen.
public enum ScreenNotVisible {
    /// A `screen_view` of `claimed` (in canonical form: a modal's stack at its root is the modal)
    /// while `visible` is shown.
    public static func check(claimed: Screen, visible: Screen?) -> Violation? {
        guard visible != claimed else { return nil }
        let setBy: Violation.Setter =
            switch visible {
            case .modal(let modal): .modal(modal)
            case .stack(let stack, _): .stack(stack)
            case nil: .flow
            }
        return Violation(
            .screenNotVisible, "screen_view of \(claimed.label) but the visible screen is \(visible?.label ?? "none")",
            expected: visible.map { .string($0.label) } ?? .null, found: .string(claimed.label), setBy: setBy)
    }
}
