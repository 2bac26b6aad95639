/// A strict RFC 8259 scanner over the bytes of one JSON text.
///
/// Foundation's JSON cannot see duplicate keys, cannot tell `1.0` from `1`, and decodes event
/// lines at 24-42 MB/s on this project's benchmark machine, against a target of several hundred.
/// So NavReplay reads JSON with this byte-level scanner: it validates UTF-8, escapes, numbers
/// and nesting itself and never builds a `String` or `Dictionary` unless its caller asks for one.
/// The event decoder (`NavEvents.EventDecoder`) drives it field by field; `JSONValue.parse`
/// builds generic values with it for the small documents (model files, snapshots).
///
/// Every method validates what it consumes; any violation throws a `JSONSyntaxError` carrying the
/// byte offset, so callers can name the place.
public struct JSONScanner {
    /// The bytes being read. The caller keeps them alive for the scanner's lifetime.
    public let bytes: UnsafeBufferPointer<UInt8>
    /// The offset of the next unread byte.
    public var position: Int

    /// The deepest nesting allowed, counting the outermost value as depth 1 (docs/events-and-rules.md: 64).
    public static let maximumDepth = 64

    public init(_ bytes: UnsafeBufferPointer<UInt8>, position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    public var isAtEnd: Bool { position >= bytes.count }

    @inline(__always)
    public mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    /// The next byte after whitespace, without consuming it; `nil` at the end.
    @inline(__always)
    public mutating func peekSignificant() -> UInt8? {
        skipWhitespace()
        return position < bytes.count ? bytes[position] : nil
    }

    @inline(__always)
    public mutating func expect(_ byte: UInt8) throws(JSONSyntaxError) {
        skipWhitespace()
        guard position < bytes.count else { throw JSONSyntaxError(.unexpectedEnd, at: position) }
        guard bytes[position] == byte else {
            throw JSONSyntaxError(.unexpectedByte(bytes[position], expected: byte), at: position)
        }
        position += 1
    }

    /// Consumes `byte` if it is next (after whitespace) and says whether it did.
    @inline(__always)
    public mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        if position < bytes.count, bytes[position] == byte {
            position += 1
            return true
        }
        return false
    }

    /// Checks that only whitespace is left.
    public mutating func expectEnd() throws(JSONSyntaxError) {
        skipWhitespace()
        if position < bytes.count { throw JSONSyntaxError(.trailingContent, at: position) }
    }

    // MARK: Strings

    /// Scans a string whose opening quote is next, validating its UTF-8 and escapes.
    public mutating func scanString() throws(JSONSyntaxError) -> StringToken {
        skipWhitespace()
        guard position < bytes.count else { throw JSONSyntaxError(.unexpectedEnd, at: position) }
        guard bytes[position] == UInt8(ascii: "\"") else {
            throw JSONSyntaxError(.expectedString, at: position)
        }
        position += 1
        let start = position
        var hasEscapes = false
        var isASCII = true
        let base = bytes.baseAddress!
        while true {
            // Fastest path: eight bytes at a time while none is a quote, a backslash, a control
            // character or non-ASCII (SWAR bit tricks; a false alarm only falls to the loop below).
            while position + 8 <= bytes.count {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
                let high: UInt64 = 0x8080_8080_8080_8080
                let ones: UInt64 = 0x0101_0101_0101_0101
                let quote = word ^ 0x2222_2222_2222_2222
                let backslash = word ^ 0x5C5C_5C5C_5C5C_5C5C
                let special =
                    (word & high) | ((word &- 0x2020_2020_2020_2020) & ~word & high)
                    | ((quote &- ones) & ~quote & high) | ((backslash &- ones) & ~backslash & high)
                if special != 0 {
                    // The lowest flagged byte is the first special one (a borrow flags only
                    // bytes above a true hit), so skip straight to it.
                    position += special.trailingZeroBitCount >> 3
                    break
                }
                position += 8
            }
            // Fast path: plain printable ASCII.
            while position < bytes.count {
                let byte = bytes[position]
                if byte >= 0x20 && byte < 0x80 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                    position += 1
                } else {
                    break
                }
            }
            guard position < bytes.count else { throw JSONSyntaxError(.unterminatedString, at: start - 1) }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let token = StringToken(start: start, end: position, hasEscapes: hasEscapes, isASCII: isASCII)
                position += 1
                return token
            } else if byte == UInt8(ascii: "\\") {
                hasEscapes = true
                try scanEscape()
            } else if byte < 0x20 {
                throw JSONSyntaxError(.controlCharacterInString, at: position)
            } else {
                isASCII = false
                try scanUTF8Scalar()
            }
        }
    }

    private mutating func scanEscape() throws(JSONSyntaxError) {
        let escapeStart = position
        position += 1  // the backslash
        guard position < bytes.count else { throw JSONSyntaxError(.unterminatedString, at: escapeStart) }
        switch bytes[position] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
            UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            position += 1
        case UInt8(ascii: "u"):
            position += 1
            let unit = try scanHex4(escapeStart: escapeStart)
            if unit >= 0xD800 && unit <= 0xDBFF {
                // A high surrogate must be followed by an escaped low surrogate.
                guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                    bytes[position + 1] == UInt8(ascii: "u")
                else { throw JSONSyntaxError(.loneSurrogate, at: escapeStart) }
                position += 2
                let low = try scanHex4(escapeStart: escapeStart)
                guard low >= 0xDC00 && low <= 0xDFFF else { throw JSONSyntaxError(.loneSurrogate, at: escapeStart) }
            } else if unit >= 0xDC00 && unit <= 0xDFFF {
                throw JSONSyntaxError(.loneSurrogate, at: escapeStart)
            }
        default:
            throw JSONSyntaxError(.invalidEscape, at: escapeStart)
        }
    }

    private mutating func scanHex4(escapeStart: Int) throws(JSONSyntaxError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw JSONSyntaxError(.invalidEscape, at: escapeStart) }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = hexValue(bytes[position]) else { throw JSONSyntaxError(.invalidEscape, at: escapeStart) }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    /// Validates one multi-byte UTF-8 scalar (RFC 3629: no overlongs, no surrogates, at most U+10FFFF).
    @inline(__always)
    private mutating func scanUTF8Scalar() throws(JSONSyntaxError) {
        let lead = bytes[position]
        let start = position
        let length: Int
        var lower: UInt8 = 0x80
        var upper: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            upper = 0x9F
        case 0xF0:
            length = 4
            lower = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            upper = 0x8F
        default: throw JSONSyntaxError(.invalidUTF8, at: start)
        }
        guard start + length <= bytes.count else { throw JSONSyntaxError(.invalidUTF8, at: start) }
        let second = bytes[start + 1]
        guard second >= lower && second <= upper else { throw JSONSyntaxError(.invalidUTF8, at: start) }
        var index = start + 2
        while index < start + length {
            guard bytes[index] & 0xC0 == 0x80 else { throw JSONSyntaxError(.invalidUTF8, at: start) }
            index += 1
        }
        position = start + length
    }

    /// The decoded UTF-8 bytes of a scanned string, unescaped.
    public func withDecodedBytes<R>(
        of token: StringToken, _ body: (UnsafeBufferPointer<UInt8>) -> R
    ) -> R {
        let raw = UnsafeBufferPointer(rebasing: bytes[token.start..<token.end])
        if !token.hasEscapes { return body(raw) }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(raw.count)
        JSONScanner.unescape(raw, into: &decoded)
        return decoded.withUnsafeBufferPointer(body)
    }

    /// The scanned string as a Swift `String`.
    public func string(of token: StringToken) -> String {
        withDecodedBytes(of: token) { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether a scanned string's decoded content equals `literal` (an ASCII key, for example).
    @inline(__always)
    public func token(_ token: StringToken, equals literal: StaticString) -> Bool {
        guard !token.hasEscapes else {
            return withDecodedBytes(of: token) { decoded in
                decoded.elementsEqual(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
            }
        }
        let count = literal.utf8CodeUnitCount
        guard token.end - token.start == count else { return false }
        return memcmpEqual(bytes.baseAddress! + token.start, literal.utf8Start, count)
    }

    /// Unescapes already validated raw string content.
    static func unescape(_ raw: UnsafeBufferPointer<UInt8>, into output: inout [UInt8]) {
        var index = 0
        while index < raw.count {
            let byte = raw[index]
            guard byte == UInt8(ascii: "\\") else {
                output.append(byte)
                index += 1
                continue
            }
            let kind = raw[index + 1]
            index += 2
            switch kind {
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex4(raw, index)
                index += 4
                if scalar >= 0xD800 && scalar <= 0xDBFF {
                    let low = hex4(raw, index + 2)
                    index += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                appendUTF8(scalar, to: &output)
            default: output.append(kind)  // \" \\ \/
            }
        }
    }

    private static func hex4(_ raw: UnsafeBufferPointer<UInt8>, _ at: Int) -> UInt32 {
        var value: UInt32 = 0
        for offset in 0..<4 { value = value << 4 | UInt32(hexValue(raw[at + offset]) ?? 0) }
        return value
    }

    // MARK: Numbers

    /// Scans a number per the RFC 8259 grammar (no `NaN`, `Infinity`, leading `+` or zeros).
    public mutating func scanNumber() throws(JSONSyntaxError) -> NumberToken {
        skipWhitespace()
        let start = position
        var isInteger = true
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count else { throw JSONSyntaxError(.invalidNumber, at: start) }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            // `014`: said here, with the field, rather than as a stray byte after the value.
            if position < bytes.count, isDigit(bytes[position]) { throw JSONSyntaxError(.invalidNumber, at: start) }
        } else if isDigit(bytes[position]) {
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        } else {
            // NaN, Infinity, +1, .5: numbers JSON does not allow. Anything else (a byte 0xFF,
            // a control character) is no value at all.
            let byte = bytes[position]
            let letter = byte | 0x20
            let numberLike =
                byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".") || (letter >= UInt8(ascii: "a") && letter <= UInt8(ascii: "z"))
            throw JSONSyntaxError(numberLike ? .invalidNumber : .expectedValue, at: start)
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard position < bytes.count, isDigit(bytes[position]) else { throw JSONSyntaxError(.invalidNumber, at: start) }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard position < bytes.count, isDigit(bytes[position]) else { throw JSONSyntaxError(.invalidNumber, at: start) }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        return NumberToken(start: start, end: position, isInteger: isInteger)
    }

    /// The value of an integer token, or `nil` when it does not fit in `Int64` or is not an integer.
    public func int64(of token: NumberToken) -> Int64? {
        guard token.isInteger else { return nil }
        var index = token.start
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        // Accumulate as a negative number so that Int64.min fits.
        var value: Int64 = 0
        while index < token.end {
            let digit = Int64(bytes[index] &- UInt8(ascii: "0"))
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = shifted.subtractingReportingOverflow(digit)
            if overflow1 || overflow2 { return nil }
            value = next
            index += 1
        }
        if negative { return value }
        return value == Int64.min ? nil : -value
    }

    public func text(of token: NumberToken) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[token.start..<token.end]), as: UTF8.self)
    }

    // MARK: Literals

    /// Scans `true`, `false` or `null` and returns which.
    public mutating func scanLiteral() throws(JSONSyntaxError) -> Literal {
        skipWhitespace()
        if matches("true") {
            position += 4
            return .true
        }
        if matches("false") {
            position += 5
            return .false
        }
        if matches("null") {
            position += 4
            return .null
        }
        guard position < bytes.count else { throw JSONSyntaxError(.unexpectedEnd, at: position) }
        throw JSONSyntaxError(.invalidLiteral, at: position)
    }

    private func matches(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard position + count <= bytes.count else { return false }
        return memcmpEqual(bytes.baseAddress! + position, literal.utf8Start, count)
    }

    // MARK: Generic values

    /// Validates any value and returns its identity hash; see `StableHash`.
    ///
    /// - Parameter depth: the depth this value sits at (the outermost value is 1).
    public mutating func skipValue(depth: Int) throws(JSONSyntaxError) -> UInt64 {
        guard let byte = peekSignificant() else { throw JSONSyntaxError(.unexpectedEnd, at: position) }
        switch byte {
        case UInt8(ascii: "\""):
            let token = try scanString()
            return hashString(token)
        case UInt8(ascii: "{"):
            return try skipObject(depth: depth)
        case UInt8(ascii: "["):
            guard depth <= JSONScanner.maximumDepth else { throw JSONSyntaxError(.tooDeep, at: position) }
            position += 1
            var hasher = StableHash(tag: StableHash.Tag.array)
            if consume(UInt8(ascii: "]")) { return hasher.finish() }
            repeat {
                hasher.combine(try skipValue(depth: depth + 1))
            } while consume(UInt8(ascii: ","))
            try expect(UInt8(ascii: "]"))
            return hasher.finish()
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            switch try scanLiteral() {
            case .true: return StableHash.trueHash
            case .false: return StableHash.falseHash
            case .null: return StableHash.nullHash
            }
        default:
            let token = try scanNumber()
            return hashNumber(token)
        }
    }

    private mutating func skipObject(depth: Int) throws(JSONSyntaxError) -> UInt64 {
        guard depth <= JSONScanner.maximumDepth else { throw JSONSyntaxError(.tooDeep, at: position) }
        position += 1
        var keys = KeySet()
        var sum: UInt64 = 0
        if consume(UInt8(ascii: "}")) { return StableHash.objectHash(memberSum: 0, count: 0) }
        repeat {
            let key = try scanString()
            try keys.insert(key, in: self)
            try expect(UInt8(ascii: ":"))
            let valueHash = try skipValue(depth: depth + 1)
            sum &+= StableHash.memberHash(key: hashString(key), value: valueHash)
        } while consume(UInt8(ascii: ","))
        try expect(UInt8(ascii: "}"))
        return StableHash.objectHash(memberSum: sum, count: keys.count)
    }

    /// The identity hash of a scanned string's decoded content.
    @inline(__always)
    public func hashString(_ token: StringToken) -> UInt64 {
        withDecodedBytes(of: token) { StableHash.string($0) }
    }

    /// The identity hash of a number: numbers compare by their JSON text (docs/events-and-rules.md).
    @inline(__always)
    public func hashNumber(_ token: NumberToken) -> UInt64 {
        StableHash.number(UnsafeBufferPointer(rebasing: bytes[token.start..<token.end]))
    }
}

/// A string found by `JSONScanner.scanString()`: the raw content between the quotes.
public struct StringToken: Sendable, Equatable {
    public var start: Int
    public var end: Int
    /// Whether the raw content holds backslash escapes (and so differs from the decoded bytes).
    public var hasEscapes: Bool
    /// Whether every raw byte is ASCII.
    public var isASCII: Bool
    public var rawCount: Int { end - start }
}

/// A number found by `JSONScanner.scanNumber()`.
public struct NumberToken: Sendable, Equatable {
    public var start: Int
    public var end: Int
    /// No fraction and no exponent: `1` is an integer, `1.0` and `1e0` are not.
    public var isInteger: Bool
}

public enum Literal: Sendable { case `true`, `false`, null }

/// The keys seen in one object, to reject duplicates. Objects in events have a handful of keys,
/// so a linear scan over decoded keys beats hashing; past `linearLimit` keys they are hashed, so
/// that a hostile object of 100,000 keys is not checked in quadratic time (it took minutes).
public struct KeySet {
    static let linearLimit = 32
    private var seen: [[UInt8]] = []
    private var hashed: Set<[UInt8]> = []
    public private(set) var count = 0

    public init() {}

    public mutating func insert(_ token: StringToken, in scanner: JSONScanner) throws(JSONSyntaxError) {
        let key: [UInt8] = scanner.withDecodedBytes(of: token) { Array($0) }
        try insert(key, at: token.start - 1)
    }

    /// Adds a decoded key; throws `duplicateKey` (at `offset`) when it was there.
    public mutating func insert(_ key: [UInt8], at offset: Int) throws(JSONSyntaxError) {
        let duplicate: Bool
        if count < Self.linearLimit {
            duplicate = seen.contains(key)
            if !duplicate { seen.append(key) }
        } else {
            if hashed.isEmpty { hashed = Set(seen) }
            duplicate = !hashed.insert(key).inserted
        }
        if duplicate { throw JSONSyntaxError(.duplicateKey(String(decoding: key, as: UTF8.self)), at: offset) }
        count += 1
    }
}

@inline(__always)
func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

@inline(__always)
func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
    default: return nil
    }
}

@inline(__always)
func memcmpEqual(_ lhs: UnsafePointer<UInt8>, _ rhs: UnsafePointer<UInt8>, _ count: Int) -> Bool {
    for index in 0..<count where lhs[index] != rhs[index] { return false }
    return true
}

/// Appends the UTF-8 encoding of a scalar value.
public func appendUTF8(_ scalar: UInt32, to output: inout [UInt8]) {
    switch scalar {
    case 0..<0x80:
        output.append(UInt8(scalar))
    case 0x80..<0x800:
        output.append(UInt8(0xC0 | (scalar >> 6)))
        output.append(UInt8(0x80 | (scalar & 0x3F)))
    case 0x800..<0x10000:
        output.append(UInt8(0xE0 | (scalar >> 12)))
        output.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
        output.append(UInt8(0x80 | (scalar & 0x3F)))
    default:
        output.append(UInt8(0xF0 | (scalar >> 18)))
        output.append(UInt8(0x80 | ((scalar >> 12) & 0x3F)))
        output.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
        output.append(UInt8(0x80 | (scalar & 0x3F)))
    }
}
