import NavEvents
import NavJSON
import NavModel
import NavReplay
import Testing

// Small builders for the rule tests: events are written as JSON lines, decoded by the real
// `EventDecoder` and audited by `SessionAuditor`, so every test goes through the same path as
// `navreplay audit`. (Deliberately independent of NavTestSupport.)

/// A JSON value written into an event line.
enum Field: Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByNilLiteral
{
    case string(String)
    case int(Int64)
    case bool(Bool)
    case null
    /// JSON text written as is (objects, arrays).
    case raw(String)

    init(stringLiteral value: String) { self = .string(value) }
    init(integerLiteral value: Int64) { self = .int(value) }
    init(booleanLiteral value: Bool) { self = .bool(value) }
    init(nilLiteral: ()) { self = .null }

    /// A string, or `null` for `nil`.
    static func optional(_ value: String?) -> Field { value.map(Field.string) ?? .null }

    var json: String {
        switch self {
        case .string(let text): JSONWriter.quoted(text)
        case .int(let value): String(value)
        case .bool(let value): value ? "true" : "false"
        case .null: "null"
        case .raw(let text): text
        }
    }
}

/// One event's name and payload fields (the envelope is added by `SessionLog`).
struct EventSpec: Sendable {
    var name: String
    var fields: [(String, Field)]

    init(_ name: String, _ fields: [(String, Field)] = []) {
        self.name = name
        self.fields = fields
    }

    static func start(snapshot: String? = nil) -> EventSpec {
        EventSpec("session_start", [("app_version", "1.0")] + (snapshot.map { [("snapshot", Field.raw($0))] } ?? []))
    }
    static func push(_ stack: String, from: String?, to: String) -> EventSpec {
        EventSpec("route_push", [("stack", .string(stack)), ("from_route", .optional(from)), ("to_route", .string(to))])
    }
    static func pop(_ stack: String, from: String?, to: String?, count: Int64 = 1) -> EventSpec {
        EventSpec(
            "route_pop",
            [("stack", .string(stack)), ("from_route", .optional(from)), ("to_route", .optional(to)), ("count", .int(count))])
    }
    static func popToRoot(_ stack: String, from: String?) -> EventSpec {
        EventSpec(
            "route_pop", [("stack", .string(stack)), ("from_route", .optional(from)), ("to_route", .null), ("to_root", true)])
    }
    static func replace(_ stack: String, from: String?, to: String) -> EventSpec {
        EventSpec("route_replace", [("stack", .string(stack)), ("from_route", .optional(from)), ("to_route", .string(to))])
    }
    static func popTo(_ stack: String, from: String?, to: String?) -> EventSpec {
        EventSpec("route_pop_to", [("stack", .string(stack)), ("from_route", .optional(from)), ("to_route", .optional(to))])
    }
    static func insert(_ stack: String, _ route: String, at index: Int64) -> EventSpec {
        EventSpec("route_insert", [("stack", .string(stack)), ("to_route", .string(route)), ("index", .int(index))])
    }
    static func remove(_ stack: String, _ route: String) -> EventSpec {
        EventSpec("route_remove", [("stack", .string(stack)), ("to_route", .string(route))])
    }
    static func flow(from: String, to: String) -> EventSpec {
        EventSpec("flow_switch", [("from_flow", .string(from)), ("to_flow", .string(to))])
    }
    static func tab(from: String?, to: String) -> EventSpec {
        EventSpec("tab_switch", [("from_tab", .optional(from)), ("to_tab", .string(to))])
    }
    static func command(_ name: String, from: String, to: String) -> EventSpec {
        EventSpec("command_applied", [("command", .string(name)), ("from_flow", .string(from)), ("to_flow", .string(to))])
    }
    static func present(_ modal: String, style: String = "sheet") -> EventSpec {
        EventSpec("modal_present", [("modal", .string(modal)), ("style", .string(style))])
    }
    static func dismiss(_ modal: String) -> EventSpec {
        EventSpec("modal_dismiss", [("modal", .string(modal))])
    }
    static func view(_ stack: String, _ route: String?) -> EventSpec {
        EventSpec("screen_view", [("stack", .string(stack)), ("to_route", .optional(route))])
    }
    static func viewModal(_ modal: String) -> EventSpec {
        EventSpec("screen_view", [("modal", .string(modal))])
    }
    static func deepLink(_ url: String, outcome: String = "resolved") -> EventSpec {
        EventSpec("deep_link", [("url", .string(url)), ("outcome", .string(outcome))])
    }
}

/// Writes one session's events as NDJSON lines: seq counts up from 0, timestamps one second
/// apart, event ids `e<seq>`, and a correlation id of its own per event unless one is given.
struct SessionLog {
    var sessionID = "s1"
    private(set) var lines: [String] = []
    var nextSeq: Int64 = 0

    init(sessionID: String = "s1") {
        self.sessionID = sessionID
    }

    /// Writes one event and returns its seq.
    @discardableResult
    mutating func add(
        _ spec: EventSpec, group: String? = nil, seq: Int64? = nil, eventID: String? = nil, timestamp: String? = nil
    ) -> Int64 {
        let seq = seq ?? nextSeq
        nextSeq = seq + 1
        lines.append(
            Self.line(
                spec, sessionID: sessionID, seq: seq, eventID: eventID ?? "e\(seq)",
                timestamp: timestamp ?? Self.timestamp(second: seq), correlationID: group ?? "c\(seq)"))
        return seq
    }

    /// Writes events sharing one correlation id (one command, one deep link); returns the first seq.
    @discardableResult
    mutating func group(_ id: String, _ specs: EventSpec...) -> Int64 {
        let first = nextSeq
        for spec in specs { add(spec, group: id) }
        return first
    }

    /// Skips seqs, as if events were lost.
    mutating func lose(_ count: Int64 = 1) { nextSeq += count }

    /// Writes a raw line as it is.
    mutating func raw(_ line: String) { lines.append(line) }

    static func line(
        _ spec: EventSpec, sessionID: String, seq: Int64, eventID: String, timestamp: String, correlationID: String
    ) -> String {
        var members: [(String, Field)] = [
            ("schema_version", 1), ("event_id", .string(eventID)), ("event_name", .string(spec.name)),
            ("session_id", .string(sessionID)), ("seq", .int(seq)), ("timestamp", .string(timestamp)),
            ("correlation_id", .string(correlationID)),
        ]
        members += spec.fields
        return "{" + members.map { JSONWriter.quoted($0.0) + ":" + $0.1.json }.joined(separator: ",") + "}"
    }

    /// `2026-11-20T10:MM:SSZ`, `second` seconds after 10:00:00.
    static func timestamp(second: Int64) -> String {
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "2026-11-20T\(two(10 + second / 3600)):\(two(second / 60 % 60)):\(two(second % 60))Z"
    }
}

/// Decodes lines with the real decoder, numbering them from 1 in file 0.
func sessionLines(_ lines: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> [SessionLine] {
    try lines.enumerated().map { offset, text in
        switch EventDecoder().decode(text) {
        case .success(let decoded):
            return SessionLine(decoded: decoded, location: LineLocation(file: 0, line: Int64(offset + 1)))
        case .failure(let error):
            Issue.record("test line \(offset + 1) does not decode: \(error)\n\(text)", sourceLocation: sourceLocation)
            throw error
        }
    }
}

/// Audits a log's lines as one session.
func audit(
    _ log: SessionLog, model: NavigationModel = .poc, options: SessionAuditOptions = .init(),
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> SessionAudit {
    try audit(lines: log.lines, sessionID: log.sessionID, model: model, options: options, sourceLocation: sourceLocation)
}

func audit(
    lines: [String], sessionID: String = "s1", model: NavigationModel = .poc, options: SessionAuditOptions = .init(),
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> SessionAudit {
    SessionAuditor.audit(
        sessionID: sessionID, lines: try sessionLines(lines, sourceLocation: sourceLocation), model: model,
        options: options)
}

/// `rule@seq` for each finding, in output order: a readable diff when a test fails.
func summary(_ audit: SessionAudit) -> [String] {
    audit.findings.map { "\($0.rule.rawValue)@\($0.seq.map(String.init) ?? "-")" }
}

/// The only finding of a rule, or a recorded issue.
func onlyFinding(
    _ rule: Rule, in audit: SessionAudit, sourceLocation: SourceLocation = #_sourceLocation
) throws -> Finding {
    let matching = audit.findings.filter { $0.rule == rule }
    #expect(matching.count == 1, "expected one \(rule.rawValue), got \(summary(audit))", sourceLocation: sourceLocation)
    return try #require(matching.first, sourceLocation: sourceLocation)
}

/// A model loaded from JSON text in a test, failing the test if it does not load.
func makeModel(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> NavigationModel {
    do {
        return try NavigationModel.load(json: json)
    } catch {
        Issue.record("test model does not load: \(error)", sourceLocation: sourceLocation)
        throw error
    }
}

/// `JSONValue` shorthands for expected/found assertions.
func jsonStrings(_ values: String...) -> JSONValue { .array(values.map(JSONValue.string)) }

extension SessionLog {
    /// A session that starts at seq 0 in the PoC's initial state (onboarding).
    static func started(_ sessionID: String = "s1") -> SessionLog {
        var log = SessionLog(sessionID: sessionID)
        log.add(.start())
        return log
    }

    /// A session that starts in the PoC's authorized flow on `tab`, with `routes` on that tab's stack.
    static func authorized(
        tab: String = "tab1", routes: [String] = [], modals: [String] = [], sessionID: String = "s1"
    )
        -> SessionLog
    {
        var log = SessionLog(sessionID: sessionID)
        let stack = "[" + routes.map(JSONWriter.quoted).joined(separator: ",") + "]"
        let modalList = "[" + modals.map(JSONWriter.quoted).joined(separator: ",") + "]"
        log.add(
            .start(
                snapshot: #"{"flow":"authorized","tab":"\#(tab)","stacks":{"\#(tab)":\#(stack)},"modals":\#(modalList)}"#))
        return log
    }
}
