import Foundation
import NavTestSupport
import Testing

/// `navreplay partition`: the steps of a distributed audit. Routed in splits, set apart by
/// shared event ids, and audited partition by partition, a log gives what `audit` and
/// `sessions` give for it.
@Suite struct PartitionCommandTests {
    /// One frame of `route`'s output.
    struct Frame {
        var destination: Int
        var payload: [UInt8]
        var kind: Character { Character(UnicodeScalar(payload[0])) }
        /// The located lines of an `L` frame (split on bytes: a `\r\n` is one Character).
        var lines: [String] {
            payload[5...].split(separator: 0x0A, omittingEmptySubsequences: false).dropLast().map { String(decoding: $0, as: UTF8.self) }
        }
    }

    static func frames(_ bytes: [UInt8]) -> [Frame] {
        var frames: [Frame] = []
        var index = 0
        func number(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        while index + 8 <= bytes.count {
            let length = number(index + 4)
            frames.append(Frame(destination: number(index), payload: Array(bytes[(index + 8)..<(index + 8 + length)])))
            index += 8 + length
        }
        return frames
    }

    /// Runs `route` with `--output`, returning its status and frames.
    func route(_ arguments: [String], in scratch: TemporaryDirectory) throws -> (status: Int32, frames: [Frame], stderr: String) {
        let output = scratch.path("frames-\(UUID().uuidString)")
        let result = try navreplay(["partition", "route", "--output", output] + arguments)
        let bytes = [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: output))) ?? Data())
        return (result.status, Self.frames(bytes), result.stderr)
    }

    @Test func splitsCutAnywhereReadEachLineOnceWithItsNumberInTheSplit() throws {
        let scratch = try TemporaryDirectory()
        let text = "a\r\nbb\n\nccc\r\r\nd" + String(repeating: "e", count: 40) + "\n\nf"
        let path = try scratch.write("lines.ndjson", text)
        for cut in 0...text.utf8.count {
            var lines: [String] = []
            for (start, end) in [(0, cut), (cut, text.utf8.count)] {
                let result = try route(
                    [path, "--range", "\(start):\(end)", "--split-index", "3", "--partitions", "1", "--max-line-bytes", "16"], in: scratch)
                #expect(result.status == 0)
                lines += result.frames.filter { $0.kind == "L" }.flatMap(\.lines)
            }
            let contents = lines.map {
                String(decoding: Array($0.utf8).split(separator: 0x09, maxSplits: 2, omittingEmptySubsequences: false)[2], as: UTF8.self)
            }
            #expect(contents == ["a", "bb", "", "ccc\r\r", "d" + String(repeating: "e", count: 15), "", "f"], "cut at \(cut)")
            #expect(lines.allSatisfy { $0.hasPrefix("3\t") })
            // The over-long line carries its length; the last one has no line end.
            #expect(lines.contains { $0.hasPrefix("3\t") && $0.contains("/41\t") })
            #expect(lines.last?.split(separator: "\t")[1].hasSuffix("u") == true)
        }
    }

    @Test func aGzipLogIsReadWholeByTheSplitAtZero() throws {
        let scratch = try TemporaryDirectory()
        let path = scratch.path("log.ndjson.gz")
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/sh")
        gzip.arguments = ["-c", "printf '%s\\n%s\\n' '\(Lines.start)' '\(Lines.push())' | gzip > '\(path)'"]
        try gzip.run()
        gzip.waitUntilExit()
        let first = try route([path, "--range", "0:10", "--split-index", "0", "--partitions", "2"], in: scratch)
        let second = try route([path, "--range", "10:1000", "--split-index", "1", "--partitions", "2"], in: scratch)
        #expect(first.frames.filter { $0.kind == "L" }.flatMap(\.lines).count == 2)
        #expect(second.frames.filter { $0.kind == "L" }.isEmpty)
        // Both report their lines, to the first destination after the partitions.
        #expect(second.frames.contains { $0.kind == "E" && $0.destination == 2 })
    }

    @Test func aDamagedInputIsReportedAfterTheLinesBeforeIt() throws {
        let scratch = try TemporaryDirectory()
        let path = scratch.path("cut.ndjson.gz")
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/sh")
        gzip.arguments = ["-c", "(printf '%s\\n' '\(Lines.start)'; head -c 3000 /dev/zero | tr '\\0' x) | gzip | head -c 60 > '\(path)'"]
        try gzip.run()
        gzip.waitUntilExit()
        let result = try route([path, "--split-index", "0", "--partitions", "1", "--id-buckets", "1"], in: scratch)
        #expect(result.status == 2)
        #expect(result.stderr.contains("the gzip stream is truncated"))
        let report = try #require(result.frames.first { $0.kind == "E" })
        let json = try #require(try JSONSerialization.jsonObject(with: Data(report.payload[1...])) as? [String: Any])
        #expect(json["error_code"] as? String == "truncated_gzip")
        let missing = try route([scratch.path("missing.ndjson"), "--split-index", "0", "--partitions", "1"], in: scratch)
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("no such file"))
    }

    /// Shorthand records expand to exactly the lines `route` sends as text, `\r`, over-long and
    /// torn lines included.
    @Test func shorthandRecordsExpandToTheTextLines() throws {
        let scratch = try TemporaryDirectory()
        let text =
            Lines.start + "\r\n" + Lines.push() + "\n\u{1}\n" + String(repeating: "x", count: 90) + "\n" + Lines.push(seq: 2) + "\r\r"
        let log = try scratch.write("log.ndjson", text)
        let plain = try route([log, "--split-index", "4", "--partitions", "1", "--max-line-bytes", "64"], in: scratch)
        let short = try route([log, "--split-index", "4", "--partitions", "1", "--max-line-bytes", "64", "--shorthand"], in: scratch)
        let lines = plain.frames.filter { $0.kind == "L" }.flatMap { $0.payload[5...] }
        let records = short.frames.filter { $0.kind == "H" }.flatMap { $0.payload[5...] }
        #expect(records.count < lines.count)
        let input = try scratch.write("records", bytes: Array(records))
        let output = scratch.path("expanded")
        let expanded = try navreplay(["partition", "expand", "--output", output, input])
        #expect(expanded.status == 0, "\(expanded.stderr)")
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: output))) == Array(lines))
        let cut = try scratch.write("cut", bytes: Array(records.dropLast(3)))
        let refused = try navreplay(["partition", "expand", "--output", output, cut])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("ends inside a record"))
    }

    @Test(arguments: [
        (["--range", "5"], "--range as START:END"), (["--range", "9:3"], "--range as START:END"), (["--partitions", "0"], "--partitions"),
        (["--id-buckets", "-1"], "--id-buckets"), (["--sessions", "x.txt"], "--partitions 2"),
    ])
    func badOptionsAreUsageErrors(_ extra: [String], _ message: String) throws {
        var arguments = ["partition", "route", "x.ndjson", "--split-index", "0"]
        if !extra.contains("--partitions") { arguments += ["--partitions", "1"] }
        let result = try navreplay(arguments + extra)
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test func sharedNamesTheSessionsThatShareAnEventID() throws {
        let scratch = try TemporaryDirectory()
        let log = try scratch.write(
            "log.ndjson",
            Lines.start + "\n" + Lines.start.replacingOccurrences(of: #""session_id":"s""#, with: #""session_id":"t""#) + "\n"
                + Lines.push().replacingOccurrences(of: #""session_id":"s""#, with: #""session_id":"u""#) + "\n")
        let routed = try route([log, "--split-index", "0", "--partitions", "1", "--id-buckets", "1"], in: scratch)
        let entries = routed.frames.filter { $0.kind == "I" }.flatMap { $0.payload.dropFirst() }
        #expect(entries.count == 3 * 16)
        let ids = try scratch.write("ids", bytes: Array(entries))
        let shared = try navreplay(["partition", "shared", ids])
        #expect(shared.status == 0)
        let hashes = shared.stdout.split(separator: "\n")
        #expect(hashes.count == 2)  // s and t share e0; u does not
        // Set apart: the lines of s and t go to partition 1.
        let sessions = try scratch.write("shared.txt", shared.stdout)
        let located = try scratch.write(
            "located", String(decoding: routed.frames.filter { $0.kind == "L" }.flatMap { $0.payload[5...] }, as: UTF8.self))
        let apart = try route([located, "--sessions", sessions, "--partitions", "2", "--split-index", "0"], in: scratch)
        #expect(apart.frames.filter { $0.kind == "L" && $0.destination == 1 }.flatMap(\.lines).count == 2)
        #expect(apart.frames.filter { $0.kind == "L" && $0.destination == 0 }.flatMap(\.lines).count == 1)
        let odd = try scratch.write("odd", "0123456789")
        let refused = try navreplay(["partition", "shared", odd])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("not a multiple of 16"))
    }

    /// Two splits of a log, routed to three partitions, audited one by one with the splits' line
    /// offsets: merged by sort key, the findings, sessions and quarantine are `audit`'s and
    /// `sessions`' for the log.
    @Test func partitionsAuditedApartGiveTheAuditOfTheLog() throws {
        let scratch = try TemporaryDirectory()
        let original = "SampleLogs/violations/app-2026-11-20-broken.ndjson"
        let log = Repository.path(original)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: log)[.size] as? Int)
        var located: [[String]] = [[], [], []]
        var counts: [Int] = []
        for (split, range) in [(0, "0:\(size / 2)"), (1, "\(size / 2):\(size)")] {
            let routed = try route(
                [log, "--range", range, "--split-index", "\(split)", "--partitions", "3", "--id-buckets", "1"], in: scratch)
            for frame in routed.frames where frame.kind == "L" { located[frame.destination] += frame.lines }
            let report = try #require(routed.frames.first { $0.kind == "E" })
            let json = try #require(try JSONSerialization.jsonObject(with: Data(report.payload[1...])) as? [String: Any])
            counts.append(try #require(json["lines"] as? Int))
        }
        let paths = try scratch.write("paths.txt", original + "\n" + original + "\n")
        let offsets = try scratch.write("offsets.txt", "0\n\(counts[0])\n")
        var findings: [(key: String, line: String)] = []
        var sessions: [(key: String, line: String)] = []
        var quarantine: [String] = []
        func keyed(_ path: String, fields: Int) throws -> [(key: String, line: String)] {
            try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { line in
                let parts = line.split(separator: "\t", omittingEmptySubsequences: false)
                #expect(parts.count == fields)
                return (String(parts[0]), String(parts[1]))
            }
        }
        for (partition, lines) in located.enumerated() {
            let directory = scratch.path("p\(partition)")
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            _ = try scratch.write("p\(partition)/lines.ndjson", lines.map { $0 + "\n" }.joined())
            let result = try navreplay([
                "partition", "audit", "-q", "--located-input", paths, "--line-offsets", offsets,
                "--findings", directory + "/f", "--sessions", directory + "/s", "--quarantine", directory + "/q", directory,
            ])
            #expect(result.status == 0, "\(result.stderr)")
            findings += try keyed(directory + "/f", fields: 14)
            sessions += try keyed(directory + "/s", fields: 2)
            quarantine += try String(contentsOfFile: directory + "/q", encoding: .utf8).split(separator: "\n").map(String.init)
        }
        // By sort key (as bytes: the keys are ASCII), then each partition's own order.
        func merged(_ lines: [(key: String, line: String)]) -> String {
            lines.enumerated().sorted { ($0.element.key, $0.offset) < ($1.element.key, $1.offset) }.map { $0.element.line + "\n" }
                .joined()
        }
        let audit = try navreplay(["audit", "-q", "--format", "ndjson", original])
        #expect(merged(findings) == audit.stdout)
        let records = try navreplay(["sessions", "-q", "--format", "ndjson", original])
        #expect(merged(sessions) == records.stdout)
        let reference = scratch.path("quarantine")
        _ = try navreplay(["audit", "-q", "--format", "ndjson", "--quarantine", reference, original])
        let expected = try String(contentsOfFile: reference, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(quarantine.sorted() == expected.sorted())
    }

    @Test func aFindingCarriesItsSortKeyAndItsColumns() throws {
        let scratch = try TemporaryDirectory()
        let log = try scratch.write("log.ndjson", Lines.start + "\n" + Lines.push(seq: 3) + "\n")
        let paths = try scratch.write("paths.txt", log + "\n")
        try FileManager.default.createDirectory(atPath: scratch.path("in"), withIntermediateDirectories: true)
        let located = try scratch.write("in/lines.ndjson", "0\t1\t" + Lines.start + "\n" + "0\t2\t" + Lines.push(seq: 3) + "\n")
        let findings = scratch.path("findings")
        let result = try navreplay(["partition", "audit", "-q", "--located-input", paths, "--findings", findings, located])
        #expect(result.status == 0, "\(result.stderr)")
        let gap = try #require(
            try String(contentsOfFile: findings, encoding: .utf8).split(separator: "\n").first { $0.contains("seq.gap") })
        let fields = gap.split(separator: "\t").map(String.init)
        #expect(fields.count == 14 && fields[0] == "173")  // "1" and the hexadecimal bytes of "s"
        #expect(fields[1].hasPrefix(#"{"rule":"seq.gap","#) && fields[1].contains(#""expected":1,"found":3,"#), "\(gap)")
        func text(_ hex: String) -> String {
            var bytes: [UInt8] = []
            var index = hex.startIndex
            while index < hex.endIndex {
                let next = hex.index(index, offsetBy: 2)
                bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
                index = next
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        // rule, severity, session_id, seq, event_id, file, line, message, expected, found, after_gap, explanation
        #expect(text(fields[2]) == "seq.gap" && text(fields[3]) == "warning" && text(fields[4]) == "s")
        #expect(fields[5] == "3" && fields[8] == "2" && fields[12] == "1" && fields[13] == "-")
        #expect(text(fields[10]) == "1" && text(fields[11]) == "3" && text(fields[7]) == log)
    }

    @Test func lineOffsetsMustMatchThePathsFile() throws {
        let scratch = try TemporaryDirectory()
        let paths = try scratch.write("paths.txt", "a.ndjson\nb.ndjson\n")
        let located = try scratch.write("in.ndjson", "0\t1\t" + Lines.start + "\n")
        let short = try scratch.write("short.txt", "0\n")
        let result = try navreplay(["partition", "audit", "-q", "--located-input", paths, "--line-offsets", short, located])
        #expect(result.status == 2)
        #expect(result.stderr.contains("has 1 numbers; the paths file has 2 lines"), "\(result.stderr)")
        let bad = try scratch.write("bad.txt", "0\n-4\n")
        let refused = try navreplay(["partition", "audit", "-q", "--located-input", paths, "--line-offsets", bad, located])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("line 2, is not a number of 0 or more"))
        let missing = try navreplay(["partition", "audit", "-q", located])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("--located-input"))
    }
}
