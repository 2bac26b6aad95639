import NavInput

/// The `located` fuzz target: located input (`FILE_INDEX<TAB>LINE<TAB>` before each line) split
/// into lines as the engine reads it (`LineSplitter`, in chunks, so that lines cross them) and
/// each prefix parsed by `LocatedLine.split`.
///
/// The input's first byte sets how many lines the paths file has (0 to 7), the second the line
/// limit (`--max-line-bytes`, 1 to 256), the third the chunk size; the rest is the text.
///
/// - The verdict agrees with a plain restatement of the prefix's grammar (`NaivePrefix`), and a
///   failure is described.
/// - An accepted line: its file index is below the count, its number and ending are the prefix's,
///   its bytes are the rest of the line after the prefix (the first `--max-line-bytes` of them
///   when that rest is over-long, or the reader cut the line, which it then says), and the line written again with the
///   shortest prefix splits to the same.
public enum LocatedCheck {
    public static func check(_ input: UnsafeBufferPointer<UInt8>) -> [String] {
        guard input.count >= 3 else { return [] }
        let files = Int(input[0] % 8)
        let maxLineBytes = Int(input[1]) + 1
        let chunkSize = Int(input[2] % 64) + 1
        let text = UnsafeBufferPointer(rebasing: input[3...])
        var violations: [String] = []
        // As the engine reads located input: 64 bytes more than the limit, for the prefix.
        var splitter = LineSplitter(maxLineBytes: maxLineBytes + 64)
        var start = 0
        let body: (RawLine) throws -> Void = { line in
            guard violations.count < 5 else { return }
            violations += checkLine(line, files: files, maxLineBytes: maxLineBytes)
        }
        do {
            while start < text.count {
                let end = min(text.count, start + chunkSize)
                try splitter.feed(UnsafeBufferPointer(rebasing: text[start..<end]), body)
                start = end
            }
            try splitter.finish(body)
        } catch {
            violations.append("the splitter threw: \(error)")
        }
        return violations
    }

    static func checkLine(_ original: RawLine, files: Int, maxLineBytes: Int) -> [String] {
        var line = original
        let expected = NaivePrefix(original, files: files, maxLineBytes: maxLineBytes)
        switch LocatedLine.split(&line, files: files, maxLineBytes: maxLineBytes) {
        case .failure(let malformed):
            if malformed.describe(files: files).isEmpty { return ["a malformed prefix is not described"] }
            if let expected, expected.isCertain { return ["a valid prefix was refused (\(malformed)): \(show(original))"] }
            return []
        case .success(let (file, number)):
            guard let expected else { return ["a malformed prefix was accepted: \(show(original))"] }
            var violations: [String] = []
            if file != expected.file || number != expected.line || line.number != number {
                violations.append("the prefix was read as \(file):\(number), expected \(expected.file):\(expected.line)")
            }
            if file < 0 || file >= files { violations.append("file index \(file) is out of range") }
            let ending: LineEnding = expected.unterminated ? .endOfInput : original.ending
            if line.ending != ending { violations.append("the ending is \(line.ending), expected \(ending)") }
            // The rest of the line, and what an over-long one keeps.
            let restLength = (original.overlongLength ?? original.bytes.count) - expected.length
            let kept = Array(original.bytes.dropFirst(expected.length).prefix(maxLineBytes))
            if Array(line.bytes) != kept { violations.append("the line's bytes are not what follows the prefix") }
            // A line the reader cut stays over-long, whatever its prefix's length; a declared
            // `/LENGTH` is the length of the line before the router cut it.
            let overlong =
                expected.declaredLength.map { Int($0) }
                ?? (restLength > maxLineBytes || original.overlongLength != nil ? restLength : nil)
            if line.overlongLength != overlong {
                violations.append("over-long length \(String(describing: line.overlongLength)), expected \(String(describing: overlong))")
            }
            if original.overlongLength == nil, expected.declaredLength == nil {
                violations += checkRoundTrip(line, file: file, files: files, maxLineBytes: maxLineBytes)
            }
            return violations
        }
    }

    /// The line written again with the shortest prefix splits to the same file, number, ending and bytes.
    static func checkRoundTrip(_ line: RawLine, file: Int, files: Int, maxLineBytes: Int) -> [String] {
        let prefix = "\(file)\t\(line.number)\(line.ending == .endOfInput ? "u" : "")\t"
        // Ended as the reader will take it back: a last line without a line end; a line that
        // ends in `\r` with `\r\n` (the reader removes one `\r`).
        var rebuilt = Array(prefix.utf8) + Array(line.bytes)
        if line.ending == .newline { rebuilt += line.bytes.last == 0x0D ? [0x0D, 0x0A] : [0x0A] }
        var violations: [String] = []
        var splitter = LineSplitter(maxLineBytes: rebuilt.count)
        let body: (RawLine) -> Void = { made in
            var again = made
            guard case .success(let (file2, number2)) = LocatedLine.split(&again, files: files, maxLineBytes: maxLineBytes) else {
                violations.append("the line written again with its prefix is refused")
                return
            }
            if file2 != file || number2 != line.number || Array(again.bytes) != Array(line.bytes) || again.ending != line.ending {
                violations.append("the line written again with its prefix splits otherwise")
            }
        }
        rebuilt.withUnsafeBufferPointer { buffer in
            try? splitter.feed(buffer, body)
            try? splitter.finish(body)
        }
        return violations
    }

    static func show(_ line: RawLine) -> String {
        String(decoding: line.bytes.prefix(40), as: UTF8.self).debugDescription
    }
}

/// The located prefix's grammar, restated plainly: `FILE_INDEX` (decimal digits, zeros in front
/// allowed), a tab, `LINE` (decimal, 1 or more, no zero in front), an optional `u`, an optional
/// `/LENGTH` (an over-long line's length before it was cut: decimal, no zero in front, over
/// `--max-line-bytes` and over the bytes that follow, on a line the reader did not cut), a tab.
struct NaivePrefix {
    var file: Int
    var line: Int64
    var unterminated: Bool
    var declaredLength: Int64?
    /// The prefix's bytes, both tabs included.
    var length: Int
    /// `false` for numbers of 19 digits or more, near `Int64`'s limit, where the parser may
    /// refuse what fits.
    var isCertain: Bool

    init?(_ original: RawLine, files: Int, maxLineBytes: Int) {
        let text = Array(original.bytes)
        guard let firstTab = text.firstIndex(of: 0x09) else { return nil }
        let fileDigits = text[..<firstTab]
        guard !fileDigits.isEmpty, fileDigits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        let significant = fileDigits.drop { $0 == 0x30 }
        guard let secondTab = text[(firstTab + 1)...].firstIndex(of: 0x09) else { return nil }
        var lineDigits = text[(firstTab + 1)..<secondTab]
        var lengthDigits: ArraySlice<UInt8>?
        if let slash = lineDigits.firstIndex(of: UInt8(ascii: "/")) {
            lengthDigits = lineDigits[(slash + 1)...]
            lineDigits = lineDigits[..<slash]
        }
        unterminated = lineDigits.last == UInt8(ascii: "u")
        if unterminated { lineDigits = lineDigits.dropLast() }
        func isNumber(_ digits: ArraySlice<UInt8>) -> Bool {
            !digits.isEmpty && digits.first != 0x30 && digits.allSatisfy { (0x30...0x39).contains($0) }
        }
        guard isNumber(lineDigits) else { return nil }
        isCertain = significant.count < 18 && lineDigits.count < 18 && (lengthDigits?.count ?? 0) < 18
        if let lengthDigits {
            guard isNumber(lengthDigits), let length = Int64(String(decoding: lengthDigits, as: UTF8.self)),
                length > Int64(maxLineBytes), original.overlongLength == nil, Int64(text.count - secondTab - 1) < length
            else { return nil }
            declaredLength = length
        }
        guard let line = Int64(String(decoding: lineDigits, as: UTF8.self)),
            let file = significant.isEmpty ? 0 : Int(String(decoding: significant, as: UTF8.self)), file < files
        else { return nil }
        self.file = file
        self.line = line
        length = secondTab + 1
    }
}
