import NavEvents
import NavInput
import NavTestSupport
import Testing

@testable import NavStore

/// The stored lines' records: they give back exactly the located lines they were made of, and
/// damaged ones are refused, never misread.
@Suite struct ChunkCodecTests {
    static func record(_ lines: [(text: String, number: Int64, torn: Bool)], file: Int) -> [UInt8] {
        var buffer: [UInt8] = []
        for line in lines {
            let bytes = Array(line.text.utf8)
            bytes.withUnsafeBufferPointer { pointer in
                let raw = RawLine(kept: pointer, number: line.number, ending: line.torn ? .endOfInput : .newline, overlongLength: nil)
                var prefix: [UInt8] = []
                LocatedLine.appendPrefix(of: raw, file: file, to: &prefix)
                prefix.withUnsafeBufferPointer { ChunkCodec.append(prefix: $0, text: pointer, to: &buffer) }
            }
        }
        return buffer
    }

    @Test func recordsExpandToTheirLocatedLines() throws {
        let event = IngestTests.session("s1")[1].canonicalJSON
        let lines = [(event, 3 as Int64, false), ("not json \u{1}", 4, false), ("{\"torn\":", 5, true)]
        let chunk = Self.record(lines, file: 7)
        #expect(chunk.count < lines.map(\.0.utf8.count).reduce(0, +), "the event's keys are in shorthand")
        let expanded = try #require(ChunkCodec.locatedLines(chunk))
        #expect(String(decoding: expanded, as: UTF8.self) == "7\t3\t\(event)\n7\t4\tnot json \u{1}\n7\t5u\t{\"torn\":\n")
    }

    /// A line that ends in `\r` (its file held `\r\r\n`, or a torn last line) keeps it: reading
    /// the located line removes one `\r` before the `\n`, so one more is written.
    @Test func aLineEndingInACarriageReturnKeepsIt() throws {
        let chunk = Self.record([("x\r", 3, false), ("{\"torn\":\r", 4, true)], file: 0)
        let expanded = try #require(ChunkCodec.locatedLines(chunk))
        #expect(String(decoding: expanded, as: UTF8.self) == "0\t3\tx\r\r\n0\t4u\t{\"torn\":\r\r\n")
    }

    /// Read for the fold, a chunk must also be the located input of the store's files: a line of
    /// a file the store lacks, or a line end inside a line, is the chunk's damage.
    @Test func aChunkForTheFoldHoldsOnlyLinesOfTheStoresFiles() throws {
        let chunk = Self.record([("{}", 3, false), ("{\"a\":1}", 4, false)], file: 7)
        #expect(ChunkCodec.locatedLines(chunk, files: 8, maxLineBytes: 1 << 20) == ChunkCodec.locatedLines(chunk))
        #expect(ChunkCodec.locatedLines(chunk, files: 7, maxLineBytes: 1 << 20) == nil)
        let split = Self.record([("{}\n7\t9\t{}", 3, false)], file: 7)
        #expect(ChunkCodec.locatedLines(split) != nil, "the framing alone reads it")
        #expect(ChunkCodec.locatedLines(split, files: 8, maxLineBytes: 1 << 20) == nil)
    }

    @Test func damagedRecordsAreRefusedNotMisread() {
        let chunk = Self.record([(IngestTests.session("s1")[0].canonicalJSON, 1, false)], file: 0)
        var random = SeededRandom(seed: 31)
        for trial in 0..<2_000 {
            var damaged = chunk
            switch trial % 3 {
            case 0: damaged.removeLast(1 + Int(random.next() % UInt64(damaged.count)))  // cut short
            case 1: damaged[Int(random.next() % UInt64(damaged.count))] = UInt8(random.next() % 256)  // one byte changed
            default: damaged = (0..<Int(random.next() % 64)).map { _ in UInt8(random.next() % 256) }  // noise
            }
            // Either refused or read as some lines: never a crash, never an unbounded allocation.
            if let lines = ChunkCodec.locatedLines(damaged) { #expect(lines.count <= damaged.count * 40 + 64) }
        }
        #expect(ChunkCodec.locatedLines(Array(chunk.dropLast())) == nil)
    }
}
