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
    /// One entry of a replay: a folded event (a step), or a line of the session that was not
    /// folded (`seq.duplicate`), each with its findings.
    enum Entry {
        case step(ReplayStep, findings: [Finding])
        case notFolded(Finding, findings: [Finding])
    }

    /// The steps with their findings: the fold's own, and those found before the fold
    /// (`event_id.conflict`, `seq.duplicate`), which belong to the step of their line; a line
    /// not folded comes as its own entry, after the step of its seq.
    static func entries(_ audit: SessionAudit) -> [Entry] {
        struct Key: Hashable {
            var rule: Rule
            var location: LineLocation?
            var seq: Int64?
            var message: String
        }
        func key(_ finding: Finding) -> Key { Key(rule: finding.rule, location: finding.location, seq: finding.seq, message: finding.message) }
        var inSteps: [Key: Int] = [:]
        for step in audit.steps { for finding in step.findings { inSteps[key(finding), default: 0] += 1 } }
        // The audit's findings that no step holds, by line, in their order.
        var others: [LineLocation: [Finding]] = [:]
        var otherLines: [LineLocation] = []
        let lastSeq = audit.steps.last?.event.seq ?? -1
        for finding in audit.findings {
            let found = key(finding)
            if let count = inSteps[found], count > 0 {
                inSteps[found] = count - 1
                continue
            }
            // After `--until-seq`, the lines past it are not replayed.
            guard let location = finding.location, let seq = finding.seq, seq <= lastSeq else { continue }
            if others[location] == nil { otherLines.append(location) }
            others[location, default: []].append(finding)
        }
        var entries: [Entry] = []
        var notFolded: [(seq: Int64, findings: [Finding])] = []
        let stepLines = Set(audit.steps.map(\.location))
        for line in otherLines where !stepLines.contains(line) {
            let findings = others[line]!
            notFolded.append((findings[0].seq ?? 0, findings))
        }
        notFolded.sort { $0.seq < $1.seq }
        var next = notFolded[...]
        for step in audit.steps {
            entries.append(.step(step, findings: (others[step.location] ?? []) + step.findings))
            while let line = next.first, line.seq <= step.event.seq {
                entries.append(.notFolded(line.findings[0], findings: line.findings))
                next = next.dropFirst()
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
            let findings: [Finding]
            switch entry {
            case .step(let step, let stepFindings):
                writer.member("seq", step.event.seq)
                writer.member("event_id", step.event.eventID)
                writer.member("event_name", step.event.name.rawValue)
                writer.member("file", FindingWriter.path(step.location, files))
                writer.member("line", step.location.line)
                writer.key("state")
                step.stateAfter.write(to: &writer)
                writer.key("changes")
                writer.beginArray()
                for change in step.changes { writer.string(change.description) }
                writer.endArray()
                findings = stepFindings
            case .notFolded(let first, let lineFindings):
                // A line whose event was not folded: no state of its own.
                writer.member("seq", first.seq ?? 0)
                writer.member("event_id", first.eventID ?? "")
                writer.member("event_name", first.eventName?.rawValue ?? "")
                writer.member("file", FindingWriter.path(first.location, files))
                writer.member("line", first.location?.line ?? 0)
                writer.member("folded", false)
                findings = lineFindings
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
            let findings: [Finding]
            switch entry {
            case .step(let step, let stepFindings):
                let change = step.changes.isEmpty ? style.dim("(no change)") : step.changes.map { safe($0.description) }.joined(separator: "; ")
                lines.append("  seq \(step.event.seq)  \(step.event.name.rawValue.padding(toLength: 15)) \(change)")
                findings = stepFindings
            case .notFolded(let first, let lineFindings):
                let name = first.eventName?.rawValue ?? "event"
                let place = "\(safe(FindingWriter.path(first.location, files) ?? "-")):\(first.location?.line ?? 0)"
                lines.append("  seq \(first.seq ?? 0)  \(name.padding(toLength: 15)) " + style.dim("(not folded: \(place))"))
                findings = lineFindings
            }
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
