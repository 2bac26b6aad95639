import NavJSON
public import NavEvents

extension RuleDescription {
    static let seqDuplicate = RuleDescription(
        id: "seq.duplicate", severity: .error,
        summary: "Two different events of one session have the same seq.",
        explanation:
            "Each event of a session has its own seq. When two different events share one, the earliest (by timestamp, then event id) is folded and the others are not. An identical repeat of an event is a redelivery, not a duplicate: it is counted and folded once.",
        likelyCauses: [
            "two writers for one session (two processes, or two app instances sharing a session id)",
            "a seq counter reset after the app restored its state",
        ],
        triggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "route_push", #""stack":"onboarding","from_route":null,"to_route":"welcome""#),
                ExampleLog.event(1, "route_push", #""stack":"onboarding","from_route":null,"to_route":"signup""#, id: "e1b"))
        ],
        nonTriggeringExamples: [
            // The same event delivered twice: a redelivery.
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "route_push", #""stack":"onboarding","from_route":null,"to_route":"welcome""#),
                ExampleLog.event(1, "route_push", #""stack":"onboarding","from_route":null,"to_route":"welcome""#))
        ])
}

/// `seq.duplicate`'s finding. Which event wins a seq is the sequence pass of `SessionAuditor`:
/// the earliest, then the smallest event id.
public enum SeqDuplicate {
    /// An event `name` at `seq` that `winner` took.
    public static func violation(seq: Int64, _ name: EventName, winner: EventReference) -> Violation {
        Violation(
            .seqDuplicate,
            "seq \(seq) is already taken by \(winner.name.rawValue) \(Phrase.quoted(winner.eventID)); this \(name.rawValue) is not folded",
            setBy: .event(winner))
    }
}
