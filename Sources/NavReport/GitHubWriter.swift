import NavEvents
import NavJSON
import NavModel
import NavReplay
public import NavResults
import NavInput

/// GitHub Actions workflow commands: one annotation a finding, shown on the pull request's
/// files and in the job summary.
///
/// ```
/// ::error file=logs/app.ndjson,line=8,title=state.mismatch::route_pop on "tab1" claims …%0Asession s-1, seq 9 …
/// ```
///
/// Errors are `::error`, warnings `::warning`; an input that cannot be read is an `::error`
/// on its file. Values are escaped as the runner expects: in the message `%`, `\r`, `\n` become
/// `%25`, `%0D`, `%0A`; in properties also `:` and `,` (`%3A`, `%2C`). Other control characters
/// (ANSI escapes) are shown as `\u{…}`, so a log can never start a command of its own.
public enum GitHubWriter {
    public static func commands(_ run: AuditRun) -> [UInt8] {
        var lines: [String] = []
        for report in run.fileReports {
            guard let error = report.error else { continue }
            lines.append(
                "::error file=\(property(report.path)),title=\(property("navreplay: unreadable input"))::\(data(error.description))")
        }
        for finding in run.findings {
            var properties: [String] = []
            if let location = finding.location, let path = FindingWriter.path(location, run.files) {
                properties.append("file=" + property(path))
                properties.append("line=\(max(1, location.line))")
            }
            properties.append("title=" + property(finding.rule.rawValue))
            var message = finding.message
            if let session = finding.sessionID {
                var where_ = "session \(session)"
                if let seq = finding.seq { where_ += ", seq \(seq)" }
                if let event = finding.eventID { where_ += ", event \(event)" }
                message += "\n" + where_
            }
            message += "\n" + finding.rule.summary
            let command = finding.severity == .error ? "error" : "warning"
            lines.append("::\(command) \(properties.joined(separator: ","))::\(data(message))")
        }
        return Array(lines.map { $0 + "\n" }.joined().utf8)
    }

    /// Escapes a command's message.
    public static func data(_ text: String) -> String {
        escape(text, property: false)
    }

    /// Escapes a property value.
    public static func property(_ text: String) -> String {
        escape(text, property: true)
    }

    static func escape(_ text: String, property: Bool) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "%": result += "%25"
            case "\r": result += "%0D"
            case "\n": result += "%0A"
            case ":" where property: result += "%3A"
            case "," where property: result += "%2C"
            default:
                if isUnsafe(scalar) {
                    result += "\\u{" + String(scalar.value, radix: 16) + "}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }
}
