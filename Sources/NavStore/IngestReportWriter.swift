import NavEvents
import NavJSON
import NavReplay
import NavReport

/// What `ingest` prints: the batch's changed findings (new, then withdrawn) in one of three
/// formats, and a summary for standard error.
public enum IngestWriter {
    public enum Format: Sendable { case text, ndjson, json }

    public static func bytes(_ report: IngestReport, format: Format) -> [UInt8] {
        switch format {
        case .text: Array(text(report).utf8)
        case .ndjson: ndjson(report)
        case .json: json(report)
        }
    }

    /// The changed findings grouped by session, under a heading each.
    static func text(_ report: IngestReport) -> String {
        guard report.batch != nil else { return "nothing new: every file was ingested already\n" }
        var parts: [String] = []
        for (title, findings) in [("new findings", report.newFindings), ("withdrawn findings", report.withdrawnFindings)]
        where !findings.isEmpty {
            var sorted = findings
            sorted.sortForOutput()
            var groups: [String] = []
            var start = 0
            while start < sorted.count {
                var end = start + 1
                while end < sorted.count, sorted[end].sessionID.utf8Equals(sorted[start].sessionID) { end += 1 }
                groups.append(TextWriter.group(sorted[start..<end], files: report.paths, style: TextStyle(color: false)))
                start = end
            }
            parts.append("\(title) (\(findings.count)):\n" + groups.joined(separator: "\n"))
        }
        return parts.isEmpty ? "no new findings, none withdrawn\n" : parts.joined(separator: "\n")
    }

    /// One changed finding a line: `{"change":"new"|"withdrawn", …the finding's keys}`.
    static func ndjson(_ report: IngestReport) -> [UInt8] {
        var output: [UInt8] = []
        for (change, findings) in [("new", report.newFindings), ("withdrawn", report.withdrawnFindings)] {
            var sorted = findings
            sorted.sortForOutput()
            for finding in sorted {
                var writer = JSONWriter()
                FindingWriter.write(finding, files: report.paths, explain: false, to: &writer)
                output += Array("{\"change\":\"\(change)\",".utf8)
                output += writer.bytes.dropFirst()
                output.append(0x0A)
            }
        }
        return output
    }

    /// One document: the batch's counts, then `new` and `withdrawn` arrays of findings.
    static func json(_ report: IngestReport) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("summary")
        writeSummary(report, to: &writer)
        for (key, findings) in [("new", report.newFindings), ("withdrawn", report.withdrawnFindings)] {
            var sorted = findings
            sorted.sortForOutput()
            writer.key(key)
            writer.beginArray()
            for finding in sorted { FindingWriter.write(finding, files: report.paths, explain: false, to: &writer) }
            writer.endArray()
        }
        writer.endObject()
        var bytes = writer.bytes
        bytes.append(0x0A)
        return bytes
    }

    /// The batch's counts as JSON (`--summary`).
    public static func summaryJSON(_ report: IngestReport) -> [UInt8] {
        var writer = JSONWriter()
        writeSummary(report, to: &writer)
        var bytes = writer.bytes
        bytes.append(0x0A)
        return bytes
    }

    static func writeSummary(_ report: IngestReport, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("batch")
        if let batch = report.batch { writer.int(batch) } else { writer.null() }
        writer.key("files")
        writer.beginArray()
        for file in report.files {
            writer.beginObject()
            writer.member("path", file.path)
            writer.member("new_lines", file.newLines)
            writer.member("already_ingested", file.alreadyIngested)
            writer.member("unterminated_last_line_left", file.heldBackTail)
            writer.member("error", file.error)
            writer.endObject()
        }
        writer.endArray()
        writer.member("lines", report.lines)
        writer.member("blank_lines", report.blankLines)
        writer.member("event_lines", report.eventLines)
        writer.member("invalid_lines", report.invalidLines)
        writer.member("late_events", report.lateEvents.count)
        writer.member("sessions_touched", report.sessionsTouched)
        writer.member("sessions_reopened", report.sessionsReopened)
        writer.member("sessions_closed", report.sessionsClosed)
        writer.member("sessions_pruned", report.sessionsPruned)
        writer.member("open_sessions", report.openSessions)
        writer.member("new_findings", report.newFindings.count)
        writer.member("withdrawn_findings", report.withdrawnFindings.count)
        writer.member("watermark", report.watermark?.text)
        writer.endObject()
    }

    /// For standard error: each file's news, late events, and the batch in one line.
    public static func summary(_ report: IngestReport, store: String) -> String {
        var lines: [String] = []
        for file in report.files where file.error == nil {
            if file.alreadyIngested { lines.append("\(safe(file.path)): already ingested, nothing new") }
            if file.heldBackTail {
                lines.append("\(safe(file.path)): its last line has no line end yet: left for the next batch (or --close-all)")
            }
        }
        for late in report.lateEvents.prefix(20) {
            lines.append(
                "late event for session \(JSONWriter.quoted(late.sessionID)), whose events were dropped (--retain): \(safe(late.file)):\(late.line), kept in late_events, not folded"
            )
        }
        if report.lateEvents.count > 20 { lines.append("\(report.lateEvents.count - 20) more late events (late_events)") }
        guard let batch = report.batch else {
            lines.append("nothing new for \(safe(store)): the store is unchanged")
            return lines.map { "navreplay: \($0)\n" }.joined()
        }
        lines.append(
            "batch \(batch) into \(safe(store)): \(report.lines) new lines (\(report.eventLines) events, \(report.invalidLines) invalid); "
                + "\(report.sessionsTouched) sessions touched, \(report.sessionsReopened) reopened, \(report.sessionsClosed) closed, "
                + "\(report.sessionsPruned) pruned, \(report.openSessions) open; \(report.newFindings.count) new findings, "
                + "\(report.withdrawnFindings.count) withdrawn")
        return lines.map { "navreplay: \($0)\n" }.joined()
    }
}
