import NavJSON
public import NavEvents

extension RuleDescription {
    static let analyticsDuplicate = RuleDescription(
        id: "analytics.duplicate", severity: .warning,
        summary: "One action emitted the same event twice.",
        explanation:
            "One user action (one correlation group) should produce each event once. The same event twice in one group, under two event ids, inflates the analytics built on these logs.",
        likelyCauses: [
            "analytics emitted from two layers (the view and its coordinator)",
            "an observer registered twice",
        ],
        triggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "route_push", #""stack":"onboarding","from_route":null,"to_route":"welcome""#),
                ExampleLog.event(2, "screen_view", #""stack":"onboarding","to_route":"welcome""#, group: "c1"),
                ExampleLog.event(3, "screen_view", #""stack":"onboarding","to_route":"welcome""#, group: "c1"))
        ],
        nonTriggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "route_push", #""stack":"onboarding","from_route":null,"to_route":"welcome""#),
                ExampleLog.event(2, "screen_view", #""stack":"onboarding","to_route":"welcome""#, group: "c1"))
        ])
}

/// `analytics.duplicate`'s check: one action writes each event once.
public enum AnalyticsDuplicate {
    /// An event of group `correlationID` whose content an `earlier` event of the group had.
    public static func check(_ event: EventName, earlier: EventReference?, correlationID: String) -> Violation? {
        guard let earlier else { return nil }
        return Violation(
            .analyticsDuplicate,
            "\(event.rawValue) repeats seq \(earlier.seq) of the same correlation group "
                + "(\(Phrase.quoted(correlationID))): one action, one event",
            setBy: .event(earlier))
    }

    /// The events one action is about to write, in one correlation group (a router's
    /// transaction): the name of the first that repeats an earlier one, if any. Within one
    /// group, the same payload is the same content.
    public static func check(group payloads: [NavigationEvent.Payload]) -> EventName? {
        var seen: Set<NavigationEvent.Payload> = []
        for payload in payloads where !seen.insert(payload).inserted { return payload.name }
        return nil
    }
}
