import Foundation
import NavTestSupport
import Testing

/// `--quarantine FILE` end to end: every invalid line is written with its file, line, field,
/// reason and exact bytes; the lines can be fixed from the quarantine alone and fed again, and
/// then the session is whole.
@Suite struct QuarantineRoundTripTests {
    /// A session whose seqs 2...6 arrive damaged, each in its own way.
    static func damagedLog() -> (bytes: [UInt8], damaged: [Int: (field: String?, reason: String?)]) {
        var lines: [[UInt8]] = [Array(Lines.start.utf8), Array(Lines.push(seq: 1).utf8)]
        let good = (2...6).map { Array(Lines.push(seq: $0, route: "welcome", from: "\"welcome\"").utf8) }
        lines.append([0xEF, 0xBB, 0xBF] + good[0])  // line 3: a byte order mark
        lines.append(good[1] + [0x00])  // line 4: a NUL after the object
        lines.append(Array(String(decoding: good[2], as: UTF8.self).replacingOccurrences(of: "\"seq\":4", with: "\"seq\":\"4\"").utf8))  // line 5
        lines.append(
            Array(String(decoding: good[3], as: UTF8.self).replacingOccurrences(of: "welcome\"}", with: "welc\u{FFFD}ome\"}").utf8)
                .flatMap { $0 == 0xEF ? [UInt8](arrayLiteral: 0xFF) : [$0] }.filter { $0 != 0xBF && $0 != 0xBD })  // line 6: invalid UTF-8
        lines.append(Array(good[4].dropLast(20)))  // line 7: torn in the middle, with a line end
        lines.append(Array(Lines.push(seq: 7, route: "welcome", from: "\"welcome\"").utf8))
        let damaged: [Int: (String?, String?)] = [
            3: (nil, "byte order mark"), 4: (nil, "after the JSON value"), 5: ("seq", "integer"), 6: (nil, "UTF-8"), 7: (nil, nil),
        ]
        return (lines.flatMap { $0 + [0x0A] }, damaged)
    }

    /// Repairs one quarantined line from its record alone, as a person with a script would.
    static func repair(_ raw: [UInt8], field: String?, reason: String) -> [UInt8] {
        var bytes = raw
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        bytes.removeAll { $0 == 0x00 }
        var text = String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\u{FFFD}", with: "")
        if field == "seq" { text = text.replacingOccurrences(of: #""seq":"(\d+)""#, with: "\"seq\":$1", options: .regularExpression) }
        if !text.hasSuffix("}") {
            // A torn line: its seq says which event it was; rebuild the rest from the pattern.
            if let match = text.range(of: #""seq":(\d+)"#, options: .regularExpression),
                let seq = Int(text[match].dropFirst(6))
            {
                text = Lines.push(seq: seq, route: "welcome", from: "\"welcome\"")
            }
        }
        return Array(text.utf8)
    }

    @Test func quarantinedLinesCanBeFixedAndFedAgain() throws {
        let scratch = try TemporaryDirectory()
        let (bytes, damaged) = Self.damagedLog()
        let log = try scratch.write("damaged.ndjson", bytes: bytes)
        let quarantine = scratch.path("quarantine.ndjson")
        let summary = scratch.path("summary.json")
        let first = try navreplay(["audit", "--format", "ndjson", "--quarantine", quarantine, "--summary", summary, log])
        #expect(first.status == 1)
        let counts = try Summary(path: summary)
        counts.expectBalanced()
        #expect(counts["invalid_lines"] == damaged.count, "\(counts.counts)")

        // One record per invalid line, with the exact bytes of the line.
        let sourceLines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
        let records = try String(contentsOfFile: quarantine, encoding: .utf8).split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(records.count == damaged.count)
        var fixed: [UInt8] = []
        for record in records {
            let line = try #require((record["line"] as? NSNumber)?.intValue)
            let expected = try #require(damaged[line], "line \(line) was quarantined but is not damaged")
            #expect(record["file"] as? String == log)
            let reason = record["reason"] as? String ?? ""
            #expect(!reason.isEmpty)
            if let words = expected.reason { #expect(reason.contains(words), "line \(line): \(reason)") }
            if let field = expected.field { #expect(record["field"] as? String == field, "line \(line)") }
            let raw = try #require(Data(base64Encoded: record["raw_base64"] as? String ?? ""))
            #expect([UInt8](raw) == sourceLines[line - 1], "line \(line): the quarantined bytes differ from the line")
            // `raw` is the text exactly when the bytes are UTF-8.
            if let text = String(validating: [UInt8](raw), as: UTF8.self) {
                // (Foundation's JSON parser drops a leading U+FEFF from a string: compare without it.)
                let decoded = record["raw"] as? String
                #expect(decoded == text || decoded.map { "\u{FEFF}" + $0 } == text, "line \(line)")
            } else {
                #expect(record["raw"] is NSNull, "line \(line)")
            }
            fixed += Self.repair([UInt8](raw), field: record["field"] as? String, reason: reason) + [0x0A]
        }

        // Fed again next to the original: every repaired line is an event and the session has
        // no gap left.
        let repaired = try scratch.write("repaired.ndjson", bytes: fixed)
        let again = scratch.path("again.json")
        let second = try navreplay(["audit", "--format", "ndjson", "--summary", again, repaired])
        #expect(second.stdout.isEmpty == false || second.status == 0)
        let repairedCounts = try Summary(path: again)
        repairedCounts.expectBalanced()
        #expect(repairedCounts["invalid_lines"] == 0, "a repaired line is still invalid: \(second.stdout)")
        #expect(repairedCounts["events"] == damaged.count)
        let both = scratch.path("both.json")
        let third = try navreplay(["audit", "--format", "ndjson", "--fail-on", "warning", "--summary", both, log, repaired])
        let findings = NDJSONFinding.parse(third.stdout).filter { $0.rule != "schema.invalid" }
        #expect(findings.isEmpty, "the repaired session still has findings: \(third.stdout)")
        let total = try Summary(path: both)
        total.expectBalanced()
        #expect(total["events"] == 8, "seq 0...7 folded: \(total.counts)")
    }
}
