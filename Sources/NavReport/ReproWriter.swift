import NavEvents
import NavJSON
public import NavModel
public import NavReplay
public import NavInput

/// `navreplay repro`: turns a finding from production telemetry into a regression test.
///
/// It re-reads the finding's session from the logs, finds the smallest prefix of it (by `seq`)
/// whose audit still reports the same finding (same rule, seq, event and message), and writes
/// that prefix as NDJSON plus a Swift Testing test that replays it through NavReplay's fold
/// (`SessionAuditor.audit`, which drives `NavigationFold`) and expects the finding.
public enum ReproWriter {
    /// One line of the session, with its exact bytes.
    public struct Line: Sendable {
        public var line: SessionLine
        public var raw: [UInt8]
    }

    /// Every valid event line of one session in the given files (paths indexed as in the run).
    ///
    /// - Parameters:
    ///   - files: each file's path and its index in `AuditRun.files`, so locations match the run's.
    public static func sessionLines(
        _ sessionID: String, files: [(path: String, index: Int)], maxLineBytes: Int = LineReader.defaultMaxLineBytes
    ) throws -> [Line] {
        let reader = LineReader(maxLineBytes: maxLineBytes)
        let decoder = EventDecoder()
        var result: [Line] = []
        for file in files {
            _ = try reader.readLines(of: file.path) { raw in
                guard raw.overlongLength == nil, !raw.isBlank, case .success(let decoded) = decoder.decode(raw.bytes),
                    decoded.event.sessionID.utf8Equals(sessionID)
                else { return }
                result.append(
                    Line(
                        line: SessionLine(decoded: decoded, location: LineLocation(file: Int32(file.index), line: raw.number)),
                        raw: Array(raw.bytes)))
            }
        }
        return result
    }

    /// Whether two findings are the same: rule, seq, event and message.
    public static func same(_ lhs: Finding, _ rhs: Finding) -> Bool {
        lhs.rule == rhs.rule && lhs.seq == rhs.seq && lhs.eventID == rhs.eventID && lhs.message == rhs.message
    }

    /// The smallest prefix of the session (all lines up to some `seq`) whose audit reports
    /// `target`; `nil` when even the whole session does not.
    ///
    /// - Complexity: O(n²) audits of up to n lines in the worst case; the search starts at the
    ///   finding's own seq (a `command.postcondition`'s: its correlation group's end), so it
    ///   usually ends after one audit.
    public static func minimalPrefix(of lines: [Line], reproducing target: Finding, model: NavigationModel) -> [Line]? {
        let sorted = lines.sorted {
            ($0.line.event.seq, $0.line.location) < ($1.line.event.seq, $1.line.location)
        }
        guard let sessionID = sorted.first?.line.event.sessionID else { return nil }
        var cutoffs: [Int64] = []
        for line in sorted where cutoffs.last != line.line.event.seq { cutoffs.append(line.line.event.seq) }
        // A `command.postcondition` is checked at its correlation group's end: a prefix that
        // cuts the group short may report it too, about less. The prefix keeps the whole group.
        var start = target.seq ?? 0
        if target.rule == .commandPostcondition, let command = sorted.first(where: { $0.line.event.seq == target.seq }) {
            let group = command.line.event.correlationID
            start = sorted.filter { $0.line.event.correlationID.utf8Equals(group) }.map(\.line.event.seq).max() ?? start
        }
        for cutoff in cutoffs where cutoff >= start {
            let prefix = sorted.filter { $0.line.event.seq <= cutoff }
            let audit = SessionAuditor.audit(sessionID: sessionID, lines: prefix.map(\.line), model: model)
            if audit.findings.contains(where: { same($0, target) }) { return prefix }
        }
        return nil
    }

    /// The prefix as NDJSON: each line's exact bytes, in `seq` order.
    public static func ndjson(_ lines: [Line]) -> [UInt8] {
        lines.flatMap { $0.raw + [0x0A] }
    }

    /// A Swift identifier made of a string's letters and digits: `s-bad-lost-event` → `sBadLostEvent`.
    public static func identifier(_ text: String) -> String {
        var words: [String] = []
        var current = ""
        for scalar in text.unicodeScalars {
            if (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z") || (scalar >= "0" && scalar <= "9") {
                current.unicodeScalars.append(scalar)
            } else if !current.isEmpty {
                words.append(current)
                current = ""
            }
        }
        if !current.isEmpty { words.append(current) }
        let joined = words.enumerated().map { $0.offset == 0 ? $0.element : $0.element.prefix(1).uppercased() + $0.element.dropFirst() }
            .joined()
        guard let first = joined.unicodeScalars.first else { return "repro" }
        return first >= "0" && first <= "9" ? "r" + joined : joined
    }

    /// The Swift Testing test that replays `lines` and expects `target`.
    ///
    /// - Parameters:
    ///   - name: the test suite's type name (an identifier).
    ///   - modelJSON: the model file's text, or `nil` for the built-in PoC model.
    ///   - source: where the log came from, for the header comment.
    public static func swiftTest(
        name: String, lines: [Line], target: Finding, modelJSON: String?, source: String, toolVersion: String
    ) -> String {
        let log = lines.map { String(decoding: $0.raw, as: UTF8.self) }.joined(separator: "\n")
        let session = target.sessionID ?? ""
        let seq = target.seq.map(String.init) ?? "nil"
        let testName =
            "reproduces" + identifier(target.rule.rawValue).prefix(1).uppercased()
            + identifier(target.rule.rawValue).dropFirst() + "AtSeq\(target.seq.map(String.init) ?? "")"
        var text = """
            // Generated by `navreplay repro` (navreplay \(toolVersion)) from \(comment(source)).
            // The smallest prefix of session \(comment(quoted(session))) that still produces \(target.rule.rawValue) at seq \(seq):
            // \(comment(target.message))
            // It replays the events through NavReplay's fold (SessionAuditor → NavigationFold) and expects
            // that finding, so the bug found in telemetry stays a test.
            import NavEvents
            import NavModel
            import NavReplay
            import Testing

            @Suite struct \(name) {
                /// The events, one NDJSON line each, exactly as logged.
                static let log = \(rawLiteral(log, indent: "    "))

            """
        if let modelJSON {
            text += """

                    /// The navigation model the session was audited with.
                    static let model = \(rawLiteral(modelJSON, indent: "    "))

                """
        }
        text += """

                @Test func \(testName)() throws {
                    let decoder = EventDecoder()
                    var lines: [SessionLine] = []
                    for (index, text) in Self.log.split(separator: "\\n").enumerated() {
                        let decoded = try decoder.decode(String(text)).get()
                        lines.append(SessionLine(decoded: decoded, location: LineLocation(file: 0, line: Int64(index + 1))))
                    }
                    let model = \(modelJSON == nil ? "NavigationModel.poc" : "try NavigationModel.load(json: Self.model)")
                    let audit = SessionAuditor.audit(sessionID: \(quoted(session)), lines: lines, model: model)
                    let finding = audit.findings.first { $0.rule.rawValue == \(quoted(target.rule.rawValue)) && $0.seq == \(seq) }
                    #expect(finding != nil, "expected \(target.rule.rawValue) at seq \(seq); got \\(audit.findings.map { "\\($0.rule.rawValue)@\\($0.seq ?? -1)" })")
                    #expect(finding?.eventID == \(target.eventID.map(quoted) ?? "nil"))
                    #expect(finding?.message == \(quoted(target.message)))
                }
            }

            """
        return text
    }

    /// A Swift string literal (escaped).
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    result += "\\u{" + String(scalar.value, radix: 16) + "}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }

    /// A multi-line raw string literal, with enough `#` that no content can end it or start an
    /// escape (`"#…` and `\#…` runs are counted).
    static func rawLiteral(_ text: String, indent: String) -> String {
        var longest = 0
        var run = -1
        for scalar in text.unicodeScalars {
            if scalar == "\"" || scalar == "\\" {
                run = 0
            } else if scalar == "#", run >= 0 {
                run += 1
                longest = max(longest, run)
            } else {
                run = -1
            }
        }
        let hashes = String(repeating: "#", count: longest + 1)
        let body = text.split(separator: "\n", omittingEmptySubsequences: false).map { indent + "    " + $0 }
            .joined(separator: "\n")
        return hashes + "\"\"\"\n" + body + "\n" + indent + "    \"\"\"" + hashes
    }

    /// Text safe inside a `//` comment (one line, no control characters).
    static func comment(_ text: String) -> String {
        safe(text)
    }
}
