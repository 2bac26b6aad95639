/// Why a JSON text is not well-formed (or breaks one of the event format's stricter rules).
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        case unexpectedEnd
        case unexpectedByte(UInt8, expected: UInt8)
        case expectedString
        case expectedValue
        case unterminatedString
        case controlCharacterInString
        case invalidEscape
        case loneSurrogate
        case invalidUTF8
        case invalidNumber
        case invalidLiteral
        case tooDeep
        case duplicateKey(String)
        case trailingContent
        case byteOrderMark
    }

    public var kind: Kind
    /// The byte offset in the text where the problem was found.
    public var offset: Int

    public init(_ kind: Kind, at offset: Int) {
        self.kind = kind
        self.offset = offset
    }

    public var description: String { "\(what) at byte \(offset + 1)" }

    /// The description with the line and column (1-based, in characters) where the problem is
    /// in `text`, the text that was parsed: for a document people edit, such as a model file.
    public func description(in text: [UInt8]) -> String {
        var line = 1
        var column = 1
        for byte in text.prefix(min(offset, text.count)) {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {  // not a UTF-8 continuation byte: a new character
                column += 1
            }
        }
        return "\(what) at line \(line), column \(column)"
    }

    private var what: String {
        let what: String
        switch kind {
        case .unexpectedEnd: what = "unexpected end of JSON"
        case .unexpectedByte(let byte, let expected):
            what = "expected '\(Character(Unicode.Scalar(expected)))' but found \(describeByte(byte))"
        case .expectedString: what = "expected a string"
        case .expectedValue: what = "expected a JSON value"
        case .unterminatedString: what = "unterminated string"
        case .controlCharacterInString: what = "unescaped control character in a string"
        case .invalidEscape: what = "invalid escape sequence in a string"
        case .loneSurrogate: what = "lone UTF-16 surrogate escape in a string"
        case .invalidUTF8: what = "invalid UTF-8"
        case .invalidNumber: what = "invalid number (JSON allows no NaN, Infinity, leading '+' or leading zeros)"
        case .invalidLiteral: what = "invalid literal (expected a JSON value)"
        case .tooDeep: what = "arrays and objects nested more than \(JSONScanner.maximumDepth) deep"
        case .duplicateKey(let key): what = "duplicate key \"\(key)\""
        case .trailingContent: what = "content after the JSON value"
        case .byteOrderMark: what = "a UTF-8 byte order mark is not allowed"
        }
        return what
    }
}

/// A printable description of one byte for messages: never the raw byte itself.
func describeByte(_ byte: UInt8) -> String {
    if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
    let hex = String(byte, radix: 16, uppercase: true)
    return "byte 0x" + (hex.count == 1 ? "0" + hex : hex)
}
