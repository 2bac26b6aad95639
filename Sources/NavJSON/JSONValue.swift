/// A generic JSON value, read strictly (docs/events-and-rules.md) by `JSONScanner`.
///
/// Used for small documents only (model files, snapshots, test fixtures); event lines go
/// through the specialised `EventDecoder`. Objects keep their members in document order and
/// numbers keep their text, so nothing is lost between reading and writing.
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// The number's JSON text, exactly as written.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// Parses one whole JSON text.
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) -> JSONValue {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            throw JSONSyntaxError(.byteOrderMark, at: 0)
        }
        var scanner = JSONScanner(bytes)
        let value = try parseValue(&scanner, depth: 1)
        try scanner.expectEnd()
        return value
    }

    public static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        let result: Result<JSONValue, JSONSyntaxError> = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONSyntaxError) -> JSONValue in try parse(buffer) }
        }
        return try result.get()
    }

    /// Parses the value that starts at the scanner's position.
    public static func parseValue(_ scanner: inout JSONScanner, depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard let byte = scanner.peekSignificant() else {
            throw JSONSyntaxError(.unexpectedEnd, at: scanner.position)
        }
        switch byte {
        case UInt8(ascii: "\""):
            return .string(scanner.string(of: try scanner.scanString()))
        case UInt8(ascii: "{"):
            guard depth <= JSONScanner.maximumDepth else { throw JSONSyntaxError(.tooDeep, at: scanner.position) }
            scanner.position += 1
            var object = JSONObject()
            if scanner.consume(UInt8(ascii: "}")) { return .object(object) }
            var keys = KeySet()
            repeat {
                let keyToken = try scanner.scanString()
                let key = scanner.string(of: keyToken)
                try keys.insert(Array(key.utf8), at: keyToken.start - 1)
                try scanner.expect(UInt8(ascii: ":"))
                object.append(key, try parseValue(&scanner, depth: depth + 1))
            } while scanner.consume(UInt8(ascii: ","))
            try scanner.expect(UInt8(ascii: "}"))
            return .object(object)
        case UInt8(ascii: "["):
            guard depth <= JSONScanner.maximumDepth else { throw JSONSyntaxError(.tooDeep, at: scanner.position) }
            scanner.position += 1
            var elements: [JSONValue] = []
            if scanner.consume(UInt8(ascii: "]")) { return .array(elements) }
            repeat {
                elements.append(try parseValue(&scanner, depth: depth + 1))
            } while scanner.consume(UInt8(ascii: ","))
            try scanner.expect(UInt8(ascii: "]"))
            return .array(elements)
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            switch try scanner.scanLiteral() {
            case .true: return .bool(true)
            case .false: return .bool(false)
            case .null: return .null
            }
        default:
            return .number(scanner.text(of: try scanner.scanNumber()))
        }
    }

    /// The identity hash (`StableHash`) of this value, equal to the one the scanner computes.
    public var stableHash: UInt64 {
        switch self {
        case .null: return StableHash.nullHash
        case .bool(let value): return value ? StableHash.trueHash : StableHash.falseHash
        case .number(let text): return StableHash.number(text)
        case .string(let text): return StableHash.string(text)
        case .array(let elements):
            var hasher = StableHash(tag: StableHash.Tag.array)
            for element in elements { hasher.combine(element.stableHash) }
            return hasher.finish()
        case .object(let object):
            var sum: UInt64 = 0
            for (key, value) in object.members {
                sum &+= StableHash.memberHash(key: StableHash.string(key), value: value.stableHash)
            }
            return StableHash.objectHash(memberSum: sum, count: object.members.count)
        }
    }

    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    public var objectValue: JSONObject? { if case .object(let value) = self { value } else { nil } }
    public var arrayValue: [JSONValue]? { if case .array(let value) = self { value } else { nil } }
    public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
    public var isNull: Bool { self == .null }

    /// The value of an integer number (no fraction, no exponent) that fits in `Int64`.
    public var int64Value: Int64? {
        guard case .number(let text) = self else { return nil }
        var copy = text
        return copy.withUTF8 { buffer -> Int64? in
            var scanner = JSONScanner(buffer)
            guard let token = try? scanner.scanNumber(), token.end == buffer.count else { return nil }
            return scanner.int64(of: token)
        }
    }

    /// A short name of the value's JSON type, for messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// A JSON object that keeps its members in document order.
public struct JSONObject: Sendable, Equatable {
    public private(set) var members: [(key: String, value: JSONValue)] = []

    public init() {}

    public init(_ members: [(String, JSONValue)]) {
        for (key, value) in members { append(key, value) }
    }

    /// The member named `key`, compared by UTF-8 bytes as JSON compares names (RFC 8259), not
    /// by Swift's canonical equivalence: `"é"` and `"e\u{301}"` are two keys.
    public subscript(key: String) -> JSONValue? {
        members.first { $0.key.utf8Equals(key) }?.value
    }

    public mutating func append(_ key: String, _ value: JSONValue) {
        members.append((key, value))
    }

    public var keys: [String] { members.map(\.key) }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.count == rhs.members.count
            && zip(lhs.members, rhs.members).allSatisfy { $0.key.utf8Equals($1.key) && $0.value == $1.value }
    }
}
