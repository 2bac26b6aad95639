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
