import Foundation
import NavTestSupport
import Testing

/// Inputs that hold no line: a CI gate over logs nothing wrote fails (`audit`, `validate`: exit
/// 2 and why) unless `--allow-empty`; an `ingest` of empty files is no error, and says so.
@Suite struct EmptyInputTests {
    static let formats = ["text", "ndjson", "json", "junit", "sarif", "github"]

    @Test(arguments: ["audit", "validate"])
    func anInputWithNoLineFailsWithTheReasonUnlessAllowed(_ command: String) throws {
        let scratch = try TemporaryDirectory()
        let empty = try scratch.write("navigation.ndjson", "")
        let blank = try scratch.write("blank.ndjson", "\n  \n")
        for format in Self.formats {
            let refused = try navreplay([command, "--format", format, empty])
            #expect(refused.status == 2, "\(command) --format \(format): \(refused.stderr)")
            #expect(refused.stderr.contains("the input holds no line at all"), "\(refused.stderr)")
            #expect(refused.stderr.contains("--allow-empty"))
            let quiet = try navreplay([command, "--format", format, "--quiet", empty])
            #expect(quiet.status == 2 && quiet.stderr.contains("holds no line at all"), "errors go to standard error even with --quiet")
            let allowed = try navreplay([command, "--format", format, "--allow-empty", empty])
            #expect(allowed.status == 0, "\(command) --format \(format) --allow-empty: \(allowed.stderr)")
        }
        let blankOnly = try navreplay([command, blank])
        #expect(blankOnly.status == 2)
        #expect(blankOnly.stderr.contains("the input holds only blank lines (2)"), "\(blankOnly.stderr)")
        let standardInput = try navreplay([command, "-"], stdin: Data())
        #expect(standardInput.status == 2)
        #expect(standardInput.stderr.contains("standard input"), "\(standardInput.stderr)")
        // One line anywhere in the inputs is enough.
        let withEvents = try navreplay([command, "--fail-on", "never", empty, Repository.path("SampleLogs/clean")])
        #expect(withEvents.status == 0, "\(withEvents.stderr)")
        // An unreadable input stays exit 2 for its own reason.
        let missing = try navreplay([command, scratch.path("absent.ndjson")])
        #expect(missing.status == 2)
        #expect(!missing.stderr.contains("holds no line"))
    }

    @Test func anIngestOfEmptyFilesExitsZeroAndSaysSo() throws {
        let scratch = try TemporaryDirectory()
        let store = scratch.path("nav.db")
        try FileManager.default.createDirectory(atPath: scratch.path("night"), withIntermediateDirectories: true)
        let empty = try scratch.write("night/app.ndjson", "")
        let result = try navreplay(["ingest", "--store", store, empty])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "nothing new: the batch holds no line (1 empty file(s))\n")
        #expect(result.stderr.contains("the batch holds no line: its 1 file(s) are empty"), "\(result.stderr)")
        #expect(!result.stderr.contains("already ingested"))
        let json = try navreplay(["ingest", "--store", store, "--format", "json", empty])
        #expect(json.status == 0)
        #expect(json.stdout.contains("\"lines\":0"))
        // A file ingested before and unchanged is still said to be so.
        let clean = Repository.path("SampleLogs/clean")
        #expect(try navreplay(["ingest", "--store", store, clean]).status == 0)
        let again = try navreplay(["ingest", "--store", store, clean])
        #expect(again.stdout == "nothing new: every file was ingested already\n")
    }
}
