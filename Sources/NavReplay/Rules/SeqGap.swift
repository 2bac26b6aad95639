import NavJSON
public import NavEvents

extension RuleDescription {
    static let seqGap = RuleDescription(
        id: "seq.gap", severity: .warning,
        summary: "Seq numbers are missing: events were lost.",
        explanation:
            "The events between two seqs never arrived. The session is folded without them; findings after a gap are marked as such, since they may be consequences of the loss rather than bugs of their own.",
        likelyCauses: [
            "events lost in transit or dropped by a full buffer",
            "events filtered upstream, before the logs were collected",
            "logs of one session split over files that were not all given",
        ],
        triggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(2, "route_push", #""stack":"onboarding","from_route":null,"to_route":"welcome""#))
        ],
        nonTriggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "route_push", #""stack":"onboarding","from_route":null,"to_route":"welcome""#))
        ])
}

/// `seq.gap`'s check: a session's folded seqs follow each other.
public enum SeqGap {
    /// An event at `seq` after the event `previous` (at `previousSeq`).
    public static func check(seq: Int64, previousSeq: Int64, previous: EventReference?) -> Violation? {
        guard seq > previousSeq + 1 else { return nil }
        let missing = seq - previousSeq - 1
        return Violation(
            .seqGap,
            "seq \(previousSeq + 1)\(missing > 1 ? "...\(seq - 1)" : "") missing: \(missing) event(s) lost before this one",
            expected: .number(String(previousSeq + 1)), found: .number(String(seq)), setBy: .event(previous))
    }
}
