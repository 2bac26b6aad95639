/// A deliberately simple, independent re-statement of docs/events-and-rules.md's line rules, used as
/// the oracle the streaming `LineReader` and the audit's counts are checked against.
///
/// It holds the whole input and splits it with the plainest code possible: lines end at `\n`;
/// a `\r` before the `\n` is removed; a final piece without `\n` is a line ending at the end of
/// input (its `\r`, if any, is kept); a line whose bytes exceed the limit is over-long; a line
/// that is not over-long and holds only spaces, tabs and `\r` is blank.
public struct NaiveLine: Sendable, Equatable {
    /// The line's bytes without its line end (all of them, even for an over-long line).
    public var bytes: [UInt8]
    public var number: Int64
    /// `true` when the line ended with `\n`; `false` for a final line without it.
    public var endedByNewline: Bool
    /// `true` when it ended with `\r\n` (the `\r` is not in `bytes`).
    public var endedByCRLF = false

    public func isOverlong(limit: Int) -> Bool { bytes.count > limit }

    public func isBlank(limit: Int) -> Bool {
        !isOverlong(limit: limit) && bytes.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
    }

    /// Splits `input` into lines.
    public static func split(_ input: [UInt8]) -> [NaiveLine] {
        var lines: [NaiveLine] = []
        var start = 0
        var number: Int64 = 0
        for index in input.indices where input[index] == 0x0A {
            number += 1
            var end = index
            if end > start && input[end - 1] == 0x0D { end -= 1 }
            lines.append(
                NaiveLine(bytes: Array(input[start..<end]), number: number, endedByNewline: true, endedByCRLF: end < index))
            start = index + 1
        }
        if start < input.count {
            number += 1
            lines.append(NaiveLine(bytes: Array(input[start...]), number: number, endedByNewline: false))
        }
        return lines
    }
}

/// Whether bytes begin with the gzip magic number (then the reader decompresses them).
public func looksLikeGzip(_ bytes: [UInt8]) -> Bool {
    bytes.count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B
}
