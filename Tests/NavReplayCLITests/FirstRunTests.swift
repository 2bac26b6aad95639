import Foundation
import NavTestSupport
import Testing

/// What a newcomer meets in a first hour with the command line: exit statuses of the data
/// exports, inputs of the wrong kind, missing and empty inputs, replay's summary, help,
/// mistyped subcommands, and model files that cannot be used.
@Suite struct FirstRunTests {
    static let violations = "SampleLogs/violations"

    @Test func dataExportsExitZeroUnlessFailOnIsGiven() throws {
        let scratch = try TemporaryDirectory()
        let database = scratch.url.appendingPathComponent("s.db").path
        let report = scratch.url.appendingPathComponent("r.html").path
        #expect(try navreplay(["sessions", "-q", "--format", "csv", Self.violations]).status == 0)
        #expect(try navreplay(["sessions", "-q", "--format", "sqlite", "--output", database, Self.violations]).status == 0)
        #expect(try navreplay(["report", "-q", "--output", report, Self.violations]).status == 0)
        #expect(try navreplay(["sessions", "-q", "--fail-on", "error", Self.violations]).status == 1)
        #expect(try navreplay(["report", "-q", "--fail-on", "warning", "--output", report, Self.violations]).status == 1)
        // The audits keep failing on errors by default.
        #expect(try navreplay(["audit", "-q", Self.violations]).status == 1)
        #expect(try navreplay(["validate", "-q", Self.violations]).status == 1)
        #expect(try navreplay(["sessions", "--help"]).stdout.contains("A data export: it exits 0"))
    }

    static func eventLines(_ count: Int) throws -> [[String: Any]] {
        let text = try String(contentsOfFile: Repository.path("SampleLogs/clean/app-2026-11-20-upload1.ndjson"), encoding: .utf8)
        return try text.split(separator: "\n").prefix(count).map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test func aCSVFileIsNamedOnce() throws {
        let scratch = try TemporaryDirectory()
        let csv = try scratch.write("export.ndjson", "session_id,seq,event_name\ns1,0,session_start\ns1,1,route_push\n")
        let result = try navreplay(["audit", "--format", "ndjson", csv])
        #expect(result.status == 1)
        #expect(result.stderr.components(separatedBy: "looks like CSV, not NDJSON").count == 2, "\(result.stderr)")
        #expect(result.stderr.contains("navreplay: warning: \(csv) looks like CSV"))
        // Every line is still accounted for, each one a schema.invalid finding.
        #expect(result.stdout.split(separator: "\n").count == 3)
        #expect(result.stderr.contains("3 line(s): 0 event(s) folded, 0 blank, 3 invalid"))
    }

    @Test(arguments: [JSONSerialization.WritingOptions.prettyPrinted, []])
    func aJSONDocumentOverManyLinesIsNamedOnce(options: JSONSerialization.WritingOptions) throws {
        let scratch = try TemporaryDirectory()
        let events = try Self.eventLines(5)
        let text: String
        if options.contains(.prettyPrinted) {
            text = String(decoding: try JSONSerialization.data(withJSONObject: events, options: options), as: UTF8.self) + "\n"
        } else {
            // An array of one-line events, one a line: still one document.
            let lines = try events.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }
            text = "[\n" + lines.joined(separator: ",\n") + "\n]\n"
        }
        let path = try scratch.write("events.ndjson", text)
        let result = try navreplay(["audit", "--format", "ndjson", "--summary", scratch.path("summary.json"), path])
        let note = "looks like one JSON document over many lines (a pretty-printed array?), not NDJSON"
        #expect(result.stderr.components(separatedBy: note).count == 2, "\(result.stderr)")
        let summary = try Summary(path: scratch.path("summary.json"))
        summary.expectBalanced()
        #expect(summary["lines"] == text.split(separator: "\n").count)
    }

    @Test func anNDJSONLogWithATornFirstLineIsNotNamedAsAnotherKind() throws {
        let scratch = try TemporaryDirectory()
        let clean = try String(contentsOfFile: Repository.path("SampleLogs/clean/app-2026-11-20-upload1.ndjson"), encoding: .utf8)
        let path = try scratch.write("torn.ndjson", #"{"schema_version":1,"event_id":"e1","event_na"# + "\n" + clean)
        let result = try navreplay(["audit", "--format", "ndjson", path])
        #expect(!result.stderr.contains("navreplay: warning:"), "\(result.stderr)")
        #expect(result.stdout.split(separator: "\n").count == 1)
    }

    @Test(arguments: [["audit"], ["validate"]])
    func aMissingPathSaysNoFindingsNowhere(command: [String]) throws {
        let result = try navreplay(command + ["no-such-dir/no-such.ndjson"])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty, "\(result.stdout)")
        #expect(result.stderr.contains("no-such.ndjson: no such file"))
        #expect(result.stderr.contains("1 file(s) (1 not read in full), 0 line(s)"), "\(result.stderr)")
        // With a readable input beside it, that input's findings are still written.
        let both = try navreplay(command + ["no-such.ndjson", "SampleLogs/clean"])
        #expect(both.status == 2)
        #expect(both.stdout.isEmpty)
        #expect(both.stderr.contains("3 file(s) (1 not read in full)"), "\(both.stderr)")
    }

    @Test func anEmptyInputDrawsAWarning() throws {
        let scratch = try TemporaryDirectory()
        let empty = try scratch.write("empty.ndjson", "")
        let blank = try scratch.write("blank.ndjson", "\n  \n\n")
        let result = try navreplay(["audit", empty, blank, "SampleLogs/clean"])
        #expect(result.status == 0)
        #expect(result.stderr.contains("navreplay: warning: \(empty) is empty: it holds no events."), "\(result.stderr)")
        #expect(result.stderr.contains("navreplay: warning: \(blank) holds only blank lines: no events."))
        #expect(!result.stderr.contains("app-2026-11-20-upload1.ndjson"))
        let stdin = try navreplay(["audit", "-"], stdin: Data())
        #expect(stdin.stderr.contains("navreplay: warning: standard input is empty"), "\(stdin.stderr)")
        #expect(try navreplay(["audit", "--quiet", "--allow-empty", empty]).stderr.isEmpty)
        // Without --allow-empty, an input with no line at all is an error, said even with --quiet.
        let refused = try navreplay(["audit", "--quiet", empty])
        #expect(refused.status == 2)
        #expect(refused.stderr.hasPrefix("navreplay: error: the input holds no line at all"), "\(refused.stderr)")
    }

    @Test func replaySpeaksOfTheReplayedSession() throws {
        let result = try navreplay(["replay", "--session", "s-clean-deeplinks", "SampleLogs"])
        #expect(result.status == 0)
        let expected =
            "navreplay: session \"s-clean-deeplinks\": 24 event(s) replayed (seq 0 to 23); 0 finding(s) "
            + "(0 error(s), 0 warning(s))\n  read 13 file(s), 649 line(s) to find it\n"
        #expect(result.stderr == expected)
        let unknown = try navreplay(["replay", "--session", "s-nobody", "SampleLogs"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr == "navreplay: error: No events of session \"s-nobody\" in the input.\n")
    }

    @Test(arguments: ["audit", "validate", "sessions", "replay", "report", "repro"])
    func helpListsTheCommonOptionsFirst(command: String) throws {
        let help = try navreplay([command, "--help"]).stdout
        func position(_ text: String) throws -> String.Index {
            try #require(help.range(of: text), "\(command) --help has no \(text)").lowerBound
        }
        let options = try position("\nOPTIONS:\n")
        let large = try position("\nLARGE INPUTS:\n")
        #expect(options < large)
        #expect(try position("--model <model.json>") < large)
        for option in ["--jobs <jobs>", "--memory-limit <size>", "--pre-grouped", "--located-input", "--temp-dir", "--no-mmap"] {
            #expect(try position(option) > large, "\(command): \(option)")
        }
        if command != "repro" {
            #expect(try position("-o, --output <file>") < (try position("--model <model.json>")))
            #expect(try position("--fail-on <severity>") < large)
        }
    }

    @Test func aMistypedSubcommandGetsASuggestion() throws {
        let result = try navreplay(["audti", "SampleLogs"])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("navreplay: error: unknown subcommand 'audti'; did you mean 'audit'?\n"), "\(result.stderr)")
        let far = try navreplay(["frobnicate"])
        #expect(far.status == 2)
        #expect(far.stderr.contains("unknown subcommand 'frobnicate'; the subcommands are audit, validate,"))
        #expect(try navreplay(["help", "audit"]).status == 0)
    }

    @Test func aModelFileThatCannotBeUsedSaysWhereAndWhy() throws {
        let scratch = try TemporaryDirectory()
        let broken = try scratch.write(
            "model.json", "{\n  \"model_version\": 1,\n  \"name\": \"x\",\n  \"flows\": {\"a\": {\"stack\": \"s\"},}\n}\n")
        let syntax = try navreplay(["audit", "--model", broken, "SampleLogs/clean"])
        #expect(syntax.status == 2)
        #expect(
            syntax.stderr.contains("The model file \(broken) is invalid: $: not valid JSON: expected a string at line 4, column 33"),
            "\(syntax.stderr)")
        let missing = try navreplay(["audit", "--model", scratch.path("absent.json"), "SampleLogs/clean"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("absent.json cannot be read: No such file or directory."), "\(missing.stderr)")
        let directory = try navreplay(["audit", "--model", scratch.url.path, "SampleLogs/clean"])
        #expect(directory.stderr.contains("cannot be read: Is a directory."), "\(directory.stderr)")
    }
}
