import NavEvents
import NavJSON
import NavReplay
import NavReport

/// What `ingest` prints: the batch's changed findings (new, then withdrawn) in one of three
/// formats, and a summary for standard error.
public enum IngestWriter {
    public enum Format: Sendable { case text, ndjson, json }

    /// Writes the batch's changed findings, read back from `store` a session at a time, to
    /// `output` in pieces.
    public static func write(
        _ report: IngestReport, format: Format, store: EventStore, to output: ([UInt8]) throws -> Void
    ) throws {
        guard let batch = report.batch else {
            if format == .text { try output(Array("nothing new: every file was ingested already\n".utf8)) }
            if format == .json { try output(document(report, arrays: "\"new\":[],\"withdrawn\":[]")) }
            return
        }
        let changes: [(StoredChanges.Change, Int)] = [(.new, report.newFindings), (.withdrawn, report.withdrawnFindings)]
        switch format {
        case .text:
            guard report.newFindings + report.withdrawnFindings > 0 else {
                try output(Array("no new findings, none withdrawn\n".utf8))
                return
            }
            var first = true
            for (change, count) in changes where count > 0 {
                let title = change == .new ? "new findings" : "withdrawn findings"
                try output(Array(((first ? "" : "\n") + "\(title) (\(count)):\n").utf8))
                first = false
                var firstGroup = true
                try StoredChanges.forEachGroup(store, batch: batch, change: change, files: report.paths) { group in
                    let text = TextWriter.group(group[...], files: report.paths, style: TextStyle(color: false))
                    try output(Array(((firstGroup ? "" : "\n") + text).utf8))
                    firstGroup = false
                }
            }
        case .ndjson:
            for (change, _) in changes {
                try StoredChanges.forEachGroup(store, batch: batch, change: change, files: report.paths) { group in
                    var lines: [UInt8] = []
                    for finding in group {
                        var writer = JSONWriter()
                        FindingWriter.write(finding, files: report.paths, explain: false, to: &writer)
                        lines += Array("{\"change\":\"\(change.rawValue)\",".utf8)
                        lines += writer.bytes.dropFirst()
                        lines.append(0x0A)
                    }
                    try output(lines)
                }
            }
        case .json:
            var head = JSONWriter()
            head.beginObject()
            head.key("summary")
            writeSummary(report, to: &head)
            try output(head.bytes)
            for (change, _) in changes {
                try output(Array(",\"\(change.rawValue)\":[".utf8))
                var first = true
                try StoredChanges.forEachGroup(store, batch: batch, change: change, files: report.paths) { group in
                    var writer = JSONWriter()
                    for finding in group {
                        if !first { writer.raw(",".utf8) }
                        first = false
                        FindingWriter.write(finding, files: report.paths, explain: false, to: &writer)
                    }
                    try output(writer.bytes)
                }
                try output(Array("]".utf8))
            }
            try output(Array("}\n".utf8))
        }
    }

    /// The JSON document of a batch with no findings to read: its summary and `arrays`.
    private static func document(_ report: IngestReport, arrays: String) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("summary")
        writeSummary(report, to: &writer)
        return writer.bytes + Array(",\(arrays)}\n".utf8)
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
        writer.member("new_findings", report.newFindings)
        writer.member("withdrawn_findings", report.withdrawnFindings)
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
                + "\(report.sessionsPruned) pruned, \(report.openSessions) open; \(report.newFindings) new findings, "
                + "\(report.withdrawnFindings) withdrawn")
        return lines.map { "navreplay: \($0)\n" }.joined()
    }
}
