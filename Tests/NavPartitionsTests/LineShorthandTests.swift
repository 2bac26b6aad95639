import CNavSupport
import Foundation
import NavEvents

import NavInput
import NavRuns
import NavResults
import NavTestSupport
import Testing
import NavPartitions

/// Lines copied to partition files are kept in `LineShorthand`: every line must expand back to
/// exactly its own bytes, valid event or not.
@Suite struct LineShorthandTests {
    static func shorten(_ line: [UInt8]) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: line.count)
        let written = line.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { LineShorthand.shorten(source, into: $0.baseAddress!) }
        }
        return written.map { Array(out[..<$0]) }
    }

    static func expand(_ short: [UInt8]) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: LineShorthand.expandedCapacity(short.count))
        let written = short.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { LineShorthand.expand(source, into: $0.baseAddress!) }
        }
        return written.map { Array(out[..<$0]) }
    }

    /// How many patterns `short` holds (an entry byte may be the marker's value).
    static func codes(_ short: [UInt8]) -> Int { parts(short).codes }

    /// How many patterns and packed values (UUIDs, timestamps) `short` holds: a packed value's
    /// bytes may be anything, the marker included.
    static func parts(_ short: [UInt8]) -> (codes: Int, uuids: Int, timestamps: Int) {
        var parts = (codes: 0, uuids: 0, timestamps: 0)
        var at = 0
        while at < short.count {
            if short[at] == LineShorthand.marker, at + 1 < short.count {
                switch Int32(short[at + 1]) {
                case NAVREPLAY_SHORTHAND_UUID:
                    parts.uuids += 1
                    at += 16
                case NAVREPLAY_SHORTHAND_TIME:
                    parts.timestamps += 1
                    at += 9
                default: parts.codes += 1
                }
                at += 1
            }
            at += 1
        }
        return parts
    }

    static func roundTrip(_ line: [UInt8]) -> [UInt8]? {
        shorten(line).flatMap(expand)
    }

    @Test func everySampleLineComesBackByteForByte() throws {
        let root = Repository.path("SampleLogs")
        var lines = 0
        var bytes = 0
        var shortBytes = 0
        let walker = FileManager.default.enumerator(atPath: root)
        while let relative = walker?.nextObject() as? String {
            guard relative.hasSuffix(".ndjson") else { continue }
            let data = try Data(contentsOf: URL(fileURLWithPath: root + "/" + relative))
            for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
                let line = Array(line)
                guard !line.isEmpty else { continue }
                guard let short = Self.shorten(line) else {
                    #expect(line.contains(LineShorthand.marker), "only a line with the marker is refused")
                    continue
                }
                #expect(Self.expand(short) == line, "\(relative): \(String(decoding: line, as: UTF8.self))")
                lines += 1
                bytes += line.count
                shortBytes += short.count
            }
        }
        #expect(lines > 400)
        // The keys are about 40% of a line: the shorthand must save at least a third.
        #expect(shortBytes * 3 < bytes * 2, "\(shortBytes) of \(bytes) bytes")
    }

    @Test func aTypicalLineShrinksAndEveryKeyIsShortened() throws {
        let line = Array(
            #"{"schema_version":1,"event_id":"a7cf06f6-7e95-4588-9d6e-10b363169aa3","event_name":"route_push","session_id":"s-1","seq":7,"timestamp":"2026-11-26T08:00:00.000Z","correlation_id":"76bc6945-d48d-4165-9074-30c3d58e8258","app_version":"3.2.0","platform":"ios","stack":"tab1","from_route":null,"to_route":"detail","route_params":{"id":"42"}}"#
                .utf8)
        let short = try #require(Self.shorten(line))
        #expect(Self.expand(short) == line)
        // 13 keys (event_name with its value): two bytes each; two UUIDs in 18 bytes instead of
        // 38, the timestamp in 11 instead of 26.
        #expect(Self.parts(short) == (codes: 13, uuids: 2, timestamps: 1))
        #expect(short.count < line.count * 45 / 100, "\(short.count) of \(line.count)")
    }

    /// A value is packed only when it is exactly a lowercase UUID or a `...mmmZ` timestamp:
    /// any other byte in any place, or a value of another length, keeps it as it is, and every
    /// line still comes back byte for byte.
    @Test func valuesThatAreAlmostUUIDsOrTimestampsRoundTrip() throws {
        let uuid = Array("a7cf06f6-7e95-4588-9d6e-10b363169aa3".utf8)
        let timestamp = Array("2026-11-26T08:00:00.123Z".utf8)
        let replacements = Array("0f9aAFgG-:.TZz \\\"/{,é".utf8) + [0x00, 0x01, 0x0A, 0x7F, 0xFF]
        for (value, isUUID) in [(uuid, true), (timestamp, false)] {
            for position in value.indices {
                for replacement in replacements {
                    var changed = value
                    changed[position] = replacement
                    let line = Array(#"{"seq":1,"event_id":""#.utf8) + changed + Array(#"","seq":2}"#.utf8)
                    guard let short = Self.shorten(line) else {
                        #expect(replacement == LineShorthand.marker)
                        continue
                    }
                    #expect(Self.expand(short) == line, "\(String(decoding: line, as: UTF8.self))")
                    let stillOne =
                        isUUID
                        ? changed.enumerated().allSatisfy {
                            [8, 13, 18, 23].contains($0) ? $1 == UInt8(ascii: "-") : Array("0123456789abcdef".utf8).contains($1)
                        }
                        : changed.enumerated().allSatisfy { Self.timestampShape($0, $1) }
                    let parts = Self.parts(short)
                    #expect((isUUID ? parts.uuids : parts.timestamps) == (stillOne ? 1 : 0), "\(String(decoding: line, as: UTF8.self))")
                }
            }
            // Shorter and longer values are not packed either.
            for line in [
                Array(#"{"event_id":""#.utf8) + value.dropLast() + [34], Array(#"{"event_id":""#.utf8) + value + Array("0\"".utf8),
            ] {
                let short = try #require(Self.shorten(line))
                #expect(Self.expand(short) == line)
                #expect(Self.parts(short).uuids + Self.parts(short).timestamps == 0)
            }
        }
    }

    /// Whether `byte` may be at `index` of a packed timestamp (`YYYY-MM-DDTHH:MM:SS.mmmZ`).
    static func timestampShape(_ index: Int, _ byte: UInt8) -> Bool {
        let separators: [Int: Character] = [4: "-", 7: "-", 10: "T", 13: ":", 16: ":", 19: ".", 23: "Z"]
        if let separator = separators[index] { return byte == separator.asciiValue }
        return byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// Packed bytes may be the marker or a line end: they are skipped, not read as codes, in
    /// whichever 64-byte block they fall.
    @Test func packedBytesThatAreTheMarkerOrALineEndRoundTrip() throws {
        for padding in 0..<80 {
            let line = Array(
                (#"{"to_route":"\#(String(repeating: "x", count: padding))","event_id":"01010101-0101-0a0a-0a01-010a01010101","#
                    + #""timestamp":"0101-01-01T01:01:01.001Z","correlation_id":"01010101-0101-0101-0101-010101010101","seq":1}"#).utf8)
            let short = try #require(Self.shorten(line))
            #expect(short.contains(LineShorthand.marker) && short.contains(0x0A))
            #expect(Self.expand(short) == line, "padding \(padding)")
            #expect(Self.parts(short) == (codes: 5, uuids: 2, timestamps: 1), "padding \(padding)")
        }
    }

    @Test func escapesQuotesAndKeysInsideValuesRoundTrip() {
        let cases = [
            #"{"to_route":"a\"to_route\":b","seq":1}"#,
            #"{"to_route":"a\\","seq":1}"#,
            #"{"to_route":"\\\"","event_name":"route_pop_to"}"#,
            #"{"event_name":"route_pop","event_name":"route_pop_toX","event_name":7}"#,
            #""seq":"#, #"""#, #""""#, #"":"#, "", "x", #"{"unknown_key":"seq","seq":}"#,
            #"{"event_name":"#, #"{"event_name":""#, #"{"event_name":"route_pu"#, #"{"correlation_id""#,
            "{\"platform\":\"ios\u{00E9}\",\"url\":\"\u{1F600}\"}", "\t{ \"seq\" : 1 }\r",
        ]
        for text in cases {
            let line = Array(text.utf8)
            if line.isEmpty {
                #expect(Self.shorten(line) == nil)
                continue
            }
            #expect(Self.roundTrip(line) == line, "\(text)")
        }
    }

    @Test func randomBytesAndFragmentsRoundTrip() {
        var random = SeededRandom(seed: 11)
        let fragments: [[UInt8]] =
            [
                "\"", "\\", ":", ",", "{", "}", "\"seq\":", "\"event_name\":\"", "route_pop", "\"event_name\":\"screen_view\"",
                "\"to_route\":",
                "\"correlation_id\"", "null", "\"url\":\"", "é", "\n", "\u{0}",
            ].map { Array($0.utf8) }
        for _ in 0..<5_000 {
            var line: [UInt8] = []
            for _ in 0..<Int.random(in: 0...40, using: &random) {
                if Bool.random(using: &random) {
                    line += fragments.randomElement(using: &random)!
                } else {
                    var byte = UInt8.random(in: 0...255, using: &random)
                    if byte == LineShorthand.marker { byte = 0x02 }
                    line.append(byte)
                }
            }
            guard !line.isEmpty else { continue }
            #expect(Self.roundTrip(line) == line, "\(line)")
        }
    }

    /// The keys are found 64 bytes at a time: a key whose `,` ends one block and whose quote
    /// starts the next, or whose pattern runs past a block's end, is still shortened.
    @Test func keysAcrossBlockBoundariesAreShortened() throws {
        for padding in 0..<130 {
            let text =
                #"{"schema_version":1,"event_id":"\#(String(repeating: "a", count: padding))","event_name":"route_push","session_id":"s-1","seq":7,"#
                + #""timestamp":"2026-11-26T08:00:00.000Z","correlation_id":"c","app_version":"3.2.0","platform":"ios","stack":"tab1","#
                + #""from_route":null,"to_route":"detail"}"#
            let line = Array(text.utf8)
            let short = try #require(Self.shorten(line))
            #expect(Self.expand(short) == line, "padding \(padding)")
            #expect(Self.codes(short) == 12, "padding \(padding)")
        }
    }

    /// Keys are looked for after `{`, `,` and a space: lines written with spaces between members
    /// (Python's `json.dumps` by default) are shortened as much as compact ones.
    @Test func linesWithSpacesBetweenMembersAreShortened() throws {
        let line = Array(
            #"{"schema_version": 1, "event_id": "e-1", "event_name": "route_push", "session_id": "s-1", "seq": 7, "to_route": "detail"}"#
                .utf8)
        let short = try #require(Self.shorten(line))
        #expect(Self.expand(short) == line)
        #expect(Self.codes(short) == 6)
    }

    /// Shortening writes only the room it is given: the next line's shorthand, which another
    /// job writes at the same time, lies right after it.
    @Test func shorteningWritesNothingPastTheLine() throws {
        var random = SeededRandom(seed: 5)
        let sample = Array(
            #"{"schema_version":1,"event_id":"e","event_name":"screen_view","session_id":"s","seq":1,"stack":"tab1","to_route":null}"#.utf8)
        for length in 1...sample.count {
            let line = Array(sample[..<length])
            let guardBytes = 64
            var out = [UInt8](repeating: 0xEE, count: length + guardBytes)
            for index in 0..<length { out[index] = UInt8.random(in: 0...255, using: &random) }
            let written = line.withUnsafeBufferPointer { source in
                out.withUnsafeMutableBufferPointer { LineShorthand.shorten(source, into: $0.baseAddress!) }
            }
            let count = try #require(written)
            #expect(count <= length)
            #expect(out[length...].allSatisfy { $0 == 0xEE }, "length \(length)")
            #expect(Self.expand(Array(out[..<count])) == line)
        }
    }

    /// Processors without SSE2 use the portable masks: they must find the same bytes.
    @Test func portableMasksMatchTheVectorOnes() {
        var random = SeededRandom(seed: 17)
        let interesting: [UInt8] = [
            UInt8(ascii: "\""), UInt8(ascii: ","), UInt8(ascii: "{"), UInt8(ascii: " "), LineShorthand.marker, 0x00, 0x7F, 0x80, 0xFF,
        ]
        for _ in 0..<2_000 {
            var block = [UInt8](repeating: 0, count: 64)
            for index in 0..<64 {
                block[index] =
                    Bool.random(using: &random) ? interesting.randomElement(using: &random)! : UInt8.random(in: 0...255, using: &random)
            }
            block.withUnsafeBufferPointer { bytes in
                let base = bytes.baseAddress!
                for byte in interesting {
                    var expected: UInt64 = 0
                    for index in 0..<64 where bytes[index] == byte { expected |= 1 << UInt64(index) }
                    #expect(navreplay_mask64_portable(base, byte) == expected)
                    #expect(navreplay_mask64(base, byte) == expected)
                }
                let masks = navreplay_key_masks64(base)
                #expect(masks.quotes == navreplay_mask64_portable(base, UInt8(ascii: "\"")))
                #expect(
                    masks.openers
                        == navreplay_mask64_portable(base, UInt8(ascii: ",")) | navreplay_mask64_portable(base, UInt8(ascii: "{"))
                        | navreplay_mask64_portable(base, UInt8(ascii: " ")))
                #expect((masks.markers != 0) == bytes.contains(LineShorthand.marker))
            }
        }
    }

    @Test func aLineHoldingTheMarkerIsKeptWhole() {
        #expect(Self.shorten(Array("{\"seq\":1,\"x\":\"\u{1}\"}".utf8)) == nil)
    }

    @Test func shorthandThatIsNotOneIsRefused() {
        #expect(Self.expand([LineShorthand.marker]) == nil)
        #expect(Self.expand([UInt8(ascii: "{"), LineShorthand.marker, 250]) == nil)
        #expect(Self.expand([UInt8(ascii: "{"), LineShorthand.marker, 0]) == Array("{\"schema_version\":".utf8))
        // A packed value cut short, and a packed timestamp whose last digit is not one.
        #expect(Self.expand([LineShorthand.marker, UInt8(NAVREPLAY_SHORTHAND_UUID)] + [UInt8](repeating: 0x11, count: 15)) == nil)
        #expect(Self.expand([LineShorthand.marker, UInt8(NAVREPLAY_SHORTHAND_TIME)] + [UInt8](repeating: 0x11, count: 8)) == nil)
        #expect(Self.expand([LineShorthand.marker, UInt8(NAVREPLAY_SHORTHAND_TIME)] + [UInt8](repeating: 0x11, count: 8) + [10]) == nil)
        #expect(
            Self.expand([LineShorthand.marker, UInt8(NAVREPLAY_SHORTHAND_TIME)] + [0x20, 0x26, 0x11, 0x26, 0x08, 0x00, 0x00, 0x12, 3])
                == Array(#""2026-11-26T08:00:00.123Z""#.utf8))
    }
}

/// When lines go in shorthand: past the kernel's dirty-page threshold, read from `/proc`.
@Suite struct ShorthandThresholdTests {
    @Test func theDirtyThresholdIsAPartOfTheMemory() {
        let threshold = System.dirtyBackgroundBytes
        #expect(threshold > 0)
        #expect(threshold <= System.physicalMemory)
        #expect(System.availableMemory > 0 && System.availableMemory <= System.physicalMemory)
    }

    /// The threshold, the available memory and the allowed cores are read from `/proc` files
    /// by one parser: a field's line, or the first line.
    @Test func procFilesAreReadByField() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("navreplay-proc-\(getpid())").path
        try "MemTotal:       24000000 kB\nMemAvailable:   123 kB\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(System.procValue(path, field: "MemAvailable:") == "   123 kB")
        #expect(System.procValue(path) == "MemTotal:       24000000 kB")
        #expect(System.procValue(path, field: "Cpus_allowed:") == nil)
        #expect(System.procValue(path + "-absent") == nil)
    }
}
