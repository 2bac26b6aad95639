import NavJSON

/// The `FILE_INDEX<TAB>LINE<TAB>` prefix of located input. `LINE` may end in `u` when the
/// original line had no line end (the last line of its file), so torn lines stay torn; then in
/// `/LENGTH` when the original line was LENGTH bytes long, over `--max-line-bytes`, and only its
/// first bytes follow (a distributed run never ships an over-long line whole).
package enum LocatedLine {
    /// Appends `line` as a located line of file `file`, all but its `\n`: the prefix
    /// (`appendPrefix`), the line's bytes (an over-long line's first bytes, which it holds), and
    /// one more `\r` where the bytes end in one, since reading removes one before the `\n`.
    /// Returns where the line's own bytes went (the prefix ends where they start).
    @discardableResult
    package static func append(_ line: RawLine, file: Int, to bytes: inout [UInt8]) -> Range<Int> {
        appendPrefix(of: line, file: file, to: &bytes)
        let start = bytes.count
        bytes.append(contentsOf: line.bytes)
        if line.bytes.last == 0x0D { bytes.append(0x0D) }
        return start..<(start + line.bytes.count)
    }

    /// Appends the prefix that `split` reads back: `FILE<TAB>LINE`, `u` for a line without its
    /// line end, `/LENGTH` for an over-long one, a tab.
    package static func appendPrefix(of line: RawLine, file: Int, to bytes: inout [UInt8]) {
        appendDecimal(UInt64(max(0, file)), to: &bytes)
        bytes.append(0x09)
        appendDecimal(UInt64(max(0, line.number)), to: &bytes)
        if line.ending == .endOfInput { bytes.append(UInt8(ascii: "u")) }
        if let length = line.overlongLength {
            bytes.append(UInt8(ascii: "/"))
            appendDecimal(UInt64(length), to: &bytes)
        }
        bytes.append(0x09)
    }

    /// A number's digits, without making a `String` of it (once per line).
    private static func appendDecimal(_ value: UInt64, to bytes: inout [UInt8]) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for 24 digits
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { raw in
            repeat {
                raw[23 - count] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                count += 1
            } while rest > 0
            bytes.append(contentsOf: raw[(24 - count)...])
        }
    }

    /// Removes the prefix from `line`, giving it its original number and ending; or says what
    /// is wrong with the prefix. `files` is the number of lines of the paths file.
    package static func split(_ line: inout RawLine, files: Int, maxLineBytes: Int) -> Result<(file: Int, line: Int64), Malformed> {
        let bytes = line.bytes
        var index = 0
        func tab() -> Bool {
            guard index < bytes.count, bytes[index] == 0x09 else { return false }
            index += 1
            return true
        }
        // A file index may have leading zeros (`007` is 7).
        guard let file = number(in: bytes, at: &index, padded: true) else { return .failure(.fileIndex) }
        guard file < files else { return .failure(.fileOutOfRange(file)) }
        guard tab() else { return .failure(.tab(after: "FILE_INDEX")) }
        guard let number = number(in: bytes, at: &index), number >= 1 else { return .failure(.lineNumber) }
        let unterminated = index < bytes.count && bytes[index] == UInt8(ascii: "u")
        if unterminated { index += 1 }
        var declaredLength: Int64?
        if index < bytes.count, bytes[index] == UInt8(ascii: "/") {
            index += 1
            guard let length = Self.number(in: bytes, at: &index), length > Int64(maxLineBytes) else {
                return .failure(.length(maxLineBytes: maxLineBytes))
            }
            declaredLength = length
        }
        guard tab() else { return .failure(.tab(after: "LINE")) }
        line.bytes = UnsafeBufferPointer(rebasing: bytes[index...])
        line.number = number
        if unterminated { line.ending = .endOfInput }
        if let length = line.overlongLength { line.overlongLength = length - index }
        if let declaredLength {
            guard line.overlongLength == nil, Int64(line.bytes.count) < declaredLength else {
                return .failure(.length(maxLineBytes: maxLineBytes))
            }
            line.overlongLength = Int(declaredLength)
        }
        if line.overlongLength == nil, line.bytes.count > maxLineBytes { line.overlongLength = line.bytes.count }
        if line.overlongLength != nil, line.bytes.count > maxLineBytes {
            // Keep what a plain read keeps: the first --max-line-bytes bytes.
            line.bytes = UnsafeBufferPointer(rebasing: line.bytes[..<(line.bytes.startIndex + maxLineBytes)])
        }
        return .success((Int(file), number))
    }

    /// A decimal number at `index`, which it moves past it; without leading zeros unless `padded`.
    private static func number(in bytes: UnsafeBufferPointer<UInt8>, at index: inout Int, padded: Bool = false) -> Int64? {
        let start = index
        var value: Int64 = 0
        while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 {
            guard value <= (Int64.max - 9) / 10 else { return nil }
            value = value * 10 + Int64(bytes[index] &- UInt8(ascii: "0"))
            index += 1
        }
        guard index > start, padded || index - start == 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
        return value
    }

    /// What is wrong with a located line's prefix, `FILE_INDEX<TAB>LINE<TAB>`.
    package enum Malformed: Error {
        case fileIndex
        case fileOutOfRange(Int64)
        case tab(after: String)
        case lineNumber
        case length(maxLineBytes: Int)

        package func describe(files: Int) -> String {
            switch self {
            case .fileIndex: "it does not start with FILE_INDEX, a number"
            case .fileOutOfRange(let index):
                files == 0
                    ? "its FILE_INDEX \(index) names no line of the paths file, which is empty"
                    : "its FILE_INDEX \(index) names no line of the paths file, which has \(files) (0 to \(files - 1))"
            case .tab(let field): "a tab must follow \(field)"
            case .lineNumber: "its LINE is not a line number (1 or more, without leading zeros, then `u` for a line without an end)"
            case .length(let limit):
                "its /LENGTH is not the length of an over-long line (a number over --max-line-bytes, \(limit), and over the bytes that follow)"
            }
        }
    }
}
