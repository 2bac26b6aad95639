import NavJSON
import NavEvents
import NavModel
public import NavReplay
public import NavResults

/// Terminal styling: colour only when asked (a terminal, and `NO_COLOR` unset).
public struct TextStyle: Sendable {
    public var color: Bool
    public init(color: Bool) { self.color = color }

    func paint(_ text: String, _ code: String) -> String {
        color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    func severity(_ severity: Severity) -> String {
        let label = severity.rawValue.padding(toLength: 7)
        return paint(label, severity == .error ? "31;1" : "33")
    }

    func dim(_ text: String) -> String { paint(text, "2") }
    func bold(_ text: String) -> String { paint(text, "1") }
}

/// Text for people: findings grouped by session, each with its location, the witness that set
/// up the expectation, and what the event changed.
public enum TextWriter {
    public static func findings(_ run: AuditRun, style: TextStyle) -> String {
        var groups: [String] = []
        var start = 0
        let findings = run.findings
        // One group per session (the unreadable lines first), separated by a blank line.
        while start < findings.count {
            var end = start + 1
            while end < findings.count, findings[end].sessionID.utf8Equals(findings[start].sessionID) { end += 1 }
            groups.append(group(findings[start..<end], files: run.files, style: style))
            start = end
        }
        guard groups.isEmpty else { return groups.joined(separator: "\n") }
        return run.inputErrors.isEmpty ? noFindings : ""
    }

    /// What the text output says when there is nothing to report. Not said when an input could
    /// not be read: what it held is not known.
    public static let noFindings = "no findings\n"

    /// The findings of one session (or the unreadable lines), under a heading, each line
    /// ending in a line break; groups are separated by one blank line.
    public static func group(_ findings: some Collection<Finding>, files: [String], style: TextStyle) -> String {
        guard let first = findings.first else { return "" }
        var lines = [style.bold(first.sessionID.map { "session \(safe($0))" } ?? "unreadable lines")]
        for finding in findings { lines.append(contentsOf: describe(finding, files: files, style: style)) }
        return lines.joined(separator: "\n") + "\n"
    }

    static func describe(_ finding: Finding, files: [String], style: TextStyle) -> [String] {
        let place = location(finding.location, files)
        let seq = finding.seq.map { "seq \($0)" } ?? ""
        var lines = [
            "  \(style.severity(finding.severity)) \(finding.rule.rawValue)  \(style.dim([place, seq].filter { !$0.isEmpty }.joined(separator: " ")))",
            "    \(safe(finding.message))",
        ]
        if let witness = finding.witness {
            lines.append(
                "    " + style.dim("witness: seq \(witness.seq) \(witness.name.rawValue) at \(location(witness.location, files))"))
        }
        if finding.stateBefore != nil, finding.stateAfter != nil {
            let changes = finding.changes
            if !changes.isEmpty {
                // Long lists shortened as a finding's are (`ListedNames`): a log can present any
                // number of modals, and each finding's line listed them all.
                lines.append("    " + style.dim("changed: " + changes.map { safe($0.condensedDescription) }.joined(separator: "; ")))
            }
        }
        if finding.afterGap { lines.append("    " + style.dim("after a seq gap: the lost events may explain it")) }
        return lines
    }

    static func location(_ location: LineLocation?, _ files: [String]) -> String {
        guard let path = FindingWriter.path(location, files), let line = location?.line else { return "-" }
        return "\(safe(path)):\(line)"
    }
}

/// Makes a log-supplied string inert wherever a person reads it: control characters (C0, DEL,
/// C1, which include ESC and so ANSI sequences), line separators and format characters (bidi
/// embeddings, overrides and isolates, zero-width characters, the byte order mark, the soft
/// hyphen, tag characters: the "Trojan Source" class, which reorders or hides text) are shown as
/// `\u{…}` escapes.
public func safe(_ text: String) -> String {
    escaping(text, where: isUnsafe)
}

/// Whether a scalar must not reach a person's screen raw (`safe`).
func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x20..<0x7F: false  // printable ASCII, the common case
    case 0..<0x20, 0x7F...0x9F, 0x2028, 0x2029: true
    default: isFormatCharacter(scalar)
    }
}

/// A Unicode format character (general category Cf): invisible, yet it reorders or hides text.
func isFormatCharacter(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value >= 0xAD && scalar.properties.generalCategory == .format
}

/// `text` with its format characters, and only those, shown as `\u{…}`.
func escapingFormatCharacters(_ text: String) -> String {
    escaping(text, where: isFormatCharacter)
}

/// `text` with the scalars that match shown as `\u{…}` (and unchanged when none does).
private func escaping(_ text: String, where isEscaped: (Unicode.Scalar) -> Bool) -> String {
    guard text.unicodeScalars.contains(where: isEscaped) else { return text }
    var result = ""
    for scalar in text.unicodeScalars {
        if isEscaped(scalar) {
            result += "\\u{" + String(scalar.value, radix: 16) + "}"
        } else {
            result.unicodeScalars.append(scalar)
        }
    }
    return result
}

extension String {
    func padding(toLength length: Int) -> String {
        count >= length ? self : self + String(repeating: " ", count: length - count)
    }
}
