import Foundation
#if canImport(Glibc)
    import Glibc
#endif
import NavEvents
@testable import NavEngine
import NavJSON

import NavInput
import NavRuns
import NavResults
import NavTestSupport
import Testing
import NavPartitions

/// Spilled lines are stored in `SpillCodec`'s binary form and read back with no parsing: every
/// event must come back equal, field by field, whatever its kind.
@Suite struct SpillCodecTests {
    static func sampleEvents() throws -> [NavigationEvent] {
        let root = Repository.path("SampleLogs")
        var events: [NavigationEvent] = []
        let walker = FileManager.default.enumerator(atPath: root)
        while let relative = walker?.nextObject() as? String {
            guard relative.hasSuffix(".ndjson"), !relative.hasPrefix("expected") else { continue }
            let text = try String(contentsOfFile: root + "/" + relative, encoding: .utf8)
            for line in text.split(separator: "\n") {
                if case .success(let decoded) = EventDecoder().decode(String(line)) { events.append(decoded.event) }
            }
        }
        return events
    }

    /// Encodes after `prefix`, as a record's header comes first: whether it did, and the bytes.
    static func encode(_ event: NavigationEvent, after prefix: [UInt8] = []) -> (encoded: Bool, bytes: [UInt8]) {
        let buffer = ByteBuffer(capacity: 64)
        buffer.append(prefix)
        let encoded = SpillCodec.encode(event, into: buffer)
        return (encoded, Array(buffer.bytes))
    }

    @Test func everyKindOfEventRoundTrips() throws {
        let events = try Self.sampleEvents()
        var kinds = Set<EventName>()
        var snapshots = 0
        for event in events {
            let (encoded, bytes) = Self.encode(event, after: [0xAA])  // appended to, not replaced
            guard encoded else {
                // Only a session_start with a snapshot keeps its JSON.
                guard case .sessionStart(let snapshot) = event.payload, snapshot != nil else {
                    Issue.record("no binary form for \(event.name)")
                    continue
                }
                #expect(bytes == [0xAA])
                snapshots += 1
                continue
            }
            #expect(bytes.first == 0xAA)
            let decoded = bytes.withUnsafeBufferPointer { SpillCodec.decode(UnsafeBufferPointer(rebasing: $0[1...])) }
            #expect(decoded == event, "\(event)")
            #expect(decoded?.timestamp.isSameInstant(as: event.timestamp) == true)
            kinds.insert(event.name)
        }
        #expect(
            kinds == Set(EventName.allCases), "the samples should hold every kind: missing \(Set(EventName.allCases).subtracting(kinds))")
        #expect(snapshots > 0, "the samples should hold a snapshot")
    }

    @Test func routeParamsOfEveryValueKindRoundTrip() throws {
        let event = NavigationEvent(
            eventID: "e", sessionID: "s", seq: 3, timestamp: Timestamp("2026-11-20T10:00:00.123456Z")!, correlationID: "c",
            payload: .routePush(
                stack: "home", from: nil, to: "détail",
                params: RouteParams([
                    ("a", .string("x\u{0}y")), ("b", .number("-1.5e3")), ("c", .bool(true)), ("d", .bool(false)), ("e", .null),
                ])))
        let (encoded, bytes) = Self.encode(event)
        #expect(encoded)
        #expect(bytes.withUnsafeBufferPointer { SpillCodec.decode($0) } == event)
    }

    @Test func truncatedOrCorruptBytesDoNotDecode() throws {
        let events = try Self.sampleEvents().prefix(200)
        for event in events {
            let (encoded, bytes) = Self.encode(event)
            guard encoded else { continue }
            for cut in stride(from: 0, to: bytes.count, by: 7) {
                #expect(bytes.withUnsafeBufferPointer { SpillCodec.decode(UnsafeBufferPointer(rebasing: $0[..<cut])) } == nil)
            }
            #expect((bytes + [0]).withUnsafeBufferPointer { SpillCodec.decode($0) } == nil)
        }
    }
}

/// `--jobs 0` means the cores this process may use, so `taskset` and container limits count.
@Suite struct CoreCountTests {
    @Test func theAffinityMaskIsRead() throws {
        #if os(Linux)
            let allowed = try #require(System.allowedCores())
            #expect(allowed >= 1)
            #expect(allowed <= Int(sysconf(Int32(_SC_NPROCESSORS_CONF))))
            #expect(System.coreCount == allowed)
        #endif
    }
}

/// Routing a line by its session without decoding it is only right if the scanner finds the
/// very `session_id` the decoder would: checked on every sample line and on mutations of them.
@Suite struct SessionIDScannerTests {
    static func check(_ line: [UInt8]) -> (routed: Bool, valid: Bool) {
        line.withUnsafeBufferPointer { buffer in
            let range = SessionIDScanner.sessionID(in: buffer)
            // The literal match of the canonical layout, where it applies, finds what the walk finds.
            if let canonical = SessionIDScanner.canonicalSessionID(in: buffer) {
                #expect(canonical == SessionIDScanner.scannedSessionID(in: buffer), "\(String(decoding: line, as: UTF8.self))")
            }
            let decoded = EventDecoder().decode(buffer)
            if case .success(let event) = decoded {
                if let range {
                    let found = String(decoding: UnsafeBufferPointer(rebasing: buffer[range]), as: UTF8.self)
                    #expect(found == event.event.sessionID, "\(String(decoding: line, as: UTF8.self))")
                }
                return (range != nil, true)
            }
            return (range != nil, false)
        }
    }

    @Test func theScannerFindsTheDecodersSessionOnEverySampleLine() throws {
        var routed = 0
        var valid = 0
        for event in try SpillCodecTests.sampleEvents() {
            var writer = JSONWriter()
            event.write(to: &writer)
            let result = Self.check(writer.bytes)
            if result.valid { valid += 1 }
            if result.routed { routed += 1 }
        }
        #expect(valid > 400)
        #expect(routed == valid, "every valid sample line is routed without decoding")
    }

    @Test func canonicalLinesAreMatchedLiterally() throws {
        // The encoder's own layout takes the literal match; any other layout, or an escape
        // before the session, takes the walk.
        for event in try SpillCodecTests.sampleEvents().prefix(100) {
            var writer = JSONWriter()
            event.write(to: &writer)
            let range = writer.bytes.withUnsafeBufferPointer { SessionIDScanner.canonicalSessionID(in: $0) }
            #expect(range.map { Array(writer.bytes[$0]) } == Array(event.sessionID.utf8))
        }
        for line in [
            #"{"schema_version":1,"event_name":"session_start","event_id":"e","session_id":"s"}"#,
            #"{"schema_version":1, "event_id":"e","event_name":"session_start","session_id":"s"}"#,
            #"{"schema_version":1,"event_id":"e\"","event_name":"session_start","session_id":"s"}"#,
            #"{"schema_version":1,"event_id":"e","event_name":"session_start","session_id":"s\n"}"#,
            #"{"schema_version":1,"event_id":"e","event_name":"session_start","session_id":"s"#,
            #"{"schema_version":1,"event_id":"e","#,
        ] {
            let bytes = Array(line.utf8)
            #expect(bytes.withUnsafeBufferPointer { SessionIDScanner.canonicalSessionID(in: $0) } == nil, "\(line)")
        }
    }

    @Test func mutatedLinesAreNeverRoutedToAnotherSession() throws {
        var random = SystemRandomNumberGenerator()
        let samples = try SpillCodecTests.sampleEvents().prefix(300).map { event -> [UInt8] in
            var writer = JSONWriter()
            event.write(to: &writer)
            return writer.bytes
        }
        let alphabet = Array(#"{}[]",:\ "0123456789abcsession_id"#.utf8)
        for sample in samples {
            for _ in 0..<20 {
                var line = sample
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    let position = Int.random(in: 0..<line.count, using: &random)
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0: line[position] = alphabet.randomElement(using: &random)!
                    case 1: line.insert(alphabet.randomElement(using: &random)!, at: position)
                    default: line.remove(at: position)
                    }
                    if line.isEmpty { break }
                }
                _ = Self.check(line)
            }
        }
        // Nested objects and strings holding a "session_id" of their own.
        let nested = #"{"route_params":{"session_id":"fake"},"note":"\"session_id\":\"fake\"","session_id":"real","schema_version":1}"#
        let range = try #require(Array(nested.utf8).withUnsafeBufferPointer { SessionIDScanner.sessionID(in: $0) })
        #expect(Array(nested.utf8)[range] == Array("real".utf8)[...])
    }

    /// The scanner looks for a quote or a backslash eight bytes at a time: each at every offset
    /// of a word, in a value before the session and in the session itself.
    @Test func quotesAndBackslashesAtEveryOffsetOfAWord() throws {
        for length in 0...24 {
            for offset in 0...length {
                var text = String(repeating: "x", count: length)
                // A value before the session with an escaped quote or backslash in it.
                for escape in [#"\""#, #"\\"#] {
                    var before = text
                    before.insert(contentsOf: escape, at: before.index(before.startIndex, offsetBy: offset))
                    let line = #"{"event_id":""# + before + #"","session_id":"s-\#(length)","seq":1}"#
                    let range = try #require(Array(line.utf8).withUnsafeBufferPointer { SessionIDScanner.sessionID(in: $0) })
                    #expect(Array(line.utf8)[range] == Array("s-\(length)".utf8)[...], "\(line)")
                }
                // A session with an escape is not routed (the decoder reads it).
                var session = text
                session.insert(contentsOf: #"\n"#, at: session.index(session.startIndex, offsetBy: offset))
                let escaped = #"{"event_id":"e","session_id":""# + session + #"","seq":1}"#
                #expect(Array(escaped.utf8).withUnsafeBufferPointer { SessionIDScanner.sessionID(in: $0) } == nil)
                // A plain session of this length, its closing quote at each offset.
                text = "s" + text
                let plain = #"{"session_id":""# + text + #""}"#
                let range = try #require(Array(plain.utf8).withUnsafeBufferPointer { SessionIDScanner.sessionID(in: $0) })
                #expect(Array(plain.utf8)[range] == Array(text.utf8)[...])
            }
        }
    }
}

/// How a mapped input is cut for routing on every core.
@Suite struct ChunkRouterTests {
    func chunks(_ text: String, target: Int) -> [String] {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { buffer in
            ChunkRouter.chunks(of: buffer, target: target).map { String(decoding: bytes[$0], as: UTF8.self) }
        }
    }

    @Test func chunksEndAfterALineEndAndCoverTheFile() {
        #expect(chunks("ab\ncd\nef\n", target: 3) == ["ab\n", "cd\n", "ef\n"])
        // A chunk runs on to the end of the line its target falls in.
        #expect(chunks("ab\ncd\nef\n", target: 4) == ["ab\ncd\n", "ef\n"])
        #expect(chunks("abcdefgh\nij\n", target: 2) == ["abcdefgh\n", "ij\n"])
        // No line end at the end: the last chunk is the rest.
        #expect(chunks("ab\ncd", target: 1) == ["ab\n", "cd"])
        #expect(chunks("abcd", target: 2) == ["abcd"])
        #expect(chunks("\n\n\n", target: 1) == ["\n", "\n", "\n"])
        #expect(chunks("", target: 4) == [])
        #expect(chunks("ab\ncd\n", target: 100) == ["ab\ncd\n"])
    }
}
