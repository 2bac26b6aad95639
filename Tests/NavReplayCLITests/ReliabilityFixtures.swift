import Foundation
import Testing

/// Log lines and checks shared by the reliability tests (hostile input, escaping, crash-safe
/// writer, quarantine round trip).
enum Lines {
    static let envelope =
        #""schema_version":1,"session_id":"s","timestamp":"2026-11-20T10:00:00Z""#

    /// `session_start` at seq 0 of session `s`.
    static let start =
        #"{"schema_version":1,"event_id":"e0","event_name":"session_start","session_id":"s","seq":0,"timestamp":"2026-11-20T10:00:00Z","correlation_id":"c0","app_version":"1"}"#

    /// A valid `route_push` of session `s` at `seq`, its fields replaceable.
    static func push(seq: Int = 1, route: String = "welcome", from: String = "null") -> String {
        #"{"schema_version":1,"event_id":"e\#(seq)","event_name":"route_push","session_id":"s","seq":\#(seq),"timestamp":"2026-11-20T10:00:0\#(seq % 10)Z","correlation_id":"c\#(seq)","stack":"onboarding","from_route":\#(from),"to_route":"\#(route)"}"#
    }

    /// A clean two-event session, each line ended by `\n`.
    static let clean = start + "\n" + push() + "\n"
}

/// The summary of `--summary FILE`.
struct Summary {
    var json: [String: Any]

    init(path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], sourceLocation: sourceLocation)
    }

    subscript(key: String) -> Int { (json[key] as? NSNumber)?.intValue ?? -1 }

    /// docs/events-and-rules.md: `lines = blank_lines + invalid_lines + redeliveries + duplicates + events`.
    var isBalanced: Bool {
        self["lines"] == self["blank_lines"] + self["invalid_lines"] + self["redeliveries"] + self["duplicates"] + self["events"]
    }

    var counts: String {
        ["lines", "blank_lines", "invalid_lines", "redeliveries", "duplicates", "events"].map { "\($0) \(self[$0])" }
            .joined(separator: ", ")
    }

    /// Fails the test unless every line is accounted for.
    func expectBalanced(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(isBalanced, "the summary does not balance: \(counts)", sourceLocation: sourceLocation)
    }
}

/// One finding of `--format ndjson`.
struct NDJSONFinding {
    var json: [String: Any]
    var rule: String { json["rule"] as? String ?? "" }
    var file: String? { json["file"] as? String }
    var line: Int? { (json["line"] as? NSNumber)?.intValue }
    var message: String { json["message"] as? String ?? "" }

    /// Every line of an ndjson report; a line that is not a JSON object fails the test.
    static func parse(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> [NDJSONFinding] {
        text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                Issue.record("not a JSON object: \(line)", sourceLocation: sourceLocation)
                return nil
            }
            return NDJSONFinding(json: object)
        }
    }
}
