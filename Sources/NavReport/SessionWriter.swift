public import NavJSON
import NavEvents
import NavModel
public import NavReplay
public import NavResults

/// One record per session (docs/outputs.md): `session_id, events, first_seq, last_seq, start, end,
/// duration_ms, final_state, screens, findings`.
public enum SessionWriter {
    public static func write(_ audit: SessionAudit, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("session_id", audit.sessionID)
        writer.member("events", audit.events)
        writer.key("first_seq")
        if let seq = audit.firstSeq { writer.int(seq) } else { writer.null() }
        writer.key("last_seq")
        if let seq = audit.lastSeq { writer.int(seq) } else { writer.null() }
        writer.member("start", audit.start?.text)
        writer.member("end", audit.end?.text)
        writer.key("duration_ms")
        if let duration = audit.durationMilliseconds { writer.int(duration) } else { writer.null() }
        writer.key("final_state")
        audit.finalState.write(to: &writer)
        writer.key("screens")
        writer.beginArray()
        for screen in audit.screens { screen.write(to: &writer) }
        writer.endArray()
        writer.member("findings", audit.findingCount)
        writer.endObject()
    }

    public static func ndjson(_ run: AuditRun) -> [UInt8] {
        run.sessions.flatMap(ndjsonLine)
    }

    /// One session's record and a line break (for streamed output).
    public static func ndjsonLine(_ audit: SessionAudit) -> [UInt8] {
        var writer = JSONWriter()
        write(audit, to: &writer)
        var output = writer.bytes
        output.append(0x0A)
        return output
    }

    public static func json(_ run: AuditRun) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginArray()
        for audit in run.sessions { write(audit, to: &writer) }
        writer.endArray()
        var bytes = writer.bytes
        bytes.append(0x0A)
        return bytes
    }

    /// One session's record, an element of `json(_:)`'s array (for streamed output: the
    /// array's brackets and commas are the caller's).
    public static func jsonRecord(_ audit: SessionAudit) -> [UInt8] {
        var writer = JSONWriter()
        write(audit, to: &writer)
        return writer.bytes
    }

    /// RFC 4180 CSV with a header; `final_state` and `screens` are JSON text in their cells.
    public static func csv(_ run: AuditRun) -> [UInt8] {
        csvHeader + run.sessions.flatMap(csvRow)
    }

    /// The CSV header line.
    public static let csvHeader = Array("session_id,events,first_seq,last_seq,start,end,duration_ms,final_state,screens,findings\r\n".utf8)

    /// One session's CSV row, ending in CRLF (for streamed output).
    public static func csvRow(_ audit: SessionAudit) -> [UInt8] { csvRow(SessionRecord(audit)) }

    /// The CSV row of a session's record.
    public static func csvRow(_ record: SessionRecord) -> [UInt8] {
        let cells: [String] = [
            record.sessionID, String(record.events), record.firstSeq.map(String.init) ?? "",
            record.lastSeq.map(String.init) ?? "", record.start ?? "", record.end ?? "",
            record.durationMilliseconds.map(String.init) ?? "", record.finalState, record.screensJSON,
            String(record.findings),
        ]
        return Array((cells.map(csvCell).joined(separator: ",") + "\r\n").utf8)
    }

    /// Quotes a cell when it holds a separator, a quote or a line break; defuses formulas; shows
    /// format characters as escapes (a spreadsheet would render them: see `safe`). Control
    /// characters stay data, quoted.
    static func csvCell(_ value: String) -> String {
        var text = escapingFormatCharacters(value)
        // A cell starting with = + - @ is run as a formula by spreadsheets: prefix a quote.
        if let first = text.first, "=+-@".contains(first), Int64(text) == nil { text = "'" + text }
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingAll("\"", with: "\"\"") + "\""
    }

    public static func text(_ run: AuditRun, style: TextStyle) -> String {
        run.sessions.isEmpty ? "\n" : run.sessions.map { textLines($0, style: style) }.joined()
    }

    /// One session's three lines of `text(_:style:)`, each ended by a line break.
    public static func textLines(_ audit: SessionAudit, style: TextStyle) -> String { textLines(SessionRecord(audit), style: style) }

    /// The text lines of a session's record.
    public static func textLines(_ record: SessionRecord, style: TextStyle) -> String {
        let duration = record.durationMilliseconds.map { "\($0) ms" } ?? "-"
        return style.bold("session \(safe(record.sessionID))")
            + "  \(record.events) event(s), seq \(record.firstSeq.map(String.init) ?? "-")...\(record.lastSeq.map(String.init) ?? "-"), "
            + "\(duration), \(record.findings) finding(s)\n"
            + "  final: \(safe(record.finalState))\n"
            + "  screens: " + record.screens.map { safe($0.label) }.joined(separator: " → ") + "\n"
    }
}

/// The state after each event of one session (`navreplay replay`).
///
/// Written entry by entry (`write`): a replay's output grows with depth x events (the whole
/// state after each event), so it is never held whole.
public enum ReplayWriter {
    /// One entry of a replay: a folded event (a step, with the state after it and what it
    /// changed), or a line not folded (`seq.duplicate`).
    enum Entry {
        case step(ReplayStep, state: NavigationState, changes: [StateChange])
        case unfolded(UnfoldedLine)

        /// What both kinds have: the event, where its line is, and its findings.
        var parts: (event: NavigationEvent, location: LineLocation, findings: [Finding]) {
            switch self {
            case .step(let step, _, _): (step.event, step.location, step.findings)
            case .unfolded(let line): (line.event, line.location, line.findings)
            }
        }
    }

    /// The steps in order, each line not folded after the step of its seq (the event that won it).
    static func forEachEntry(_ audit: SessionAudit, _ body: (Entry) throws -> Void) throws {
        try withoutActuallyEscaping(body) { body in
            try audit.forEachEntry(
                step: { step, cursor in try body(.step(step, state: cursor.state, changes: cursor.changes)) },
                unfolded: { try body(.unfolded($0)) })
        }
    }

    /// One NDJSON line per entry, each passed to `write` as it is made. Throws what `write`
    /// throws, or what reading back the steps of a session audited from disk throws.
    public static func ndjson(_ audit: SessionAudit, files: [String], write: ([UInt8]) throws -> Void) throws {
        var writer = JSONWriter()
        let newline: [UInt8] = [0x0A]
        try forEachEntry(audit) { entry in
            writer.removeAll()
            writer.beginObject()
            let (event, location, findings) = entry.parts
            writer.member("seq", event.seq)
            writer.member("event_id", event.eventID)
            writer.member("event_name", event.name.rawValue)
            writer.member("file", FindingWriter.path(location, files))
            writer.member("line", location.line)
            switch entry {
            case .step(_, let state, let changes):
                writer.key("state")
                state.write(to: &writer)
                writer.key("changes")
                writer.beginArray()
                for change in changes { writer.string(change.description) }
                writer.endArray()
            case .unfolded:
                writer.member("folded", false)  // a line whose event was not folded: no state of its own
            }
            writer.key("findings")
            writer.beginArray()
            for finding in findings { writer.string(finding.rule.rawValue) }
            writer.endArray()
            writer.endObject()
            try write(writer.bytes)
            try write(newline)
        }
    }

    /// The same, whole (for tests and small sessions: a session held in memory, whose steps are
    /// never read back).
    public static func ndjson(_ audit: SessionAudit, files: [String]) -> [UInt8] {
        var output: [UInt8] = []
        try? ndjson(audit, files: files) { output += $0 }
        return output
    }

    /// The text form, a few lines per entry, each entry passed to `write` as it is made.
    public static func text(_ audit: SessionAudit, files: [String], style: TextStyle, write: (String) throws -> Void) throws {
        try write(style.bold("session \(safe(audit.sessionID))") + "\n")
        try forEachEntry(audit) { entry in
            let (event, location, findings) = entry.parts
            let what: String
            switch entry {
            case .step(_, _, let changes):
                what = changes.isEmpty ? style.dim("(no change)") : changes.map { safe($0.description) }.joined(separator: "; ")
            case .unfolded:
                what = style.dim("(not folded: \(safe(FindingWriter.path(location, files) ?? "-")):\(location.line))")
            }
            var lines = "  seq \(event.seq)  \(event.name.rawValue.padding(toLength: 15)) \(what)\n"
            // The whole state after the event (docs/outputs.md), under what changed.
            if case .step(_, let state, _) = entry { lines += "      " + style.dim("state: \(safe(state.json))") + "\n" }
            for finding in findings {
                lines += "      \(style.severity(finding.severity)) \(finding.rule.rawValue): \(safe(finding.message))\n"
            }
            try write(lines)
        }
        try write("  final: \(safe(audit.finalState.json))\n")
    }

    /// The same, whole (for a session held in memory).
    public static func text(_ audit: SessionAudit, files: [String], style: TextStyle) -> String {
        var output = ""
        try? text(audit, files: files, style: style) { output += $0 }
        return output
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        split(separator: Character(target), omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
