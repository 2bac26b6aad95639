import NavInput
import Testing

/// Every writer of located input (the Spark job's split router, the store's fold input, its
/// stored chunks) writes lines with `LocatedLine.append`: read back as the engine reads located
/// input, each gives its original file, number, ending, bytes and length.
@Suite struct LocatedLineTests {
    struct Case: Sendable, CustomStringConvertible {
        var text: String
        var ending: LineEnding
        var overlong: Int?
        var description: String { "\(text.debugDescription) \(ending) \(overlong.map(String.init) ?? "-")" }
    }

    static let maxLineBytes = 8

    static let cases: [Case] = [
        Case(text: "{}", ending: .newline),
        Case(text: "", ending: .newline),
        Case(text: "ab\r", ending: .newline),  // the file held "ab\r\r\n"
        Case(text: "ab\r", ending: .endOfInput),  // a torn last line that ends in `\r`
        Case(text: "a\tb", ending: .endOfInput),
        Case(text: "12345678", ending: .newline, overlong: 4_000_000),  // its first bytes, and its length
    ]

    @Test(arguments: cases)
    func aLineWrittenAsLocatedReadsBackAsItWas(_ original: Case) throws {
        let bytes = Array(original.text.utf8)
        var written: [UInt8] = []
        bytes.withUnsafeBufferPointer { pointer in
            let line = RawLine(kept: pointer, number: 41, ending: original.ending, overlongLength: original.overlong)
            LocatedLine.append(line, file: 3, to: &written)
        }
        written.append(0x0A)
        // An over-long line is written as its first bytes: never its whole length.
        #expect(written.count < 40 + bytes.count)
        var read: [(file: Int, number: Int64, ending: LineEnding, bytes: [UInt8], overlong: Int?)] = []
        var splitter = LineSplitter(maxLineBytes: Self.maxLineBytes + 64)
        let take = { (physical: RawLine) in
            var line = physical
            if case .success(let place) = LocatedLine.split(&line, files: 4, maxLineBytes: Self.maxLineBytes) {
                read.append((place.file, place.line, line.ending, Array(line.bytes), line.overlongLength))
            }
        }
        try written.withUnsafeBufferPointer { try splitter.feed($0, take) }
        try splitter.finish(take)
        try #require(read.count == 1, "\(String(decoding: written, as: UTF8.self).debugDescription)")
        #expect(read[0].file == 3 && read[0].number == 41)
        #expect(read[0].ending == original.ending)
        #expect(read[0].bytes == bytes)
        #expect(read[0].overlong == original.overlong)
    }
}
