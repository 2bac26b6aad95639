import NavEvents
import NavJSON
import NavReplay
import NavReport
import NavSQLite

/// Findings as the store's `findings` rows, and back.
///
/// The row keeps every field a format writes (the explanation's states excepted), and the
/// finding's NDJSON line (`finding`), which is also its identity: a batch that folds a session
/// again compares the lines to tell new findings from withdrawn ones.
enum StoredFindings {
    static let columns =
        "session, ordinal, rule, severity, session_id, seq, event_id, file, line, message, expected, found, after_gap, event_name, witness, batch, finding"

    /// The finding's NDJSON line, as `audit --format ndjson` writes it.
    static func line(_ finding: Finding, files: [String]) -> String {
        var writer = JSONWriter()
        FindingWriter.write(finding, files: files, explain: false, to: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    static func values(_ finding: Finding, session: Int64?, ordinal: Int, batch: Int64, line: String, files: [String]) -> [SQLiteValue] {
        var witness: String?
        if let reference = finding.witness {
            var writer = JSONWriter()
            FindingWriter.write(reference, files: files, to: &writer)
            witness = String(decoding: writer.bytes, as: UTF8.self)
        }
        return [
            .optional(session), .integer(Int64(ordinal)), .text(finding.rule.rawValue), .text(finding.severity.rawValue),
            .optional(finding.sessionID), .optional(finding.seq), .optional(finding.eventID), .optional(path(finding.location, files)),
            .optional(finding.location?.line), .text(finding.message), .optional(finding.expected.map(jsonText)),
            .optional(finding.found.map(jsonText)), .integer(finding.afterGap ? 1 : 0), .optional(finding.eventName?.rawValue),
            .optional(witness), .integer(batch), .text(line),
        ]
    }

    /// A row read back (columns in `columns` order, from `offset`); `fileIndex` numbers paths
    /// as the output's file list does.
    static func finding(_ row: SQLiteRow, offset: Int32 = 0, fileIndex: [String: Int32]) -> Finding? {
        guard let rule = Rule(rawValue: row.text(offset + 2)) else { return nil }
        func location(_ path: String?, _ line: Int64?) -> LineLocation? {
            guard let path, let index = fileIndex[path], let line else { return nil }
            return LineLocation(file: index, line: line)
        }
        var finding = Finding(
            rule: rule, sessionID: row.optionalText(offset + 4), seq: row.optionalInteger(offset + 5),
            eventID: row.optionalText(offset + 6), location: location(row.optionalText(offset + 7), row.optionalInteger(offset + 8)),
            message: row.text(offset + 9), expected: row.optionalText(offset + 10).flatMap { try? JSONValue.parse($0) },
            found: row.optionalText(offset + 11).flatMap { try? JSONValue.parse($0) },
            eventName: row.optionalText(offset + 13).flatMap(EventName.init(rawValue:)))
        finding.afterGap = row.integer(offset + 12) != 0
        if let text = row.optionalText(offset + 14), case .object(let object)? = try? JSONValue.parse(text),
            case .number(let seqText)? = object["seq"], let seq = Int64(seqText),
            case .string(let eventID)? = object["event_id"], case .string(let nameText)? = object["event_name"],
            let name = EventName(rawValue: nameText)
        {
            var path: String?
            if case .string(let text)? = object["file"] { path = text }
            var line: Int64?
            if case .number(let text)? = object["line"] { line = Int64(text) }
            finding.witness = EventReference(seq: seq, eventID: eventID, name: name, location: location(path, line))
        }
        return finding
    }

    static func path(_ location: LineLocation?, _ files: [String]) -> String? {
        guard let location, location.file >= 0, Int(location.file) < files.count else { return nil }
        return files[Int(location.file)]
    }

    static func jsonText(_ value: JSONValue) -> String {
        var writer = JSONWriter()
        writer.value(value)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
