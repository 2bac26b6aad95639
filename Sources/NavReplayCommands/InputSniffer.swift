import Foundation
import NavInput
import NavJSON

/// Looks at the first lines of each input file for a file of the wrong kind: empty, CSV, or
/// one JSON document spread over many lines. Such a file is still audited as it is (every line
/// is accounted for, each unreadable one a schema.invalid finding); the note names the likely
/// cause once, instead of leaving a reader to guess it from many findings.
enum InputSniffer {
    /// What the head of a file looks like.
    enum Kind: Equatable {
        case ndjson
        case empty(bytes: Int64)
        case csv
        case jsonDocument
    }

    /// How much of a file is looked at: the kind shows in its first lines.
    static let headBytes = 64 << 10

    /// One note per regular file of a wrong kind (standard input, FIFOs and devices are not
    /// read ahead: that would take their lines from the audit).
    static func notes(for paths: [String], maxLineBytes: Int) -> [String] {
        paths.compactMap { path in
            var status = stat()
            guard path != "-", stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
            return note(path: path, kind: kind(ofFileAt: path, maxLineBytes: maxLineBytes))
        }
    }

    static func note(path: String, kind: Kind) -> String? {
        switch kind {
        case .ndjson: nil
        case .empty(let bytes):
            bytes == 0 ? "\(path) is empty: it holds no events." : "\(path) holds only blank lines: no events."
        case .csv:
            "\(path) looks like CSV, not NDJSON: each line of a log must be one JSON event (navreplay schema "
                + "prints the event schema). Its lines are schema.invalid."
        case .jsonDocument:
            "\(path) looks like one JSON document over many lines (a pretty-printed array?), not NDJSON: each "
                + "event must be one whole line. The lines that are not one whole event are schema.invalid."
        }
    }

    private struct Enough: Error {}

    /// The kind of the file's head: its first two non-blank lines, within `headBytes`.
    static func kind(ofFileAt path: String, maxLineBytes: Int) -> Kind {
        var lines: [[UInt8]] = []
        var bytes: Int64 = 0
        do {
            try LineReader(maxLineBytes: min(maxLineBytes, headBytes), chunkSize: headBytes).readLines(of: path) { line in
                bytes += line.inputBytes
                if !line.isBlank { lines.append(Array(line.bytes)) }
                if lines.count == 2 || bytes >= Int64(headBytes) { throw Enough() }
            }
        } catch is Enough {
        } catch {
            return .ndjson  // unreadable: the audit reports it
        }
        return kind(ofLines: lines, bytesRead: bytes)
    }

    /// The kind of a file whose first non-blank lines are `lines` (at most two).
    static func kind(ofLines lines: [[UInt8]], bytesRead: Int64) -> Kind {
        guard let first = lines.first.map(trimmed) else { return .empty(bytes: bytesRead) }
        let opening = first.first == UInt8(ascii: "{") || first.first == UInt8(ascii: "[")
        if opening {
            // NDJSON whose first line is torn still has whole events after it; a document
            // over many lines has none in its first two lines.
            let whole = lines.map { (try? JSONValue.parse(trimmed($0))) != nil }
            return whole.contains(true) ? .ndjson : (lines.count > 1 ? .jsonDocument : .ndjson)
        }
        let comma = UInt8(ascii: ",")
        let brace = UInt8(ascii: "{")
        if first.contains(comma), !first.contains(brace), !(lines.dropFirst().first.map(trimmed)?.first == brace) {
            return .csv
        }
        return .ndjson
    }

    private static func trimmed(_ line: [UInt8]) -> [UInt8] {
        let space: Set<UInt8> = [0x20, 0x09, 0x0D, 0xEF, 0xBB, 0xBF]  // blanks, CR, a UTF-8 byte order mark
        return Array(line.drop { space.contains($0) }.reversed().drop { space.contains($0) }.reversed())
    }
}
