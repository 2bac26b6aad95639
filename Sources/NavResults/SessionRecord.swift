public import NavJSON
import NavEvents
public import NavModel
public import NavReplay

/// The fields of one session's record (docs/outputs.md), as every format of `sessions` writes
/// them: taken from a session's audit, or read back from the NDJSON record an event store keeps
/// (`sessions --store`), so that a store's sessions come out in every format as an audit's do.
public struct SessionRecord: Sendable {
    public var sessionID: String
    public var events: Int64
    public var firstSeq: Int64?
    public var lastSeq: Int64?
    public var start: String?
    public var end: String?
    public var durationMilliseconds: Int64?
    /// The final state as its JSON text.
    public var finalState: String
    public var screens: [Screen]
    public var findings: Int64

    public init(_ audit: SessionAudit) {
        sessionID = audit.sessionID
        events = Int64(audit.events)
        firstSeq = audit.firstSeq
        lastSeq = audit.lastSeq
        start = audit.start?.text
        end = audit.end?.text
        durationMilliseconds = audit.durationMilliseconds
        finalState = audit.finalState.json
        screens = audit.screens
        findings = Int64(audit.findingCount)
    }

    /// Reads a record `SessionWriter.write` wrote; `nil` when the text is not one.
    public init?(ndjson record: String) {
        guard case .object(let object)? = try? JSONValue.parse(record),
            let sessionID = object["session_id"]?.stringValue, let events = object["events"]?.int64Value,
            let state = object["final_state"], case .object = state, let screens = object["screens"]?.arrayValue,
            let findings = object["findings"]?.int64Value
        else { return nil }
        self.sessionID = sessionID
        self.events = events
        firstSeq = object["first_seq"]?.int64Value
        lastSeq = object["last_seq"]?.int64Value
        start = object["start"]?.stringValue
        end = object["end"]?.stringValue
        durationMilliseconds = object["duration_ms"]?.int64Value
        var writer = JSONWriter()
        writer.value(state)
        finalState = writer.string
        var read: [Screen] = []
        for screen in screens {
            guard let fields = screen.objectValue else { return nil }
            if let modal = fields["modal"]?.stringValue {
                read.append(.modal(modal))
            } else if let stack = fields["stack"]?.stringValue {
                read.append(.stack(stack, route: fields["route"]?.stringValue))
            } else {
                return nil
            }
        }
        self.screens = read
        self.findings = findings
    }

    /// The screens as the record's JSON array.
    public var screensJSON: String {
        var writer = JSONWriter()
        writer.beginArray()
        for screen in screens { screen.write(to: &writer) }
        writer.endArray()
        return writer.string
    }
}
