import Foundation
@testable import NavEvents
import NavJSON
import NavTestSupport
import Testing

/// The decoding jobs take repeated names from a `StringCache`: it must never give one string
/// for another, and decoding through it must give exactly what decoding without it gives.
@Suite struct StringCacheTests {
    @Test func theCacheNeverConfusesTwoStrings() {
        // One slot: every string collides with the one before.
        let cache = StringCache(slotsLog2: 0)
        let texts = [
            "home", "settings", "home", "", "é", String(repeating: "x", count: 48), String(repeating: "x", count: 49), "home",
            "homf", "76bc6945-d48d-4165-9074-30c3d58e8258", "76bc6945-d48d-4165-9074-30c3d58e8259",
        ]
        for text in texts + texts.reversed() {
            let utf8 = Array(text.utf8)
            #expect(utf8.withUnsafeBufferPointer { cache.string($0) } == text)
            // A hash that is not the text's chooses another slot, never another string.
            #expect(utf8.withUnsafeBufferPointer { cache.string($0, hash: 7) } == text)
        }
        let wide = StringCache()
        for index in 0..<10_000 {
            let text = "route-\(index % 97)"
            #expect(Array(text.utf8).withUnsafeBufferPointer { wide.string($0) } == text)
        }
    }

    @Test func decodingThroughTheCacheGivesWhatDecodingWithoutItGives() throws {
        var lines: [[UInt8]] = []
        for path in ["Tests/Fixtures/conformance/valid.ndjson", "Tests/Fixtures/conformance/invalid.ndjson"] {
            lines += try Repository.read(path).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true).map(Array.init)
        }
        let samples = try FileManager.default.subpathsOfDirectory(atPath: Repository.path("SampleLogs"))
            .filter { $0.hasSuffix(".ndjson") }.sorted()
        for sample in samples {
            lines += try Repository.read("SampleLogs/\(sample)").split(separator: UInt8(ascii: "\n")).map(Array.init)
        }
        // Names written with escapes, and a line whose names are the ones before, escaped.
        lines.append(
            Array(
                #"{"schema_version":1,"event_id":"e\u0031","event_name":"route_push","session_id":"s\u0031","seq":1,"timestamp":"2026-11-20T10:15:30.123Z","correlation_id":"c1","stack":"tab\u0031","from_route":null,"to_route":"detail"}"#
                    .utf8))
        lines.append(
            Array(
                #"{"schema_version":1,"event_id":"e1","event_name":"route_push","session_id":"s1","seq":1,"timestamp":"2026-11-20T10:15:30.123Z","correlation_id":"c1","stack":"tab1","from_route":null,"to_route":"detail"}"#
                    .utf8))
        #expect(lines.count > 500)
        let decoder = EventDecoder()
        let caches = [StringCache(slotsLog2: 0), StringCache(slotsLog2: 4), StringCache()]
        var decoded = 0
        for line in lines {
            let plain = line.withUnsafeBufferPointer { decoder.decode($0) }
            for cache in caches {
                let cached = line.withUnsafeBufferPointer { decoder.decode($0, names: cache) }
                switch (plain, cached) {
                case (.success(let expected), .success(let actual)):
                    #expect(actual.event == expected.event)
                    #expect(actual.identity == expected.identity && actual.contentIdentity == expected.contentIdentity)
                    #expect(actual.eventIDHash == expected.eventIDHash && actual.correlationIDHash == expected.correlationIDHash)
                case (.failure(let expected), .failure(let actual)):
                    #expect(actual.description == expected.description)
                default:
                    Issue.record("the cache changed the verdict on \(String(decoding: line, as: UTF8.self))")
                }
            }
            if case .success = plain { decoded += 1 }
        }
        #expect(decoded > 400)
    }
}
