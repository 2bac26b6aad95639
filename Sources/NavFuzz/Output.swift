import Foundation
public import NavLog
import NavReplay
import NavReport

/// One output format of `navreplay`, the writer that produces it, and an independent check of
/// what it wrote: it must parse with a parser that shares no code with the writer, carry one
/// record per finding or session, and (for text) hold no control character that a terminal
/// would act on.
public struct Output: Sendable {
    public var name: String
    public var write: @Sendable (AuditRun) -> [UInt8]
    /// `nil` when the output is well formed, else what is wrong.
    public var check: @Sendable ([UInt8], AuditRun) -> String?

    /// Every format of every command. Add a format's writer here when it is added to NavReport.
    public static let all: [Output] = [
        Output(name: "audit --format text") { TextWriter.findings($0, style: TextStyle(color: false)).utf8Array } check: { bytes, _ in
            checkText(bytes, allowSGR: false)
        },
        Output(name: "audit --format text (colour)") { TextWriter.findings($0, style: TextStyle(color: true)).utf8Array } check: {
            bytes, _ in checkText(bytes, allowSGR: true)
        },
        Output(name: "audit --format ndjson") { FindingWriter.ndjson($0) } check: { bytes, run in
            checkNDJSON(bytes, records: run.findings.count)
        },
        Output(name: "audit --format ndjson --explain") { FindingWriter.ndjson($0, explain: true) } check: { bytes, run in
            checkNDJSON(bytes, records: run.findings.count)
        },
        Output(name: "audit --format json") { FindingWriter.jsonDocument($0) } check: { bytes, run in
            guard let document = parseJSON(bytes) as? [String: Any] else { return "not a JSON object" }
            guard let findings = document["findings"] as? [Any] else { return "no findings array" }
            return findings.count == run.findings.count ? nil : "\(findings.count) findings, expected \(run.findings.count)"
        },
        Output(name: "--summary") { SummaryWriter.json($0) } check: { bytes, run in
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
        Output(name: "summary text") { SummaryWriter.text($0).utf8Array } check: { bytes, _ in checkText(bytes, allowSGR: false) },
        Output(name: "sessions --format ndjson") { SessionWriter.ndjson($0) } check: { bytes, run in
            checkNDJSON(bytes, records: run.sessions.count)
        },
        Output(name: "sessions --format json") { SessionWriter.json($0) } check: { bytes, run in
            guard let sessions = parseJSON(bytes) as? [Any] else { return "not a JSON array" }
            return sessions.count == run.sessions.count ? nil : "\(sessions.count) sessions, expected \(run.sessions.count)"
        },
        Output(name: "sessions --format csv") { SessionWriter.csv($0) } check: { bytes, run in
            guard let rows = CSV.parse(bytes) else { return "not RFC 4180 CSV" }
            guard rows.count == run.sessions.count + 1 else { return "\(rows.count) rows, expected \(run.sessions.count + 1)" }
            guard rows.allSatisfy({ $0.count == rows[0].count }) else { return "rows of different widths" }
            return nil
        },
        Output(name: "sessions --format text") { SessionWriter.text($0, style: TextStyle(color: false)).utf8Array } check: {
            bytes, _ in checkText(bytes, allowSGR: false)
        },
        Output(name: "replay --format ndjson") { run in
            run.sessions.flatMap { ReplayWriter.ndjson($0, files: run.files) }
        } check: { bytes, run in
            checkNDJSON(bytes, records: run.sessions.reduce(0) { $0 + $1.steps.count })
        },
        Output(name: "replay --format text") { run in
            run.sessions.flatMap { ReplayWriter.text($0, files: run.files, style: TextStyle(color: false)).utf8Array }
        } check: { bytes, _ in checkText(bytes, allowSGR: false) },
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
func checkNDJSON(_ bytes: [UInt8], records: Int) -> String? {
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
