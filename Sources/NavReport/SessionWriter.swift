public import NavJSON
import NavEvents
public import NavLog
import NavModel
public import NavReplay

/// One record per session (CONTRACT §6): `session_id, events, first_seq, last_seq, start, end,
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

    /// RFC 4180 CSV with a header; `final_state` and `screens` are JSON text in their cells.
    public static func csv(_ run: AuditRun) -> [UInt8] {
        csvHeader + run.sessions.flatMap(csvRow)
    }

    /// The CSV header line.
    public static let csvHeader = Array("session_id,events,first_seq,last_seq,start,end,duration_ms,final_state,screens,findings\r\n".utf8)

    /// One session's CSV row, ending in CRLF (for streamed output).
    public static func csvRow(_ audit: SessionAudit) -> [UInt8] {
        var screens = JSONWriter()
        screens.beginArray()
        for screen in audit.screens { screen.write(to: &screens) }
        screens.endArray()
        let cells: [String] = [
            audit.sessionID, String(audit.events), audit.firstSeq.map(String.init) ?? "",
            audit.lastSeq.map(String.init) ?? "", audit.start?.text ?? "", audit.end?.text ?? "",
            audit.durationMilliseconds.map(String.init) ?? "", audit.finalState.json, screens.string,
            String(audit.findingCount),
        ]
        return Array((cells.map(csvCell).joined(separator: ",") + "\r\n").utf8)
    }

    /// Quotes a cell when it holds a separator, a quote or a line break; defuses formulas.
    static func csvCell(_ value: String) -> String {
        var text = value
        // A cell starting with = + - @ is run as a formula by spreadsheets: prefix a quote.
        if let first = text.first, "=+-@".contains(first), Int64(text) == nil { text = "'" + text }
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingAll("\"", with: "\"\"") + "\""
    }

    public static func text(_ run: AuditRun, style: TextStyle) -> String {
        var lines: [String] = []
        for audit in run.sessions {
            let duration = audit.durationMilliseconds.map { "\($0) ms" } ?? "-"
            lines.append(
                style.bold("session \(safe(audit.sessionID))")
                    + "  \(audit.events) event(s), seq \(audit.firstSeq.map(String.init) ?? "-")...\(audit.lastSeq.map(String.init) ?? "-"), "
                    + "\(duration), \(audit.findingCount) finding(s)")
            lines.append("  final: \(safe(audit.finalState.json))")
            lines.append("  screens: " + audit.screens.map { safe($0.label) }.joined(separator: " → "))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// The state after each event of one session (`navreplay replay`).
public enum ReplayWriter {
    /// One entry of a replay: a folded event (a step), or a line not folded (`seq.duplicate`).
    enum Entry {
        case step(ReplayStep)
        case unfolded(UnfoldedLine)

        /// What both kinds have: the event, where its line is, and its findings.
        var parts: (event: NavigationEvent, location: LineLocation, findings: [Finding]) {
            switch self {
            case .step(let step): (step.event, step.location, step.findings)
            case .unfolded(let line): (line.event, line.location, line.findings)
            }
        }
    }

    /// The steps, each line not folded after the step of its seq (the event that won it).
    static func entries(_ audit: SessionAudit) -> [Entry] {
        var entries: [Entry] = []
        var unfolded = audit.unfolded[...]
        for step in audit.steps {
            entries.append(.step(step))
            while let line = unfolded.first, line.event.seq <= step.event.seq {
                entries.append(.unfolded(line))
                unfolded = unfolded.dropFirst()
            }
        }
        return entries
    }

    public static func ndjson(_ audit: SessionAudit, files: [String]) -> [UInt8] {
        var output: [UInt8] = []
        var writer = JSONWriter()
        for entry in entries(audit) {
            writer.removeAll()
            writer.beginObject()
            let (event, location, findings) = entry.parts
            writer.member("seq", event.seq)
            writer.member("event_id", event.eventID)
            writer.member("event_name", event.name.rawValue)
            writer.member("file", FindingWriter.path(location, files))
            writer.member("line", location.line)
            switch entry {
            case .step(let step):
                writer.key("state")
                step.stateAfter.write(to: &writer)
                writer.key("changes")
                writer.beginArray()
                for change in step.changes { writer.string(change.description) }
                writer.endArray()
            case .unfolded:
                writer.member("folded", false)  // a line whose event was not folded: no state of its own
            }
            writer.key("findings")
            writer.beginArray()
            for finding in findings { writer.string(finding.rule.rawValue) }
            writer.endArray()
            writer.endObject()
            output += writer.bytes
            output.append(0x0A)
        }
        return output
    }

    public static func text(_ audit: SessionAudit, files: [String], style: TextStyle) -> String {
        var lines = [style.bold("session \(safe(audit.sessionID))")]
        for entry in entries(audit) {
            let (event, location, findings) = entry.parts
            let what: String
            switch entry {
            case .step(let step):
                what = step.changes.isEmpty ? style.dim("(no change)") : step.changes.map { safe($0.description) }.joined(separator: "; ")
            case .unfolded:
                what = style.dim("(not folded: \(safe(FindingWriter.path(location, files) ?? "-")):\(location.line))")
            }
            lines.append("  seq \(event.seq)  \(event.name.rawValue.padding(toLength: 15)) \(what)")
            // The whole state after the event (CONTRACT §6), under what changed.
            if case .step(let step) = entry { lines.append("      " + style.dim("state: \(safe(step.stateAfter.json))")) }
            for finding in findings {
                lines.append("      \(style.severity(finding.severity)) \(finding.rule.rawValue): \(safe(finding.message))")
            }
        }
        lines.append("  final: \(safe(audit.finalState.json))")
        return lines.joined(separator: "\n") + "\n"
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        split(separator: Character(target), omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
