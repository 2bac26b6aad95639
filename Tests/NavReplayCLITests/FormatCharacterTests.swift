import Foundation
import NavTestSupport
import Testing

/// Unicode format characters (bidi overrides and isolates, zero-width characters, the byte order
/// mark, the soft hyphen, tag characters) in log content never reach a person's screen raw: a
/// route named `x\u{202E}gpj.exe` would print reversed ("Trojan Source"). Every output a person
/// reads shows them as `\u{…}` escapes, as it shows control characters.
@Suite struct FormatCharacterTests {
    /// One of each kind of format character, and the escapes they must appear as.
    static let formatCharacters: [(scalar: Unicode.Scalar, escape: String)] = [
        ("\u{202E}", "\\u{202e}"), ("\u{2066}", "\\u{2066}"), ("\u{200B}", "\\u{200b}"), ("\u{061C}", "\\u{61c}"),
        ("\u{FEFF}", "\\u{feff}"), ("\u{00AD}", "\\u{ad}"), ("\u{E0041}", "\\u{e0041}"),
    ]

    static var hostile: String { "x" + String(String.UnicodeScalarView(formatCharacters.map(\.scalar))) + "gpj.exe" }

    /// A session whose id and routes hold every format character: a push of an undeclared
    /// route (a finding that names it), and a state that holds it.
    static func log() -> String {
        let session = EscapingTests.quoted("s" + hostile)
        func event(_ seq: Int, _ name: String, _ fields: String) -> String {
            "{\"schema_version\":1,\"event_id\":\"e\(seq)\",\"event_name\":\"\(name)\",\"session_id\":\(session),"
                + "\"seq\":\(seq),\"timestamp\":\"2026-11-20T10:00:0\(seq)Z\",\"correlation_id\":\"c\(seq)\",\(fields)}"
        }
        return [
            event(0, "session_start", #""app_version":"1""#),
            event(1, "route_push", "\"stack\":\"onboarding\",\"from_route\":null,\"to_route\":\(EscapingTests.quoted(hostile))"),
            event(2, "screen_view", "\"stack\":\"onboarding\",\"to_route\":\(EscapingTests.quoted(hostile))"),
        ].joined(separator: "\n") + "\n"
    }

    static func expectInert(_ output: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let raw = output.unicodeScalars.filter { scalar in formatCharacters.contains { $0.scalar == scalar } }
        #expect(raw.isEmpty, "\(what) prints \(raw.count) format character(s) raw", sourceLocation: sourceLocation)
        for (_, escape) in formatCharacters {
            #expect(output.contains(escape), "\(what) does not show \(escape)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: [
        ["audit"], ["audit", "--format", "github"], ["sessions", "--format", "text"], ["sessions", "--format", "csv"],
    ])
    func textOutputsShowFormatCharactersAsEscapes(_ command: [String]) throws {
        let scratch = try TemporaryDirectory()
        let path = try scratch.write("log\(Self.hostile).ndjson", Self.log())
        let result = try navreplay(command + [path])
        Self.expectInert(result.stdout, command.joined(separator: " "))
    }

    @Test func replayShowsFormatCharactersAsEscapes() throws {
        let scratch = try TemporaryDirectory()
        let path = try scratch.write("log\(Self.hostile).ndjson", Self.log())
        let result = try navreplay(["replay", "--session", "s" + Self.hostile, path])
        #expect(result.status != 2, "\(result.stderr)")
        Self.expectInert(result.stdout, "replay")
        // The summary on standard error names the session, escaped as every output shows it.
        Self.expectInert(result.stderr, "replay's summary")
        let missing = try navreplay(["replay", "--session", "t" + Self.hostile, path])
        #expect(missing.status == 2)
        Self.expectInert(missing.stderr, "replay's error")
    }

    @Test func theReportShowsFormatCharactersAsEscapes() throws {
        let scratch = try TemporaryDirectory()
        let path = try scratch.write("log\(Self.hostile).ndjson", Self.log())
        let report = scratch.path("report.html")
        let result = try navreplay(["report", "--output", report, path])
        #expect(result.status != 2, "\(result.stderr)")
        Self.expectInert(try String(contentsOfFile: report, encoding: .utf8), "report")
    }
}
