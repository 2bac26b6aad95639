import NavJSON
import NavEvents
extension RuleDescription {
    static let eventIDConflict = RuleDescription(
        id: "event_id.conflict", severity: .error,
        summary: "One event_id carries two different contents.",
        explanation:
            "An event_id names one event. An identical repeat is a redelivery and is folded once; a different content under an id already seen (in this session or an earlier one) is this finding, and the later event is not folded.",
        likelyCauses: [
            "an event id generator that is not unique (a counter restarted, a truncated UUID)",
            "an event rewritten after it was first sent",
        ],
        triggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "route_push", #""stack":"onboarding","from_route":null,"to_route":"welcome""#),
                ExampleLog.event(2, "route_push", #""stack":"onboarding","from_route":"welcome","to_route":"signup""#, id: "e1"))
        ],
        nonTriggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "route_push", #""stack":"onboarding","from_route":null,"to_route":"welcome""#),
                ExampleLog.event(2, "route_push", #""stack":"onboarding","from_route":"welcome","to_route":"signup""#))
        ])
}

/// `event_id.conflict`'s findings. Which occurrence of an id is its owner is the identity pass
/// of `SessionAuditor` (and, across sessions, `EarlierOccurrence`); these are what it reports.
public enum EventIDConflict {
    /// An event whose id an earlier event of the session, `first`, has with another content.
    public static func violation(eventID: String, first: EventReference) -> Violation {
        Violation(
            .eventIDConflict,
            "event_id \(Phrase.quoted(eventID)) was first seen at seq \(first.seq) (\(first.name.rawValue)) with a different content",
            setBy: .event(first))
    }

    /// An event whose id a different event of an earlier session, `first` of `sessionID`, has.
    public static func violation(eventID: String, firstSession sessionID: String, first: EventReference) -> Violation {
        Violation(
            .eventIDConflict,
            "event_id \(Phrase.quoted(eventID)) was first seen in session \(Phrase.quoted(sessionID)) at seq "
                + "\(first.seq) (\(first.name.rawValue)), a different event",
            setBy: .event(first))
    }
}
