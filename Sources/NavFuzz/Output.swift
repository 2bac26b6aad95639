#if canImport(Glibc)
    import Glibc
#endif
import Foundation
#if canImport(FoundationXML)
    import FoundationXML
#endif
import NavReplay
import NavReport
import NavSQLite
public import NavResults

/// One output format of `navreplay`, the writer that produces it, and an independent check of
/// what it wrote: it must parse with a parser that shares no code with the writer, carry one
/// record per finding or session, and (for text) hold no control character that a terminal
/// would act on.
public struct Output: Sendable {
    public var name: String
    public var write: @Sendable (AuditRun) -> [UInt8]
    /// `nil` when the output is well formed, else what is wrong.
    public var check: @Sendable ([UInt8], AuditRun) -> String?

    public init(
        name: String, write: @escaping @Sendable (AuditRun) -> [UInt8], check: @escaping @Sendable ([UInt8], AuditRun) -> String?
    ) {
        self.name = name
        self.write = write
        self.check = check
    }

    /// Every format of every command. Add a format's writer here when it is added to NavReport.
    public static let all: [Output] = [
        Output(name: "audit --format text") {
            TextWriter.findings($0, style: TextStyle(color: false)).utf8Array
        } check: { bytes, _ in
            checkText(bytes, allowSGR: false)
        },
        Output(name: "audit --format text (colour)") {
            TextWriter.findings($0, style: TextStyle(color: true)).utf8Array
        } check: {
            bytes, _ in
            checkText(bytes, allowSGR: true)
        },
        Output(name: "audit --format ndjson") {
            FindingWriter.ndjson($0)
        } check: { bytes, run in
            checkNDJSON(bytes, records: run.findings.count)
        },
        Output(name: "audit --format ndjson --explain") {
            FindingWriter.ndjson($0, explain: true)
        } check: { bytes, run in
            checkNDJSON(bytes, records: run.findings.count)
        },
        Output(name: "audit --format json") {
            FindingWriter.jsonDocument($0)
        } check: { bytes, run in
            guard let document = parseJSON(bytes) as? [String: Any] else { return "not a JSON object" }
            guard let findings = document["findings"] as? [Any] else { return "no findings array" }
            return findings.count == run.findings.count ? nil : "\(findings.count) findings, expected \(run.findings.count)"
        },
        Output(name: "audit --format junit") {
            JUnitWriter.xml($0)
        } check: { bytes, _ in
            XMLCheck.problem(bytes)
        },
        Output(name: "audit --format sarif") { run in
            SARIFWriter.json(run, fingerprints: FindingFingerprint.compute(run), toolVersion: "fuzz")
        } check: { bytes, run in
            guard let document = parseJSON(bytes) as? [String: Any], let runs = document["runs"] as? [[String: Any]],
                let results = runs.first?["results"] as? [Any]
            else { return "not a SARIF document with runs[0].results" }
            return results.count == run.findings.count ? nil : "\(results.count) results, expected \(run.findings.count)"
        },
        Output(name: "audit --format github") {
            GitHubWriter.commands($0)
        } check: { bytes, run in
            guard let text = String(validating: bytes, as: UTF8.self) else { return "not UTF-8" }
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            let expected = run.findings.count + run.inputErrors.count
            guard lines.count == expected else { return "\(lines.count) lines, expected \(expected) commands" }
            if let line = lines.first(where: { !$0.hasPrefix("::error ") && !$0.hasPrefix("::warning ") }) {
                return "a line that is not a command: \(line.prefix(200))"
            }
            return checkText(bytes, allowSGR: false)
        },
        Output(name: "report (HTML)") { run in
            // In memory, ReportData cannot throw; if it ever did, the check flags the page.
            Array(((try? ReportData(run: run)).flatMap { try? HTMLReport.html($0, toolVersion: "fuzz") } ?? "ReportData threw").utf8)
        } check: { bytes, _ in
            HTMLCheck.problem(bytes)
        },
        Output(name: "sessions --format sqlite") { run in
            let path = temporaryFile("sqlite")
            defer { unlink(path) }
            do {
                try SQLiteWriter.write(run, to: path, toolVersion: "fuzz")
            } catch {
                return Array("error: \(error)".utf8)
            }
            return FileManager.default.contents(atPath: path).map { [UInt8]($0) } ?? []
        } check: { bytes, _ in
            bytes.starts(with: Array("SQLite format 3\u{0}".utf8))
                ? nil : "not an SQLite database: \(String(decoding: bytes.prefix(80), as: UTF8.self))"
        },
        Output(name: "--summary") {
            SummaryWriter.json($0)
        } check: { bytes, run in
            guard let summary = parseJSON(bytes) as? [String: Any] else { return "not a JSON object" }
            let counts = run.counts
            let expected: [String: Int64] = [
                "lines": counts.lines, "blank_lines": counts.blankLines, "invalid_lines": counts.invalidLines,
                "redeliveries": counts.redeliveries, "duplicates": counts.duplicates, "events": counts.events,
            ]
            for (key, value) in expected where (summary[key] as? NSNumber)?.int64Value != value {
                return "\(key) is \(String(describing: summary[key])), expected \(value)"
            }
            return nil
        },
        Output(name: "summary text") {
            SummaryWriter.text($0).utf8Array
        } check: { bytes, _ in
            checkText(bytes, allowSGR: false)
        },
        Output(name: "sessions --format ndjson") {
            SessionWriter.ndjson($0)
        } check: { bytes, run in
            checkNDJSON(bytes, records: run.sessions.count)
        },
        Output(name: "sessions --format json") {
            SessionWriter.json($0)
        } check: { bytes, run in
            guard let sessions = parseJSON(bytes) as? [Any] else { return "not a JSON array" }
            return sessions.count == run.sessions.count ? nil : "\(sessions.count) sessions, expected \(run.sessions.count)"
        },
        Output(name: "sessions --format csv") {
            SessionWriter.csv($0)
        } check: { bytes, run in
            guard let rows = CSV.parse(bytes) else { return "not RFC 4180 CSV" }
            guard rows.count == run.sessions.count + 1 else { return "\(rows.count) rows, expected \(run.sessions.count + 1)" }
            guard rows.allSatisfy({ $0.count == rows[0].count }) else { return "rows of different widths" }
            return nil
        },
        Output(name: "sessions --format text") {
            SessionWriter.text($0, style: TextStyle(color: false)).utf8Array
        } check: {
            bytes, _ in
            checkText(bytes, allowSGR: false)
        },
        Output(name: "replay --format ndjson") { run in
            run.sessions.flatMap { ReplayWriter.ndjson($0, files: run.files) }
        } check: { bytes, run in
            // A record per folded event, and one per line not folded for `seq.duplicate`.
            checkNDJSON(bytes, records: run.sessions.reduce(0) { $0 + $1.steps.count + $1.duplicates })
        },
        Output(name: "replay --format text") { run in
            run.sessions.flatMap { ReplayWriter.text($0, files: run.files, style: TextStyle(color: false)).utf8Array }
        } check: { bytes, _ in
            checkText(bytes, allowSGR: false)
        },
    ]
}

extension String {
    var utf8Array: [UInt8] { Array(utf8) }
}

// MARK: Independent checks

func parseJSON(_ bytes: [UInt8]) -> Any? {
    try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
}

/// Each line a JSON object; `records` lines; the output ends with a line feed unless empty.
public func checkNDJSON(_ bytes: [UInt8], records: Int) -> String? {
    if bytes.isEmpty { return records == 0 ? nil : "empty, expected \(records) records" }
    guard bytes.last == 0x0A else { return "does not end with a line feed" }
    let lines = bytes.dropLast().split(separator: 0x0A, omittingEmptySubsequences: false)
    guard lines.count == records else { return "\(lines.count) lines, expected \(records)" }
    for (index, line) in lines.enumerated() where !(parseJSON(Array(line)) is [String: Any]) {
        return "line \(index + 1) is not a JSON object: \(String(decoding: line.prefix(200), as: UTF8.self))"
    }
    return nil
}

/// Valid UTF-8 with no control character but the line feed (C0, DEL, C1, U+2028, U+2029): a
/// log's content can never move the cursor, clear the screen or forge a line. With colour, an
/// escape may only start the writer's own SGR sequences (`ESC [ digits ; … m`).
public func checkText(_ bytes: [UInt8], allowSGR: Bool) -> String? {
    guard let text = String(validating: bytes, as: UTF8.self) else { return "not valid UTF-8" }
    let scalars = Array(text.unicodeScalars)
    var index = 0
    while index < scalars.count {
        let value = scalars[index].value
        if value == 0x1B && allowSGR {
            var end = index + 1
            guard end < scalars.count, scalars[end] == "[" else { return "an escape that does not start an SGR sequence" }
            end += 1
            while end < scalars.count, ("0"..."9").contains(scalars[end]) || scalars[end] == ";" { end += 1 }
            guard end < scalars.count, scalars[end] == "m" else { return "an escape sequence other than SGR" }
            index = end + 1
            continue
        }
        if value != 0x0A && (value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2028 || value == 0x2029) {
            return "a raw control character U+\(String(value, radix: 16, uppercase: true)) at scalar \(index)"
        }
        index += 1
    }
    return nil
}

/// A strict RFC 4180 reader: records end with CRLF; a quoted field doubles its quotes. `nil`
/// when the bytes are not such CSV.
public enum CSV {
    public static func parse(_ bytes: [UInt8]) -> [[String]]? {
        var rows: [[String]] = []
        var row: [String] = []
        var field: [UInt8] = []
        var index = 0
        var quoted = false
        var fieldStarted = false
        while index < bytes.count {
            let byte = bytes[index]
            if quoted {
                if byte == 0x22 {
                    if index + 1 < bytes.count && bytes[index + 1] == 0x22 {
                        field.append(0x22)
                        index += 2
                        continue
                    }
                    quoted = false
                    index += 1
                    // After a closing quote: a separator or the end of the record.
                    guard index == bytes.count || bytes[index] == 0x2C || bytes[index] == 0x0D else { return nil }
                    continue
                }
                field.append(byte)
                index += 1
                continue
            }
            switch byte {
            case 0x22:
                guard !fieldStarted && field.isEmpty else { return nil }
                quoted = true
                fieldStarted = true
                index += 1
            case 0x2C:
                row.append(String(decoding: field, as: UTF8.self))
                field = []
                fieldStarted = false
                index += 1
            case 0x0D:
                guard index + 1 < bytes.count, bytes[index + 1] == 0x0A else { return nil }
                row.append(String(decoding: field, as: UTF8.self))
                rows.append(row)
                row = []
                field = []
                fieldStarted = false
                index += 2
            case 0x0A:
                return nil  // a bare line feed outside quotes
            default:
                field.append(byte)
                fieldStarted = true
                index += 1
            }
        }
        if quoted { return nil }
        if !field.isEmpty || !row.isEmpty { return nil }  // the last record must end with CRLF
        return rows
    }
}

func temporaryFile(_ suffix: String) -> String {
    let directory = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    return "\(directory)/navreplay-fuzz-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).\(suffix)"
}

/// XML well-formedness through Foundation's `XMLParser` (libxml2).
public enum XMLCheck {
    final class Depth: NSObject, XMLParserDelegate {
        var depth = 0
        var roots = 0
        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            if depth == 0 { roots += 1 }
            depth += 1
        }
        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) { depth -= 1 }
    }

    /// `nil` when the bytes are one well-formed XML document. swift-corelibs-foundation may
    /// return `true` with an error set and does not report an unclosed element: all are checked.
    public static func problem(_ bytes: [UInt8]) -> String? {
        let parser = XMLParser(data: Data(bytes))
        let depth = Depth()
        parser.delegate = depth
        let parsed = parser.parse()
        if let error = parser.parserError { return "not well-formed XML: \(error)" }
        if !parsed { return "not well-formed XML" }
        if depth.depth != 0 || depth.roots != 1 { return "\(depth.depth) unclosed element(s), \(depth.roots) root(s)" }
        return nil
    }
}

/// The markup an HTML page must never get from a log: a `script` element or an event handler
/// attribute (`on…=`). Tags are read with a small scanner (names and attribute names only), and
/// the page must be UTF-8 without control characters other than tab and line ends.
public enum HTMLCheck {
    public static func problem(_ bytes: [UInt8]) -> String? {
        guard String(validating: bytes, as: UTF8.self) != nil else { return "not UTF-8" }
        if let byte = bytes.first(where: { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }) {
            return "a raw control character 0x\(String(byte, radix: 16))"
        }
        var index = 0
        func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte | 0x20) || (0x61...0x7A).contains(byte) }
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "<"), index + 1 < bytes.count, isLetter(bytes[index + 1]) else {
                index += 1
                continue
            }
            var end = index + 1
            while end < bytes.count, isLetter(bytes[end]) || (0x30...0x39).contains(bytes[end]) || bytes[end] == UInt8(ascii: "-") {
                end += 1
            }
            let name = String(decoding: bytes[(index + 1)..<end], as: UTF8.self).lowercased()
            if name == "script" { return "a script element" }
            // Attributes up to the tag's end: names are the words before `=` outside quotes.
            var quote: UInt8?
            var word: [UInt8] = []
            while end < bytes.count {
                let byte = bytes[end]
                if let open = quote {
                    if byte == open { quote = nil }
                } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                    quote = byte
                } else if byte == UInt8(ascii: ">") {
                    break
                } else if byte == UInt8(ascii: "=") {
                    let attribute = String(decoding: word, as: UTF8.self).lowercased()
                    if attribute.hasPrefix("on") { return "an event handler attribute \(attribute) on <\(name)>" }
                    word = []
                } else if byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D || byte == UInt8(ascii: "/") {
                    word = []
                } else {
                    word.append(byte)
                }
                end += 1
            }
            index = end
        }
        return nil
    }
}
