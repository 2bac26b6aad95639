#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import NavInput
import NavEngine
import NavLog
import NavTestSupport
import Testing

// File scope: inside `FIFO`, which has a `write` of its own, the C call would not resolve.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int { write(descriptor, bytes, count) }

/// One hostile line, placed as line 2 of a log after a valid `session_start`.
struct HostileLine: CustomTestStringConvertible, Sendable {
    var id: String
    var bytes: [UInt8]
    /// The field the message must name (`field "…"`), when the damage is inside one.
    var field: String?
    /// Words the message must contain.
    var mentions: String?
    var testDescription: String { id }

    init(_ id: String, _ text: String, field: String? = nil, mentions: String? = nil) {
        self.init(id, bytes: Array(text.utf8), field: field, mentions: mentions)
    }

    init(_ id: String, bytes: [UInt8], field: String? = nil, mentions: String? = nil) {
        self.id = id
        self.bytes = bytes
        self.field = field
        self.mentions = mentions
    }

    /// A `route_push` whose `to_route` string holds `raw` bytes between its quotes.
    static func routeBytes(_ id: String, _ raw: [UInt8], mentions: String? = nil) -> HostileLine {
        let push = Lines.push(route: "ROUTE")
        let parts = push.components(separatedBy: "ROUTE")
        return HostileLine(id, bytes: Array(parts[0].utf8) + raw + Array(parts[1].utf8), field: "to_route", mentions: mentions)
    }

    static func push(replacing target: String, with replacement: String) -> String {
        Lines.push().replacingOccurrences(of: target, with: replacement)
    }
}

/// Hostile input end to end through the built binary: every line is still accounted for, the
/// message names the file, the line and the field, nothing crashes or hangs, and memory stays
/// bounded. (The decoder's own unit tests are in NavEventsTests/EventDecoderTests.)
@Suite struct HostileInputTests {
    static let hostileLines: [HostileLine] = [
        HostileLine(
            "arrays nested 100,000 deep",
            HostileLine.push(
                replacing: #""stack""#,
                with: "\"x\":" + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + #","stack""#),
            field: "x", mentions: "deep"),
        HostileLine(
            "objects nested 100,000 deep, never closed",
            HostileLine.push(
                replacing: #""stack""#, with: "\"x\":" + String(repeating: #"{"a":"#, count: 100_000)), field: "x", mentions: "deep"),
        HostileLine("seq 2^53 + 1", HostileLine.push(replacing: #""seq":1"#, with: #""seq":9007199254740993"#), field: "seq"),
        HostileLine(
            "seq with an exponent", HostileLine.push(replacing: #""seq":1"#, with: #""seq":1e0"#), field: "seq", mentions: "exponent"),
        HostileLine("seq 1.0", HostileLine.push(replacing: #""seq":1"#, with: #""seq":1.0"#), field: "seq"),
        HostileLine(
            "insert index 1e400",
            #"{"schema_version":1,"event_id":"e1","event_name":"route_insert","session_id":"s","seq":1,"timestamp":"2026-11-20T10:00:01Z","correlation_id":"c1","stack":"onboarding","to_route":"welcome","index":1e400}"#,
            field: "index"),
        HostileLine(
            "pop count beyond 2^63",
            #"{"schema_version":1,"event_id":"e1","event_name":"route_pop","session_id":"s","seq":1,"timestamp":"2026-11-20T10:00:01Z","correlation_id":"c1","stack":"onboarding","from_route":null,"to_route":null,"count":9223372036854775808}"#,
            field: "count"),
        HostileLine("NaN in an unknown field", HostileLine.push(replacing: #""stack""#, with: #""x":NaN,"stack""#), field: "x"),
        HostileLine(
            "Infinity as a count",
            #"{"schema_version":1,"event_id":"e1","event_name":"route_pop","session_id":"s","seq":1,"timestamp":"2026-11-20T10:00:01Z","correlation_id":"c1","stack":"onboarding","from_route":null,"to_route":null,"count":Infinity}"#,
            field: "count"),
        HostileLine("-Infinity as seq", HostileLine.push(replacing: #""seq":1"#, with: #""seq":-Infinity"#), field: "seq"),
        HostileLine(
            "duplicate key", HostileLine.push(replacing: #""stack":"onboarding""#, with: #""stack":"onboarding","stack":"onboarding""#),
            field: "stack", mentions: "duplicate"),
        HostileLine(
            "duplicate envelope key", HostileLine.push(replacing: #""seq":1"#, with: #""seq":1,"seq":2"#), field: "seq",
            mentions: "duplicate"),
        .routeBytes("invalid UTF-8 (0xFF)", [0x77, 0xFF, 0x77], mentions: "UTF-8"),
        .routeBytes("overlong UTF-8 (C0 AF)", [0xC0, 0xAF], mentions: "UTF-8"),
        .routeBytes("overlong UTF-8 (E0 80 AF)", [0xE0, 0x80, 0xAF], mentions: "UTF-8"),
        .routeBytes("UTF-8 encoded surrogate (ED A0 80)", [0xED, 0xA0, 0x80], mentions: "UTF-8"),
        .routeBytes("truncated UTF-8 sequence", [0xE2, 0x82], mentions: "UTF-8"),
        .routeBytes("raw NUL byte in a string", [0x61, 0x00, 0x62], mentions: "control character"),
        .routeBytes("raw escape byte in a string", [0x1B, 0x5B, 0x33, 0x31, 0x6D], mentions: "control character"),
        HostileLine("NUL byte between tokens", bytes: Array(Lines.push().utf8.dropLast()) + [0x00, 0x7D]),
        HostileLine(
            "escaped NUL in an id", HostileLine.push(replacing: #""session_id":"s""#, with: #""session_id":"s\u0000""#),
            field: "session_id", mentions: "control character"),
        HostileLine(
            "lone surrogate escape", HostileLine.push(replacing: #""to_route":"welcome""#, with: #""to_route":"\udc00""#),
            field: "to_route", mentions: "surrogate"),
        HostileLine("byte order mark before a line", bytes: [0xEF, 0xBB, 0xBF] + Array(Lines.push().utf8), mentions: "byte order mark"),
    ]

    /// Writes line 1 (a valid start) and the hostile line 2, audits, and returns the findings.
    private func audit(_ hostile: HostileLine, format: String, in scratch: TemporaryDirectory) throws -> (ProcessResult, String) {
        let path = try scratch.write("hostile.ndjson", bytes: Array((Lines.start + "\n").utf8) + hostile.bytes + [0x0A])
        let summary = scratch.path("summary-\(format).json")
        let result = try navreplay(["audit", "--format", format, "--summary", summary, path])
        try Summary(path: summary).expectBalanced()
        #expect(try Summary(path: summary)["invalid_lines"] == 1)
        return (result, path)
    }

    @Test(arguments: hostileLines)
    func aHostileLineIsOneSchemaInvalidFindingNamingFileLineAndField(_ hostile: HostileLine) throws {
        let scratch = try TemporaryDirectory()
        let (result, path) = try audit(hostile, format: "ndjson", in: scratch)
        #expect(result.status == 1, "\(hostile.id): \(result.stderr)")
        let findings = NDJSONFinding.parse(result.stdout)
        try #require(findings.count == 1, "\(hostile.id): \(result.stdout)")
        let finding = findings[0]
        #expect(finding.rule == "schema.invalid")
        #expect(finding.file == path)
        #expect(finding.line == 2)
        if let field = hostile.field { #expect(finding.message.contains("field \"\(field)\""), "\(hostile.id): \(finding.message)") }
        if let words = hostile.mentions { #expect(finding.message.contains(words), "\(hostile.id): \(finding.message)") }
        // Bounded: a message quotes at most a little of the line, never 100,000 brackets.
        #expect(finding.message.utf8.count < 1000, "\(hostile.id): a \(finding.message.utf8.count)-byte message")

        let (text, _) = try audit(hostile, format: "text", in: scratch)
        #expect(text.stdout.contains("\(path):2"), "\(hostile.id): \(text.stdout)")
        if let field = hostile.field { #expect(text.stdout.contains("field \"\(field)\"")) }
    }

    // MARK: Over-long lines

    /// Writes `count` bytes of `byte` to a file in 1 MiB pieces, never holding them all.
    private func appendRepeated(_ byte: UInt8, count: Int, to handle: FileHandle) {
        let piece = Data(repeating: byte, count: 1 << 20)
        var left = count
        while left > 0 {
            let size = min(left, piece.count)
            handle.write(size == piece.count ? piece : piece.prefix(size))
            left -= size
        }
    }

    @Test func aHundredMegabyteLineIsRejectedWithoutBeingHeld() throws {
        let scratch = try TemporaryDirectory()
        let path = scratch.path("huge.ndjson")
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        let prefix = #"{"schema_version":1,"event_id":""#
        let size = 100 * 1_048_576
        handle.write(Data((Lines.start + "\n" + prefix).utf8))
        appendRepeated(UInt8(ascii: "a"), count: size - prefix.utf8.count - 2, to: handle)
        handle.write(Data("\"}\n".utf8))
        handle.write(Data((Lines.push() + "\n").utf8))
        try handle.close()

        let summary = scratch.path("summary.json")
        let quarantine = scratch.path("quarantine.ndjson")
        // A memory limit below the file's size, so that it is read, not mapped (a mapped file's
        // pages count in the resident size).
        let outcome = try navreplayChild([
            "audit", "--format", "ndjson", "--memory-limit", "64M", "--summary", summary, "--quarantine", quarantine, path,
        ])
        #expect(outcome.exitStatus == 1, "\(outcome.stderrText)")
        let findings = NDJSONFinding.parse(outcome.stdoutText)
        try #require(findings.count == 1, "\(outcome.stdoutText)")
        #expect(findings[0].rule == "schema.invalid")
        #expect(findings[0].line == 2)
        #expect(findings[0].file == path)
        #expect(
            findings[0].message.contains("\(size + 1) bytes") || findings[0].message.contains("\(size) bytes"), "\(findings[0].message)")
        #expect(findings[0].message.contains("--max-line-bytes"))
        let counts = try Summary(path: summary)
        counts.expectBalanced()
        #expect(counts["lines"] == 3 && counts["events"] == 2 && counts["invalid_lines"] == 1, "\(counts.counts)")

        // Only the first --max-line-bytes bytes reach the quarantine.
        let record = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: quarantine))) as? [String: Any])
        let raw = try #require(Data(base64Encoded: record["raw_base64"] as? String ?? ""))
        #expect(raw.count == LineReader.defaultMaxLineBytes)
        #expect(raw.prefix(prefix.utf8.count) == Data(prefix.utf8))

        // The line is streamed past, never held: the whole process stays far below its size.
        // (Not under a sanitizer, scripts/sanitizers: its allocator keeps freed memory in
        // quarantine and adds shadow memory, so the peak says nothing about the reader there.)
        let megabytes = outcome.peakRSSBytes / 1_048_576
        if Repository.measuresMemory {
            #expect(megabytes < 48, "peak RSS \(megabytes) MB while reading a 100 MB line")
        }
    }

    @Test func aLineOverASmallLimitIsInvalidAndItsNeighboursAreNot() throws {
        let scratch = try TemporaryDirectory()
        let long = HostileLine.push(replacing: #""to_route":"welcome""#, with: "\"to_route\":\"\(String(repeating: "w", count: 5000))\"")
        let path = try scratch.write("long.ndjson", Lines.start + "\n" + long + "\r\n" + Lines.push(seq: 2, from: "\"welcome\"") + "\n")
        let summary = scratch.path("summary.json")
        let result = try navreplay(["audit", "--format", "ndjson", "--max-line-bytes", "1000", "--summary", summary, path])
        let findings = NDJSONFinding.parse(result.stdout)
        let invalid = findings.filter { $0.rule == "schema.invalid" }
        try #require(invalid.count == 1, "\(result.stdout)")
        #expect(invalid[0].line == 2)
        #expect(invalid[0].message.contains("over the limit of 1000"))
        try Summary(path: summary).expectBalanced()
        #expect(try Summary(path: summary)["events"] == 2)
    }

    // MARK: Resource caps

    @Test func resourceCapsAreDocumentedFlagsWithSafeDefaults() throws {
        let help = try navreplay(["audit", "--experimental-dump-help"])
        let root = try #require(try JSONSerialization.jsonObject(with: Data(help.stdout.utf8)) as? [String: Any])
        let arguments = (root["command"] as? [String: Any])?["arguments"] as? [[String: Any]] ?? []
        func option(_ name: String) -> [String: Any]? {
            arguments.first { ($0["names"] as? [[String: Any]] ?? []).contains { $0["name"] as? String == name } }
        }
        // Line size: 1 MiB; findings kept per session: 10,000; sessions in memory: spilled to
        // disk past --memory-limit (a quarter of the machine's memory by default).
        #expect(option("max-line-bytes")?["defaultValue"] as? String == "1048576")
        #expect(option("max-findings-per-session")?["defaultValue"] as? String == "10000")
        #expect(option("memory-limit") != nil, "--memory-limit is missing")
        for name in ["max-line-bytes", "max-findings-per-session", "memory-limit"] {
            #expect((option(name)?["abstract"] as? String)?.isEmpty == false, "--\(name) has no help text")
        }
        #expect(try navreplay(["audit", "--max-line-bytes", "0", "-"]).status == 2)
    }

    @Test func findingsBeyondTheCapAreCountedNotKept() throws {
        let scratch = try TemporaryDirectory()
        // A session of 40 pushes of an unknown route: 40 route.unknown findings.
        var log = Lines.start + "\n"
        for seq in 1...40 { log += Lines.push(seq: seq, route: "nowhere", from: seq == 1 ? "null" : "\"nowhere\"") + "\n" }
        let path = try scratch.write("many.ndjson", log)
        let summary = scratch.path("summary.json")
        let result = try navreplay(["audit", "--format", "ndjson", "--max-findings-per-session", "5", "--summary", summary, path])
        #expect(result.status == 1)
        #expect(NDJSONFinding.parse(result.stdout).count == 5)
        let counts = try Summary(path: summary)
        counts.expectBalanced()
        #expect(counts["findings"] >= 40, "the findings not kept are still counted: \(counts.json)")
    }

    @Test func findingsBeyondTheCapFailTheRunByTheirOwnSeverity() throws {
        let scratch = try TemporaryDirectory()
        // 40 screen_views, each of another screen than the visible one: 40 warnings, no error.
        var log = Lines.start + "\n"
        for seq in 1...40 {
            let route = seq % 2 == 1 ? #""welcome""# : "null"
            log +=
                #"{"schema_version":1,"event_id":"e\#(seq)","event_name":"screen_view","session_id":"s","seq":\#(seq),"timestamp":"2026-11-20T10:00:00Z","correlation_id":"c\#(seq)","stack":"onboarding","to_route":\#(route)}"#
                + "\n"
        }
        let path = try scratch.write("warnings.ndjson", log)
        // Streamed (ndjson) and kept (json) runs; 0 keeps no finding at all.
        for (format, cap) in [("ndjson", "5"), ("json", "5"), ("ndjson", "0")] {
            let arguments = ["audit", "--quiet", "--format", format, "--max-findings-per-session", cap, path]
            #expect(try navreplay(arguments).status == 0, "\(format), cap \(cap): only warnings")
            #expect(try navreplay(arguments + ["--fail-on", "warning"]).status == 1, "\(format), cap \(cap)")
        }
    }

    // MARK: Line ends, empty and blank files

    @Test func crlfLineEndsAreTolerated() throws {
        let scratch = try TemporaryDirectory()
        let path = try scratch.write("crlf.ndjson", Lines.start + "\r\n" + Lines.push() + "\r\n\r\n")
        let summary = scratch.path("summary.json")
        let result = try navreplay(["audit", "--format", "ndjson", "--summary", summary, path])
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.isEmpty)
        let counts = try Summary(path: summary)
        counts.expectBalanced()
        #expect(counts["lines"] == 3 && counts["events"] == 2 && counts["blank_lines"] == 1, "\(counts.counts)")
    }

    @Test func aByteOrderMarkAtTheStartOfAFileIsReportedOnLineOne() throws {
        let scratch = try TemporaryDirectory()
        let path = try scratch.write("bom.ndjson", bytes: [0xEF, 0xBB, 0xBF] + Array(Lines.clean.utf8))
        let summary = scratch.path("summary.json")
        let result = try navreplay(["audit", "--format", "ndjson", "--summary", summary, path])
        #expect(result.status == 1)
        let invalid = NDJSONFinding.parse(result.stdout).filter { $0.rule == "schema.invalid" }
        try #require(invalid.count == 1, "\(result.stdout)")
        #expect(invalid[0].line == 1)
        #expect(invalid[0].file == path)
        #expect(invalid[0].message.contains("byte order mark"))
        try Summary(path: summary).expectBalanced()
    }

    @Test(arguments: [("an empty file", ""), ("only blank lines", "\n   \n\t\r\n\n"), ("blank lines without a final line end", "\n \t ")])
    func filesWithoutEventsAuditCleanly(_ name: String, _ content: String) throws {
        let scratch = try TemporaryDirectory()
        let path = try scratch.write("blank.ndjson", content)
        let summary = scratch.path("summary.json")
        // Accepted with --allow-empty; without it, no event to check is an error (EmptyInputTests).
        let result = try navreplay(["audit", "--allow-empty", "--format", "ndjson", "--summary", summary, path])
        #expect(result.status == 0, "\(name): \(result.stderr)")
        #expect(result.stdout.isEmpty, "\(name)")
        #expect(try navreplay(["audit", "--format", "ndjson", path]).status == 2, "\(name)")
        let counts = try Summary(path: summary)
        counts.expectBalanced()
        let bytes = Array(content.utf8)
        let lines = bytes.filter { $0 == 0x0A }.count + (bytes.isEmpty || bytes.last == 0x0A ? 0 : 1)
        #expect(counts["lines"] == lines && counts["blank_lines"] == lines && counts["events"] == 0, "\(name): \(counts.counts)")
    }

    @Test func seededBinaryGarbageNeverCrashesAndEveryLineIsCounted() throws {
        let scratch = try TemporaryDirectory()
        var generator = SeededRandom(seed: 0x5EED)
        for round in 0..<4 {
            var bytes = (0..<65_536).map { _ in UInt8.random(in: 0...255, using: &generator) }
            // Some rounds are mostly text, so that lines and JSON-ish bytes appear.
            if round % 2 == 1 { bytes = bytes.map { $0 < 0x20 && $0 != 0x0A ? 0x22 : $0 & 0x7F } }
            let path = try scratch.write("garbage-\(round).ndjson", bytes: bytes)
            let summary = scratch.path("summary-\(round).json")
            let result = try navreplay(["audit", "--format", "ndjson", "--summary", summary, path])
            #expect(result.status == 1 || result.status == 0, "round \(round): exit \(result.status)")
            let counts = try Summary(path: summary)
            counts.expectBalanced()
            let newlines = bytes.filter { $0 == 0x0A }.count
            #expect(counts["lines"] == newlines + (bytes.last == 0x0A ? 0 : 1), "round \(round): \(counts.counts)")
        }
    }

    // MARK: Unreadable inputs

    /// A gzip file of two members (the second one damaged by `damage`), for the tests below.
    private func twoMemberGzip(damage: (inout [UInt8]) -> Void) throws -> [UInt8] {
        let first = try Gzip.compress(Array(Lines.clean.utf8))
        var second = try Gzip.compress(Array((Lines.push(seq: 2, from: "\"welcome\"") + "\n").utf8))
        damage(&second)
        return first + second
    }

    @Test(arguments: ["truncated", "corrupt"])
    func aDamagedGzipMemberIsExitTwoAndTheOtherFilesAreStillAudited(_ kind: String) throws {
        let scratch = try TemporaryDirectory()
        let bytes = try twoMemberGzip { member in
            if kind == "truncated" {
                member.removeLast(member.count / 2)
            } else {
                for index in 12..<min(member.count - 8, 40) { member[index] ^= 0x5A }  // the deflate data
            }
        }
        let damaged = try scratch.write("damaged.ndjson.gz", bytes: bytes)
        let other = try scratch.write(
            "other.ndjson",
            Lines.clean.replacingOccurrences(of: "\"s\"", with: "\"other\"")
                + "{\"not\":\"an event\"}\n")
        let summary = scratch.path("summary.json")
        let result = try navreplay(["audit", "--format", "ndjson", "--summary", summary, damaged, other])
        #expect(result.status == 2, "\(kind): \(result.stderr)")
        #expect(result.stderr.contains("\(damaged): "), "\(kind): \(result.stderr)")
        #expect(result.stderr.contains(kind == "truncated" ? "truncated" : "corrupt"), "\(result.stderr)")
        #expect(result.stderr.contains("after line 2"), "the lines of the good first member were audited: \(result.stderr)")
        // The other file is audited: its invalid line is reported.
        let findings = NDJSONFinding.parse(result.stdout)
        #expect(findings.contains { $0.file == other && $0.line == 3 && $0.rule == "schema.invalid" }, "\(result.stdout)")
        let counts = try Summary(path: summary)
        counts.expectBalanced()
        #expect(counts["unreadable_files"] == 1)
        #expect(counts["sessions"] == 2, "both sessions were folded: \(counts.json)")
    }

    @Test func anEmptyGzipFileIsATruncatedStream() throws {
        // A `.gz` upload cut to nothing could not be read (as `gzip -t` says); it is not an empty log.
        let scratch = try TemporaryDirectory()
        let empty = try scratch.write("empty.ndjson.gz", bytes: [])
        let other = try scratch.write("other.ndjson", Lines.clean)
        let result = try navreplay(["audit", "--format", "ndjson", empty, other])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("\(empty): the gzip stream is truncated: the file is empty"), "\(result.stderr)")
        #expect(result.stderr.contains("1 session(s)"), "the other file is audited: \(result.stderr)")
    }

    @Test func zeroPaddingAfterAGzipMemberIsSkippedAndAnythingElseIsNot() throws {
        // Some writers pad a file to a block size with zeros: `gzip -t` accepts them, and so does
        // the reader; other bytes after the padding are not gzip.
        let scratch = try TemporaryDirectory()
        let member = try Gzip.compress(Array(Lines.clean.utf8))
        let padded = try scratch.write("padded.ndjson.gz", bytes: member + Array(repeating: 0, count: 4096))
        let result = try navreplay(["audit", "--format", "ndjson", padded])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("1 file(s), \(Lines.clean.split(separator: "\n").count) line(s)"), "\(result.stderr)")
        let trailing = try scratch.write("trailing.ndjson.gz", bytes: member + [0, 0, 0, 0x41, 0])
        let damaged = try navreplay(["audit", "--format", "ndjson", trailing])
        #expect(damaged.status == 2, "\(damaged.stderr)")
        #expect(damaged.stderr.contains("bytes other than zeros after the zero padding"), "\(damaged.stderr)")
        // Zeros before any member are not padding.
        let leading = try scratch.write("leading.ndjson.gz", bytes: [0, 0] + member)
        #expect(try navreplay(["audit", "--format", "ndjson", leading]).status == 2)
    }

    @Test func missingFilesAndDirectoriesAreExitTwoAndEveryOtherInputIsAudited() throws {
        let scratch = try TemporaryDirectory()
        let good = try scratch.write("good.ndjson", Lines.clean)
        let missing = scratch.path("missing.ndjson")
        // A directory whose name looks like a log, found under a directory argument.
        let tree = scratch.path("tree")
        try FileManager.default.createDirectory(atPath: tree + "/looks-like.ndjson", withIntermediateDirectories: true)
        _ = try scratch.write("tree/real.ndjson", Lines.clean.replacingOccurrences(of: "\"s\"", with: "\"t\""))
        // A directory argument with no logs under it: an input that cannot be read, not nothing.
        let empty = scratch.path("empty")
        try FileManager.default.createDirectory(atPath: empty + "/sub", withIntermediateDirectories: true)
        _ = try scratch.write("empty/sub/notes.txt", "not a log")
        let summary = scratch.path("summary.json")
        let result = try navreplay(["audit", "--format", "ndjson", "--summary", summary, missing, tree, good, empty])
        #expect(result.status == 2)
        #expect(result.stderr.contains("\(missing): no such file"), "\(result.stderr)")
        #expect(result.stderr.contains("\(tree)/looks-like.ndjson: is a directory with no *.ndjson"), "\(result.stderr)")
        #expect(result.stderr.contains("\(empty): is a directory with no *.ndjson or *.ndjson.gz files under it"), "\(result.stderr)")
        let counts = try Summary(path: summary)
        counts.expectBalanced()
        #expect(counts["files"] == 5 && counts["unreadable_files"] == 3, "\(counts.json)")
        #expect(counts["events"] == 4 && counts["sessions"] == 2, "the two readable files were audited: \(counts.counts)")
    }

    /// A file name with bytes that are not UTF-8 reaches Swift with U+FFFD in their place, and
    /// that name does not exist: the run fails (exit 2), and says why instead of "no such file".
    @Test func aFileNameThatIsNotUTF8IsNamedAsSuch() throws {
        let scratch = try TemporaryDirectory()
        let folder = scratch.path("logs")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let name = Array((folder + "/bad").utf8) + [0xFF] + Array(".ndjson".utf8) + [0]
        let descriptor = name.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT, 0o644) }
        }
        try #require(descriptor >= 0)
        _ = Lines.clean.utf8CString.withUnsafeBufferPointer { systemWrite(descriptor, $0.baseAddress!, $0.count - 1) }
        close(descriptor)
        let result = try navreplay(["audit", "-q", folder])
        #expect(result.status == 2)
        #expect(result.stderr.contains("/bad\u{FFFD}.ndjson: no such file; if its name has bytes that are not UTF-8"), "\(result.stderr)")
    }

    // MARK: FIFOs

    /// Makes a FIFO and holds it open read-write (so neither side's `open` blocks); the test
    /// writes into it, in pieces with pauses so that the reader sees short reads, then closes it.
    final class FIFO {
        let path: String
        let descriptor: Int32

        init(in scratch: TemporaryDirectory) throws {
            path = scratch.path("fifo-\(UInt32.random(in: 0...UInt32.max))")
            guard mkfifo(path, 0o600) == 0 else { throw ChildProcess.SpawnError(description: "mkfifo failed: \(errno)") }
            descriptor = open(path, O_RDWR | O_CLOEXEC)
            guard descriptor >= 0 else { throw ChildProcess.SpawnError(description: "open fifo failed: \(errno)") }
        }

        /// Writes the bytes in `pieces` parts, pausing between them, then closes the FIFO: the
        /// reader sees the end of input once nobody holds it open for writing.
        func feed(_ bytes: [UInt8], pieces: Int, waitingFor reader: pid_t? = nil) {
            let size = max(1, (bytes.count + pieces - 1) / pieces)
            feed(stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min(bytes.count, $0 + size)]) }, waitingFor: reader)
        }

        func feed(_ chunks: [[UInt8]], waitingFor reader: pid_t? = nil) {
            for chunk in chunks {
                if let reader { waitUntilBlockedReading(reader) }
                write(chunk)
                usleep(20_000)
            }
            // Close only once the reader has the FIFO open and has drained it: closing first
            // would leave a reader that has not opened it yet blocked in open() for good.
            if let reader { waitUntilBlockedReading(reader) }
            close(descriptor)
        }

        /// Writes all the bytes (waiting while the FIFO is full) and keeps the FIFO open: the
        /// reader, once it has read them, waits for more. Gives up if the `reader` process
        /// ends first (a full FIFO would otherwise block the test for good).
        func write(_ bytes: [UInt8], reader: pid_t? = nil) {
            if reader != nil { _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK) }
            bytes.withUnsafeBytes { buffer in
                var done = 0
                while done < buffer.count {
                    let written = systemWrite(descriptor, buffer.baseAddress.map { $0 + done }, buffer.count - done)
                    if written > 0 {
                        done += written
                    } else if written < 0, errno == EAGAIN, let reader, ChildProcess.highWaterBytes(of: reader) != nil {
                        usleep(1000)
                    } else {
                        break
                    }
                }
            }
        }

        /// Closes the writing end: the reader sees the end of input.
        func hangUp() { close(descriptor) }

        /// Waits (at most 10 s) until the process sleeps in a pipe read: it has consumed
        /// everything written so far, so the next write is what its next `read` returns.
        func waitUntilBlockedReading(_ pid: pid_t) {
            for _ in 0..<1000 {
                let wchan = (try? String(contentsOfFile: "/proc/\(pid)/wchan", encoding: .utf8)) ?? ""
                if wchan.contains("pipe_read") || wchan.contains("pipe_wait") { return }
                usleep(10_000)
            }
        }
    }

    @Test(arguments: [false, true])
    func aFIFOIsReadToItsEnd(asStandardInput: Bool) throws {
        let scratch = try TemporaryDirectory()
        let fifo = try FIFO(in: scratch)
        let summary = scratch.path("summary.json")
        let arguments = ["audit", "--format", "ndjson", "--summary", summary, asStandardInput ? "-" : fifo.path]
        let child = try ChildProcess(try Executables.navreplay(), arguments, stdinPath: asStandardInput ? fifo.path : "/dev/null")
        var log = Lines.clean
        for seq in 2..<200 { log += Lines.push(seq: seq, from: "\"welcome\"") + "\n" }
        log += "{\"torn"  // a torn last line
        fifo.feed(Array(log.utf8), pieces: 7, waitingFor: child.pid)
        let outcome = child.wait()
        #expect(outcome.exitStatus == 1, "\(outcome.stderrText)")
        let findings = NDJSONFinding.parse(outcome.stdoutText)
        let torn = findings.filter { $0.rule == "schema.invalid" }
        #expect(torn.count == 1 && torn.first?.line == 201 && torn.first?.message.contains("torn line") == true, "\(outcome.stdoutText)")
        let counts = try Summary(path: summary)
        counts.expectBalanced()
        #expect(counts["lines"] == 201 && counts["events"] == 200, "\(counts.counts)")
    }

    @Test func gzipThroughAFIFOIsRecognisedEvenWhenTheFirstReadIsOneByte() throws {
        let scratch = try TemporaryDirectory()
        let fifo = try FIFO(in: scratch)
        let summary = scratch.path("summary.json")
        let child = try ChildProcess(
            try Executables.navreplay(), ["audit", "--format", "ndjson", "--summary", summary, "-"], stdinPath: fifo.path)
        let compressed = try Gzip.compress(Array(Lines.clean.utf8))
        // The first byte alone, then the rest: the reader's first read() returns one byte.
        fifo.feed([[compressed[0]], Array(compressed.dropFirst())], waitingFor: child.pid)
        let outcome = child.wait()
        let counts = try Summary(path: summary)
        counts.expectBalanced()
        #expect(outcome.exitStatus == 0, "\(outcome.stdoutText)")
        #expect(counts["events"] == 2, "\(counts.counts)")
    }
}

/// What the tool writes must never destroy what it reads, and no option value, output device or
/// closed descriptor may crash it (found by a black-box crash hunt, fifteenth session).
@Suite struct OutputSafetyTests {
    @Test func anOutputThatIsAnInputIsRefusedBeforeAnythingIsWritten() throws {
        let scratch = try TemporaryDirectory()
        let log = try scratch.write("log.ndjson", Lines.clean)
        let model = try scratch.write(
            "model.json", try String(contentsOfFile: Repository.path("SampleLogs/poc.model.json"), encoding: .utf8))
        for arguments in [
            ["audit", "--quarantine", log, log], ["validate", "--quarantine", log, log], ["audit", "--output", log, log],
            ["audit", "--summary", log, scratch.url.path], ["audit", "--write-baseline", log, log],
            ["audit", "--model", model, "--output", model, log], ["sessions", "--format", "sqlite", "--output", log, log],
            ["replay", "--session", "s", "--output", log, log], ["report", "--output", log, log],
        ] {
            let result = try navreplay(arguments)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("is a file this run reads"), "\(arguments): \(result.stderr)")
            #expect(try String(contentsOfFile: log, encoding: .utf8) == Lines.clean, "\(arguments) changed the input")
        }
    }

    @Test func anOutputDirectoryThatIsAFileIsAnError() throws {
        let scratch = try TemporaryDirectory()
        let file = try scratch.write("afile", "")
        let result = try navreplay([
            "repro", "--rule", "state.mismatch", "--session", "s-bad-lost-event", "SampleLogs/violations", "--output-dir", file,
        ])
        #expect(result.status == 2, "\(result.stderr)")  // was 1, which means findings
        #expect(result.stderr.contains("is a file, not a directory"), "\(result.stderr)")
    }

    @Test func aDatabaseIsNotWrittenOverAFIFOOrADevice() throws {
        let scratch = try TemporaryDirectory()
        let log = try scratch.write("log.ndjson", Lines.clean)
        let fifo = scratch.url.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let result = try navreplay(["sessions", "--format", "sqlite", "--output", fifo, log])
        #expect(result.status == 2, "\(result.stderr)")
        var status = stat()
        #expect(lstat(fifo, &status) == 0 && (status.st_mode & S_IFMT) == S_IFIFO, "the FIFO was replaced")
    }

    @Test func aQuarantineThatCannotBeWrittenFailsTheRun() throws {
        guard FileManager.default.isWritableFile(atPath: "/dev/full") else { return }
        let scratch = try TemporaryDirectory()
        let log = try scratch.write("log.ndjson", Lines.clean + "not json\n")
        let result = try navreplay(["audit", "--quiet", "--quarantine", "/dev/full", log])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("the quarantine file could not be written completely"), "\(result.stderr)")
    }

    @Test(arguments: [
        ["--max-line-bytes", "9223372036854775807"], ["--memory-limit", "8589934592G"], ["--jobs", "9223372036854775807"],
        ["--max-line-bytes", "0"], ["--jobs", "-1"],
    ])
    func anOutOfRangeOptionIsAUsageError(_ option: [String]) throws {
        let scratch = try TemporaryDirectory()
        let log = try scratch.write("log.ndjson", Lines.clean)
        for command in ["audit", "validate", "sessions"] {
            let result = try navreplay([command] + option + [log])
            #expect(result.status == 2, "\(command) \(option): \(result.stderr)")
        }
    }

    @Test func aStandardErrorThatCannotBeWrittenDoesNotChangeTheExitStatus() throws {
        guard let binary = Repository.binary, FileManager.default.isWritableFile(atPath: "/dev/full") else { return }
        let scratch = try TemporaryDirectory()
        let clean = try scratch.write("clean.ndjson", Lines.clean)
        let broken = try scratch.write("broken.ndjson", Lines.clean + "not json\n")
        for (path, expected) in [(clean, Int32(0)), (broken, 1)] {
            for redirect in ["2>/dev/full", "2>&-"] {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/bin/sh")
                process.arguments = ["-c", "'\(binary)' audit '\(path)' >/dev/null \(redirect)"]
                try process.run()
                process.waitUntilExit()
                #expect(process.terminationStatus == expected, "\(redirect) on \(path)")
            }
        }
    }

    @Test(arguments: [["schema"], ["schema", "--model"]])
    func aSchemaThatCannotBeWrittenExitsTwo(_ arguments: [String]) throws {
        guard let binary = Repository.binary, FileManager.default.isWritableFile(atPath: "/dev/full") else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "'\(binary)' \(arguments.joined(separator: " ")) >/dev/full 2>/dev/null"]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 2, "\(arguments)")
    }

    @Test func aSubdirectoryTheWalkCannotEnterIsAnUnreadableInput() throws {
        // Root reads every directory: the walk runs as user nobody, through setpriv.
        guard getuid() == 0, let binary = Repository.binary, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            return
        }
        let scratch = try TemporaryDirectory()
        _ = try scratch.write("a.ndjson", Lines.clean)
        try FileManager.default.createDirectory(at: scratch.url.appendingPathComponent("sub"), withIntermediateDirectories: true)
        _ = try scratch.write("sub/b.ndjson", Lines.clean)
        chmod(scratch.url.path, 0o755)
        chmod(scratch.url.appendingPathComponent("sub").path, 0)
        defer { chmod(scratch.url.appendingPathComponent("sub").path, 0o755) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", binary, "audit", "--quiet", scratch.url.path]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 2, "\(stderr)")
        #expect(stderr.contains("sub: cannot be read"), "\(stderr)")
    }
}
