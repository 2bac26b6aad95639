extension RuleDescription {
    static let schemaInvalid = RuleDescription(
        id: "schema.invalid", severity: .error,
        summary: "A line is not a valid v1 event.",
        explanation:
            "The line cannot be read as a v1 event, so it belongs to no session and is not folded. The finding names the field at fault and the line; `--quarantine FILE` keeps the line's bytes.",
        likelyCauses: [
            "a torn write when the app was killed mid-line",
            "an app version that writes a field with the wrong type or an unknown event name",
            "corruption in transit",
            "a file that is not NDJSON at all (CSV, or one pretty-printed JSON document)",
        ],
        triggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                #"{"schema_version":1,"event_id":"e1","event_name":"route_push","session_id":"s1","seq":"1","timestamp":"2026-01-01T10:00:01.000Z","correlation_id":"c1","app_version":"1.0","platform":"ios","stack":"onboarding","from_route":null,"to_route":"welcome"}"#
            ),
            ExampleLog.log(ExampleLog.start(), #"{"schema_version":1,"event_id":"e1","event_name":"route_pu"#),
        ],
        nonTriggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "route_push", #""stack":"onboarding","from_route":null,"to_route":"welcome""#))
        ])
}
