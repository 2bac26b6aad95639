import NavJSON
public import NavEvents

extension RuleDescription {
    static let sessionNoStart = RuleDescription(
        id: "session.no_start", severity: .warning,
        summary: "The session does not begin with session_start at seq 0.",
        explanation:
            "Without session_start at seq 0 the audit cannot know the state the session began in; it assumes the model's initial state, so the findings that follow may be wrong. A session_start later in a session resets the state.",
        likelyCauses: [
            "the first events of the session were lost or are in a file that was not given",
            "the app logs session_start only on a cold launch, not when it resumes",
        ],
        triggeringExamples: [
            ExampleLog.log(
                ExampleLog.event(0, "route_push", #""stack":"onboarding","from_route":null,"to_route":"welcome""#))
        ],
        nonTriggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "route_push", #""stack":"onboarding","from_route":null,"to_route":"welcome""#))
        ])
}

/// `session.no_start`'s check: a session begins with `session_start` at seq 0, and has no other.
public enum SessionNoStart {
    /// An event `name` at `seq`; `previous`: the event folded before it (`nil`: it is the
    /// session's first).
    public static func check(_ name: EventName, seq: Int64, previous: EventReference?) -> Violation? {
        let isStart = name == .sessionStart
        // Matched rather than compared with `nil`: the comparison copies and destroys the
        // reference through the runtime, at every event.
        guard case .some = previous else {
            if isStart && seq == 0 { return nil }
            return Violation(
                .sessionNoStart,
                isStart
                    ? "the session starts with session_start at seq \(seq), not 0: earlier events were lost"
                    : "the session begins with \(name.rawValue) at seq \(seq), not session_start at seq 0; "
                        + "folding from the model's initial state")
        }
        guard isStart else { return nil }
        return Violation(
            .sessionNoStart, "session_start at seq \(seq), after the session began: the state is reset", setBy: .event(previous))
    }
}
