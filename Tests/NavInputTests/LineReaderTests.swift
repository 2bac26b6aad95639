#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import NavInput
import Testing

/// The streaming line reader.
@Suite struct LineReaderTests {
    private func lines(of bytes: [UInt8], maxLineBytes: Int, chunkSize: Int) throws -> [(number: Int64, length: Int?, kept: Int)] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "navreplay-reader-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).ndjson"
        ).path
        defer { unlink(path) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        var result: [(Int64, Int?, Int)] = []
        try LineReader(maxLineBytes: maxLineBytes, chunkSize: chunkSize).readLines(of: path) { line in
            result.append((line.number, line.overlongLength, line.bytes.count))
        }
        return result
    }

    @Test func anOverLongCRLFLineIsMeasuredWithoutItsLineEnd() throws {
        // 200 bytes of content, then \r\n, with a limit of 10: over-long either way (the decision
        // is right), but its length is reported as 201, the \r counted, in one read chunk or
        // across two. An over-long line ending in \n alone is measured right.
        let lf = try lines(of: [UInt8](repeating: 0x62, count: 200) + [0x0A], maxLineBytes: 10, chunkSize: 4096)
        #expect(lf.first?.length == 200)
        let first = [UInt8](repeating: 0x61, count: 3999) + [0x0A]  // line 1 ends at byte 4000
        let second = [UInt8](repeating: 0x62, count: 200) + [0x0D, 0x0A]  // crosses byte 4096
        let inOneChunk = try lines(of: second, maxLineBytes: 10, chunkSize: 4096)
        let acrossChunks = try lines(of: first + second, maxLineBytes: 10, chunkSize: 4096)
        #expect(acrossChunks.count == 2)
        #expect(acrossChunks.last?.kept == 10)
        #expect(inOneChunk.first?.length == 200)
        #expect(acrossChunks.last?.length == 200)
    }
}
