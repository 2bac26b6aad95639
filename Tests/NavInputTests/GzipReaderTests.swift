#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import NavInput
import NavLog
import NavTestSupport
import Testing

/// A gzip input is read and inflated on a thread of its own, a ring of blocks ahead of the
/// splitting (`InflateAhead`): the lines, their numbers, the errors and an early stop must be
/// those of reading it inline, over many turns of the ring.
@Suite struct GzipReaderTests {
    /// Lines of random lengths (0 to 3,000 bytes: some cross a block), some ending in `\r\n`.
    private static func text(lines: Int, seed: UInt64) -> [UInt8] {
        var generator = SeededRandom(seed: seed)
        var bytes: [UInt8] = []
        for number in 0..<lines {
            let length = Int(generator.next() % 3_000)
            bytes += Array("\(number):".utf8)
            for _ in 0..<length { bytes.append(0x61 + UInt8(generator.next() % 26)) }
            if generator.next() % 8 == 0 { bytes.append(0x0D) }
            bytes.append(0x0A)
        }
        return bytes
    }

    private struct Scratch {
        let directory: URL
        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("navreplay-gzip-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        func write(_ name: String, _ bytes: [UInt8]) throws -> String {
            let path = directory.appendingPathComponent(name).path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return path
        }
        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    private struct Read: Equatable {
        var lines: [[UInt8]] = []
        var numbers: [Int64] = []
        var error: InputError?

        static func == (lhs: Read, rhs: Read) -> Bool {
            lhs.lines == rhs.lines && lhs.numbers == rhs.numbers && lhs.error?.code == rhs.error?.code
                && lhs.error?.message == rhs.error?.message && lhs.error?.afterLine == rhs.error?.afterLine
        }
    }

    private static func read(_ path: String, stopAfter: Int? = nil) -> Read {
        var result = Read()
        struct Enough: Error {}
        do {
            try LineReader(maxLineBytes: 2_000, chunkSize: 64 << 10).readLines(of: path) { line in
                if let stopAfter, result.lines.count == stopAfter { throw Enough() }
                result.lines.append(Array(line.bytes))
                result.numbers.append(line.number)
            }
        } catch let error as InputError {
            result.error = error
        } catch {}
        return result
    }

    @Test func aLargeMultiMemberFileReadsAsItsPlainText() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        // About 6 MB of lines in three members: the ring (8 blocks of 256 KiB) turns three times.
        let text = Self.text(lines: 4_000, seed: 7)
        let third = text.count / 3
        let cuts = [0, text.firstIndex(of: 0x0A, after: third), text.firstIndex(of: 0x0A, after: 2 * third), text.count]
        var gzip: [UInt8] = []
        for (start, end) in zip(cuts, cuts.dropFirst()) { gzip += try Gzip.compress(Array(text[start..<end]), level: 1) }
        let plain = Self.read(try scratch.write("log.ndjson", text))
        let inflated = Self.read(try scratch.write("log.ndjson.gz", gzip))
        #expect(plain.error == nil && plain.lines.count == 4_000)
        #expect(inflated == plain)
    }

    @Test(arguments: ["corrupt", "truncated"])
    func anErrorLateInTheStreamComesAfterEveryLineBeforeIt(_ kind: String) throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let text = Self.text(lines: 3_000, seed: 11)
        let first = try Gzip.compress(text, level: 1)
        var second = try Gzip.compress(Array("last:line\n".utf8))
        if kind == "corrupt" {
            second[2] = 9  // an unknown compression method
        } else {
            second.removeLast(second.count / 2)
        }
        let read = Self.read(try scratch.write("damaged.ndjson.gz", first + second))
        #expect(read.lines.count == 3_000, "every line of the first member, in order")
        #expect(read.numbers == Array(1...3_000))
        #expect(read.error?.code == (kind == "corrupt" ? .corruptGzip : .truncatedGzip), "\(String(describing: read.error))")
        #expect(read.error?.afterLine == 3_000)
    }

    @Test func aReaderThatStopsEarlyStopsTheInflatingThread() throws {
        // The reader stops at once, inside the first block, or after the ring is full; every
        // time the call returns (no thread left waiting), and reading again gives the same lines.
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = try scratch.write("log.ndjson.gz", try Gzip.compress(Self.text(lines: 4_000, seed: 3), level: 1))
        let whole = Self.read(path)
        for stop in [0, 1, 150, 1_000, 2_500, 3_999] {
            for _ in 0..<5 {
                let partial = Self.read(path, stopAfter: stop)
                #expect(partial.error == nil)
                #expect(partial.lines == Array(whole.lines.prefix(stop)), "stopped after \(stop)")
            }
        }
        #expect(Self.read(path) == whole)
    }
}

extension [UInt8] {
    fileprivate func firstIndex(of byte: UInt8, after start: Int) -> Int {
        (self[start...].firstIndex(of: byte) ?? count - 1) + 1
    }
}
