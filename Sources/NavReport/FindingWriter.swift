public import NavJSON
import NavEvents
import NavModel
public import NavReplay
public import NavResults
import NavInput

/// Writes findings in the machine formats: one NDJSON object per finding (docs/outputs.md) and
/// the JSON document of `--format json`.
public enum FindingWriter {
    /// Writes one finding as a JSON object: `rule, severity, session_id, seq, event_id, file,
    /// line, message`, then `expected`, `found` and `after_gap` where they apply. With
    /// `explain`, also the event name, the witness and the state before and after.
    public static func write(_ finding: Finding, files: [String], explain: Bool, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("rule", finding.rule.rawValue)
        writer.member("severity", finding.severity.rawValue)
        writer.member("session_id", finding.sessionID)
        writer.key("seq")
        if let seq = finding.seq { writer.int(seq) } else { writer.null() }
        writer.member("event_id", finding.eventID)
        writer.member("file", path(finding.location, files))
        writer.key("line")
        if let line = finding.location?.line { writer.int(line) } else { writer.null() }
        writer.member("message", finding.message)
        if let expected = finding.expected {
            writer.key("expected")
            writer.value(expected)
        }
        if let found = finding.found {
            writer.key("found")
            writer.value(found)
        }
        if finding.afterGap { writer.member("after_gap", true) }
        if explain {
            if let name = finding.eventName { writer.member("event_name", name.rawValue) }
            if let witness = finding.witness {
                writer.key("witness")
                write(witness, files: files, to: &writer)
            }
            if let before = finding.stateBefore {
                writer.key("state_before")
                before.write(to: &writer)
            }
            if let after = finding.stateAfter {
                writer.key("state_after")
                after.write(to: &writer)
            }
            if finding.stateBefore != nil, finding.stateAfter != nil {
                writer.key("changes")
                writer.beginArray()
                for change in finding.changes { writer.string(change.description) }
                writer.endArray()
            }
        }
        writer.endObject()
    }

    /// A witness event: `{seq, event_id, event_name, file, line}`.
    public static func write(_ witness: EventReference, files: [String], to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("seq", witness.seq)
        writer.member("event_id", witness.eventID)
        writer.member("event_name", witness.name.rawValue)
        writer.member("file", path(witness.location, files))
        writer.key("line")
        if let line = witness.location?.line { writer.int(line) } else { writer.null() }
        writer.endObject()
    }

    /// Every finding of a run, one JSON object per line.
    public static func ndjson(_ run: AuditRun, explain: Bool = false) -> [UInt8] {
        ndjson(run.findings, files: run.files, explain: explain)
    }

    /// Some findings (one session's, when the output is streamed), one JSON object per line.
    public static func ndjson(_ findings: [Finding], files: [String], explain: Bool = false) -> [UInt8] {
        var output: [UInt8] = []
        var writer = JSONWriter()
        for finding in findings {
            writer.removeAll()
            write(finding, files: files, explain: explain, to: &writer)
            output += writer.bytes
            output.append(0x0A)
        }
        return output
    }

    /// One JSON document: `{"summary": …, "findings": […]}`, findings explained.
    public static func jsonDocument(_ run: AuditRun) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("summary")
        SummaryWriter.write(run, to: &writer)
        writer.key("findings")
        writer.beginArray()
        for finding in run.findings { write(finding, files: run.files, explain: true, to: &writer) }
        writer.endArray()
        writer.endObject()
        var bytes = writer.bytes
        bytes.append(0x0A)
        return bytes
    }

    static func path(_ location: LineLocation?, _ files: [String]) -> String? {
        guard let location, location.file >= 0, Int(location.file) < files.count else { return nil }
        return files[Int(location.file)]
    }
}

/// The audit summary (docs/events-and-rules.md): counts that always add up, and findings by rule.
public enum SummaryWriter {
    public static func write(_ run: AuditRun, to writer: inout JSONWriter) {
        let counts = run.counts
        writer.beginObject()
        writer.member("files", counts.files)
        writer.member("unreadable_files", counts.unreadableFiles)
        writer.member("lines", counts.lines)
        writer.member("blank_lines", counts.blankLines)
        writer.member("invalid_lines", counts.invalidLines)
        writer.member("redeliveries", counts.redeliveries)
        writer.member("duplicates", counts.duplicates)
        writer.member("events", counts.events)
        writer.member("sessions", counts.sessions)
        writer.member("findings", counts.findings)
        writer.key("findings_by_rule")
        writer.beginObject()
        for rule in counts.findingsByRule.keys.sorted() {
            writer.member(rule.rawValue, counts.findingsByRule[rule] ?? 0)
        }
        writer.endObject()
        writer.key("findings_by_severity")
        writer.beginObject()
        for severity in [Severity.error, .warning] {
            let total = counts.findingsByRule.filter { $0.key.severity == severity }.values.reduce(0, +)
            writer.member(severity.rawValue, total)
        }
        writer.endObject()
        writer.key("inputs")
        writer.beginArray()
        for report in run.fileReports {
            writer.beginObject()
            writer.member("file", report.path)
            writer.member("lines", report.lines)
            writer.member("bytes", report.bytes)
            if let error = report.error {
                writer.member("error", error.message)
                writer.member("error_code", error.code.rawValue)
            }
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
    }

    public static func json(_ run: AuditRun) -> [UInt8] {
        var writer = JSONWriter()
        write(run, to: &writer)
        var bytes = writer.bytes
        bytes.append(0x0A)
        return bytes
    }

    /// One or two lines for people, on standard error.
    public static func text(_ run: AuditRun) -> String {
        let counts = run.counts
        let errors = counts.findingsByRule.filter { $0.key.severity == .error }.values.reduce(0, +)
        let warnings = counts.findings - errors
        // A file that could not be read (or not to its end) is not counted as if it had been.
        let files =
            counts.unreadableFiles == 0
            ? "\(counts.files) file(s)" : "\(counts.files) file(s) (\(counts.unreadableFiles) not read in full)"
        var text =
            run.foldedSessions
            ? "\(files), \(counts.lines) line(s): \(counts.events) event(s) folded, "
                + "\(counts.blankLines) blank, \(counts.invalidLines) invalid, \(counts.redeliveries) redelivered, "
                + "\(counts.duplicates) duplicate; \(counts.sessions) session(s); "
                // `validate`: lines checked one by one; no session, so no redelivery or duplicate.
            : "\(files), \(counts.lines) line(s): \(counts.events) valid event(s), "
                + "\(counts.blankLines) blank, \(counts.invalidLines) invalid (lines checked alone, not folded); "
        text += "\(counts.findings) finding(s) (\(errors) error(s), \(warnings) warning(s))"
        if !counts.findingsByRule.isEmpty {
            text +=
                "\n  by rule: "
                + counts.findingsByRule.keys.sorted().map { "\($0.rawValue) \(counts.findingsByRule[$0] ?? 0)" }
                .joined(separator: ", ")
        }
        return text
    }
}
