import NavJSON

/// Every way navreplay's JSON reading (`JSONValue.parse`, and the event decoder, which shares its
/// scanner) may give another verdict than Foundation's `JSONSerialization`, the independent parser
/// the `decoder` fuzz target compares it with. This list is the only place such a difference is
/// allowed: any other disagreement on whether bytes are JSON, or on what value they hold, is a
/// broken invariant.
///
/// Two kinds: the rules by which the event format is stricter than RFC 8259 (navreplay rejects
/// what Foundation reads), and Foundation's own departures from RFC 8259 (it reads a trailing
/// comma, guesses UTF-16 and UTF-32 from NUL bytes, and rejects numbers a `Double` cannot hold).
/// The contract's number ranges (integer fields within Int64, `seq` below 2^53, integers without
/// a fraction) are checks of the event's fields, not of JSON: they are no difference here.
public enum JSONDifference: String, CaseIterable, Sendable {
    // The event format's rules, stricter than RFC 8259.
    /// A key twice in one object (Foundation keeps the last).
    case duplicateKey = "duplicate key"
    /// A UTF-8 byte order mark (Foundation skips it).
    case byteOrderMark = "byte order mark"
    /// Arrays and objects nested more than 64 deep (Foundation allows 512).
    case nestedTooDeep = "nested more than 64 deep"
    /// A `\uD800`-`\uDFFF` escape without its pair (Foundation has rejected every one met so far;
    /// listed as the format's rule).
    case loneSurrogate = "lone surrogate escape"

    // Foundation's departures from RFC 8259.
    /// A comma before `]` or `}`: Foundation reads `[1,]` as `[1]`.
    case trailingComma = "trailing comma (Foundation accepts)"
    /// NUL bytes among the first four: Foundation takes the text for UTF-16 or UTF-32.
    case encodingGuess = "UTF-16/32 guessed from NUL bytes (Foundation accepts)"
    /// A number beyond `Double`'s range, such as `1e400`: Foundation rejects it, RFC 8259 allows
    /// it and navreplay keeps a number's text.
    case numberBeyondDouble = "number beyond Double's range (Foundation rejects)"
    /// Two keys that are different bytes but canonically equivalent Unicode (`"é"` and `"e\u{301}"`):
    /// distinct members to navreplay, one to Foundation's `[String: Any]`.
    case equivalentKeys = "canonically equivalent keys (Foundation merges them)"
    /// U+FEFF written as such in a string: Foundation drops it at the string's start and just
    /// after an escape (`"\u{FEFF}a"` is `"a"` to it), so strings are compared without it.
    case byteOrderMarkInString = "U+FEFF in a string (Foundation drops some)"

    /// Whether two strings are the same text but for U+FEFF (`byteOrderMarkInString`).
    static func sameText(_ a: String, _ b: String) -> Bool {
        a.unicodeScalars.lazy.filter { $0 != "\u{FEFF}" }.elementsEqual(b.unicodeScalars.lazy.filter { $0 != "\u{FEFF}" })
    }

    /// A key as it is compared with Foundation's: without U+FEFF (`byteOrderMarkInString`).
    static func comparableKey(_ key: String) -> String {
        key.unicodeScalars.contains("\u{FEFF}") ? String(String.UnicodeScalarView(key.unicodeScalars.filter { $0 != "\u{FEFF}" })) : key
    }

    /// The difference that explains navreplay rejecting `bytes` with `error` while Foundation
    /// reads them; `nil` when none does (a broken invariant).
    static func explainingRejection(of bytes: UnsafeBufferPointer<UInt8>, _ error: JSONSyntaxError) -> JSONDifference? {
        switch error.kind {
        case .duplicateKey: return .duplicateKey
        case .byteOrderMark: return .byteOrderMark
        case .tooDeep: return .nestedTooDeep
        case .loneSurrogate: return .loneSurrogate
        default: break
        }
        if bytes.prefix(4).contains(0) { return .encodingGuess }
        if isTrailingComma(bytes, at: error.offset) { return .trailingComma }
        return nil
    }

    /// The difference that explains Foundation rejecting `bytes`, which navreplay read as
    /// `value`; `nil` when none does.
    static func explainingAcceptance(of value: JSONValue) -> JSONDifference? {
        containsNumberBeyondDouble(value) ? .numberBeyondDouble : nil
    }

    /// Whether the error is at a `]` or `}` whose previous significant byte is a comma.
    static func isTrailingComma(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> Bool {
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "]") || bytes[offset] == UInt8(ascii: "}") else { return false }
        var index = offset - 1
        while index >= 0, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index -= 1 }
        return index >= 0 && bytes[index] == UInt8(ascii: ",")
    }

    static func containsNumberBeyondDouble(_ value: JSONValue) -> Bool {
        switch value {
        case .number(let text): return !(Double(text)?.isFinite ?? false)
        case .array(let elements): return elements.contains(where: containsNumberBeyondDouble)
        case .object(let object): return object.members.contains { containsNumberBeyondDouble($0.value) }
        case .null, .bool, .string: return false
        }
    }
}
