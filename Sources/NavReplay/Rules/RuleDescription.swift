/// Everything a person needs to know about one rule: what it checks, why it matters, what
/// usually causes it, and small logs that show it.
///
/// Each rule's description lives in its own file in this directory, and only there: `Rule`'s
/// severity, summary and explanation read from it, `navreplay rules` prints it, and a test
/// audits its examples, so what the manual says a rule catches is what the audit catches.
public struct RuleDescription: Sendable {
    /// The rule's stable id, as findings carry it.
    public var id: String
    public var severity: Severity
    /// One line: what the rule checks.
    public var summary: String
    /// What a finding means, and what the audit does with the event that broke the rule.
    public var explanation: String
    /// What usually leads an app to break the rule, most common first.
    public var likelyCauses: [String]
    /// Small NDJSON logs, each of which draws at least one finding of this rule when audited
    /// with `exampleModel`. The last line is the one that breaks the rule.
    public var triggeringExamples: [String]
    /// Small NDJSON logs close to the triggering ones that draw no finding at all.
    public var nonTriggeringExamples: [String]
    /// The model file (JSON) the examples are audited with; `nil`: the built-in PoC model,
    /// which `navreplay audit` uses when given no model.
    public var exampleModel: String?

    public init(
        id: String, severity: Severity, summary: String, explanation: String, likelyCauses: [String],
        triggeringExamples: [String], nonTriggeringExamples: [String], exampleModel: String? = nil
    ) {
        self.id = id
        self.severity = severity
        self.summary = summary
        self.explanation = explanation
        self.likelyCauses = likelyCauses
        self.triggeringExamples = triggeringExamples
        self.nonTriggeringExamples = nonTriggeringExamples
        self.exampleModel = exampleModel
    }

    /// The explanation followed by the likely causes, as one paragraph for reports.
    public var fullExplanation: String {
        guard !likelyCauses.isEmpty else { return explanation }
        return explanation + " Likely causes: " + likelyCauses.joined(separator: "; ") + "."
    }
}

/// Writes the lines of the rules' example logs: the v1 envelope, with short ids, around each
/// event's own fields. Session `s1`, one second per seq from 10:00:00, and each event in its
/// own correlation group unless it is given one.
enum ExampleLog {
    static func log(_ lines: String...) -> String { log(lines) }

    static func log(_ lines: [String]) -> String { lines.joined(separator: "\n") + "\n" }

    /// One event line. `fields` is the JSON text of the event's own members, without braces.
    static func event(
        _ seq: Int, _ name: String, _ fields: String = "", id: String? = nil, session: String = "s1",
        group: String? = nil, second: Int? = nil
    ) -> String {
        let second = second ?? seq
        let time = "2026-01-01T10:\(twoDigits(second / 60)):\(twoDigits(second % 60)).000Z"
        return #"{"schema_version":1,"event_id":"\#(id ?? "e\(seq)")","event_name":"\#(name)","session_id":"\#(session)","#
            + #""seq":\#(seq),"timestamp":"\#(time)","correlation_id":"\#(group ?? "c\(seq)")","app_version":"1.0","#
            + #""platform":"ios"\#(fields.isEmpty ? "" : ",")\#(fields)}"#
    }

    static func start(session: String = "s1") -> String { event(0, "session_start", session: session) }

    /// The PoC model's login: the command to the authorized flow's first tab, with its flow switch.
    static func login(at seq: Int) -> [String] {
        [
            event(
                seq, "command_applied", #""command":"goAuthorizedTab1Root","from_flow":"onboarding","to_flow":"authorized""#,
                group: "c\(seq)"),
            event(seq + 1, "flow_switch", #""from_flow":"onboarding","to_flow":"authorized""#, group: "c\(seq)"),
        ]
    }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
