#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import NavInput
import NavTestSupport
import Testing

/// A file's new lines found again in place, mapped or read by path, from what a first reading
/// found: how many lines came before, how many bytes it read, whether it took a torn last line.
@Suite struct InputWindowTests {
    /// Lines as a reader hands them over: number, bytes, ending.
    private struct Line: Equatable, CustomStringConvertible {
        var number: Int64
        var text: String
        var ending: LineEnding
        var description: String { "\(number):\(text)\(ending == .newline ? "" : "<torn>")" }
    }

    private static func collect(_ read: ((RawLine) throws -> Void) throws -> Void, after linesBefore: Int64) rethrows -> [Line] {
        var lines: [Line] = []
        try read { lines.append(Line(number: $0.number + linesBefore, text: String(decoding: $0.bytes, as: UTF8.self), ending: $0.ending)) }
        return lines
    }

    /// What the first reading took of `path` (every line past `linesBefore`, the torn last line
    /// only when taken) and the window it leaves.
    private static func firstReading(_ path: String, linesBefore: Int64, takesTornTail: Bool) throws -> ([Line], InputWindow) {
        let facts = ReadFacts()
        var taken: [Line] = []
        _ = try LineReader().readLines(of: path, copyingTo: nil, facts: facts) { line in
            guard line.number > linesBefore, line.ending == .newline || takesTornTail else { return }
            taken.append(Line(number: line.number, text: String(decoding: line.bytes, as: UTF8.self), ending: line.ending))
        }
        let identity = try #require(facts.identity)
        #expect(!facts.isGzip)
        let window = InputWindow(
            linesBefore: linesBefore, readBytes: facts.bytes, takesTornTail: takesTornTail, device: identity.device,
            inode: identity.inode)
        return (taken, window)
    }

    @Test(arguments: [(0, false), (0, true), (2, false), (2, true), (5, true)] as [(Int64, Bool)])
    func aWindowHoldsTheLinesTheFirstReadingTookAndNoneAppendedSince(linesBefore: Int64, takesTornTail: Bool) throws {
        let directory = try TemporaryDirectory()
        // CRLF line ends, a blank line and a last line without its line end.
        let path = try directory.write("log.ndjson", "one\r\ntwo\n\nfour\r\nfive\nsix")
        let (taken, window) = try Self.firstReading(path, linesBefore: linesBefore, takesTornTail: takesTornTail)
        // Appended after the first reading: the torn line goes on, and a line follows.
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("teen\nseven\n".utf8))
        try handle.close()

        let byPath = try Self.collect({ _ = try LineReader().readLines(of: path, window: window, $0) }, after: linesBefore)
        #expect(byPath == taken)
        let mapped = try #require(MappedInput(path: path, window: window))
        let inPlace = try Self.collect({ _ = try LineReader().readLines(of: mapped, $0) }, after: linesBefore)
        #expect(inPlace == taken)
        #expect(taken.last?.text == (takesTornTail ? "six" : "five"))
    }

    @Test func aFileReplacedOrShortenedSinceIsAnErrorNamingIt() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("log.ndjson", "one\ntwo\nthree\n")
        let (_, window) = try Self.firstReading(path, linesBefore: 1, takesTornTail: false)

        #expect(truncate(path, 4) == 0)  // the same file, shorter
        let shorter = #expect(throws: InputError.self) { _ = try LineReader().readLines(of: path, window: window) { _ in } }
        #expect(shorter?.description.hasPrefix("\(path): changed while it was read: it holds 4 bytes where it held 14") == true)
        #expect(MappedInput(path: path, window: window) == nil)

        #expect(rename(path, path + ".1") == 0)  // rotated: another file, the same bytes, takes its name
        _ = try directory.write("log.ndjson", "one\ntwo\nthree\n")
        let replaced = #expect(throws: InputError.self) { _ = try LineReader().readLines(of: path, window: window) { _ in } }
        #expect(replaced?.message == "changed while it was read: another file has its name now")
        #expect(MappedInput(path: path, window: window) == nil)
    }

    @Test func aGzipFileIsRecognisedAsSuchByItsReading() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("log.ndjson", bytes: [0x1F, 0x8B, 0x08, 0x00])
        let facts = ReadFacts()
        _ = try? LineReader().readLines(of: path, copyingTo: nil, facts: facts) { _ in }
        #expect(facts.isGzip)
    }
}
