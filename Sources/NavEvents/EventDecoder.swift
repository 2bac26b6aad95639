#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import NavJSON
import NavModel

/// Why a line is not a valid v1 event; `field` names the offending field when there is one.
public struct EventDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The field, as a path from the event object: `seq`, `snapshot.stacks.tab1[0]`.
    public var field: String?
    public var message: String

    public init(field: String?, message: String) {
        self.field = field
        self.message = message
    }

    public var description: String {
        if let field { return "field \"\(field)\": \(message)" }
        return message
    }
}

/// A line that decoded into an event, with the hashes that identify it (`StableHash`).
public struct DecodedEvent: Sendable {
    public var event: NavigationEvent
    /// The whole JSON value: equal for an identical redelivery (docs/events-and-rules.md, Identity).
    public var identity: UInt64
    /// The value less `event_id`, `seq` and `timestamp`: equal for an analytics duplicate.
    public var contentIdentity: UInt64
    /// `StableHash` of the `event_id` and `correlation_id` texts, computed while scanning, so
    /// that grouping by them needs no second pass over the strings.
    public var eventIDHash: UInt64 = 0
    public var correlationIDHash: UInt64 = 0
}

/// Decodes one NDJSON line into a `NavigationEvent`, strictly, per docs/events-and-rules.md.
///
/// This is a byte-level decoder specialised for the event schema rather than Foundation's
/// `JSONDecoder`: Foundation cannot reject duplicate keys or tell `1.0` from `1`, and it reads
/// these lines an order of magnitude slower than the audit's throughput target (see
/// `BENCHMARKS.md`). It validates, hashes and extracts in a single pass over the bytes and
/// allocates only the strings the event keeps. It agrees with
/// `Schemas/navigation-event.v1.schema.json` on a conformance corpus (see the tests).
public struct EventDecoder: Sendable {
    public init() {}

    public func decode(_ line: UnsafeBufferPointer<UInt8>) -> Result<DecodedEvent, EventDecodingError> {
        decode(line, names: nil)
    }

    /// Decodes `line`, taking the names that repeat from line to line (session and correlation
    /// ids, stacks, routes, flows, versions) from `names` rather than making each again: a
    /// decoding job that reads many lines passes its own cache.
    package func decode(_ line: UnsafeBufferPointer<UInt8>, names: StringCache?) -> Result<DecodedEvent, EventDecodingError> {
        var parser = EventLineParser(line, names: names)
        do {
            return .success(try parser.parse())
        } catch {
            return .failure(error)
        }
    }

    public func decode(_ line: [UInt8]) -> Result<DecodedEvent, EventDecodingError> {
        line.withUnsafeBufferPointer { decode($0) }
    }

    /// Why `line` is not a valid event, or `nil` when it is: the checks of `decode`, in the same
    /// order and with the same errors, without the event. No string is made and nothing is
    /// hashed: `validate`, which only counts the valid lines, runs this.
    package func check(_ line: UnsafeBufferPointer<UInt8>) -> EventDecodingError? {
        var parser = EventLineParser(line, names: nil, checkOnly: true)
        do {
            _ = try parser.parse()
            return nil
        } catch {
            return error
        }
    }

    public func decode(_ line: String) -> Result<DecodedEvent, EventDecodingError> {
        decode(Array(line.utf8))
    }

    /// The keys of contract v1 that the decoder knows, as they are written.
    package static var knownKeys: [String] { EventField.allCases.map(\.wireName) }
}

/// The fields of contract v1 that the decoder knows. A known field is type-checked on every
/// event it appears on; unknown fields are validated as JSON and otherwise ignored.
enum EventField: Int, CaseIterable {
    case schemaVersion, eventID, eventName, sessionID, seq, timestamp, correlationID, appVersion, platform
    case snapshot, stack, fromRoute, toRoute, count, toRoot, index, routeParams
    case fromFlow, toFlow, fromTab, toTab, command, modal, style, url, outcome

    var wireName: String {
        switch self {
        case .schemaVersion: "schema_version"
        case .eventID: "event_id"
        case .eventName: "event_name"
        case .sessionID: "session_id"
        case .seq: "seq"
        case .timestamp: "timestamp"
        case .correlationID: "correlation_id"
        case .appVersion: "app_version"
        case .platform: "platform"
        case .snapshot: "snapshot"
        case .stack: "stack"
        case .fromRoute: "from_route"
        case .toRoute: "to_route"
        case .count: "count"
        case .toRoot: "to_root"
        case .index: "index"
        case .routeParams: "route_params"
        case .fromFlow: "from_flow"
        case .toFlow: "to_flow"
        case .fromTab: "from_tab"
        case .toTab: "to_tab"
        case .command: "command"
        case .modal: "modal"
        case .style: "style"
        case .url: "url"
        case .outcome: "outcome"
        }
    }

    /// The known field a key names, found by its first byte and then compared whole: no
    /// hashing and no `String` (a profile showed the table scan this replaced at 4% of a run).
    static func match(_ key: UnsafeBufferPointer<UInt8>) -> EventField? {
        guard let first = key.first else { return nil }
        @inline(__always) func equals(_ literal: StaticString) -> Bool {
            key.count == literal.utf8CodeUnitCount && memcmp(key.baseAddress!, literal.utf8Start, key.count) == 0
        }
        switch first {
        case UInt8(ascii: "a"): return equals("app_version") ? .appVersion : nil
        case UInt8(ascii: "c"):
            return equals("correlation_id") ? .correlationID : equals("command") ? .command : equals("count") ? .count : nil
        case UInt8(ascii: "e"): return equals("event_id") ? .eventID : equals("event_name") ? .eventName : nil
        case UInt8(ascii: "f"):
            return equals("from_route") ? .fromRoute : equals("from_flow") ? .fromFlow : equals("from_tab") ? .fromTab : nil
        case UInt8(ascii: "i"): return equals("index") ? .index : nil
        case UInt8(ascii: "m"): return equals("modal") ? .modal : nil
        case UInt8(ascii: "o"): return equals("outcome") ? .outcome : nil
        case UInt8(ascii: "p"): return equals("platform") ? .platform : nil
        case UInt8(ascii: "r"): return equals("route_params") ? .routeParams : nil
        case UInt8(ascii: "s"):
            if equals("seq") { return .seq }
            if equals("session_id") { return .sessionID }
            if equals("schema_version") { return .schemaVersion }
            if equals("stack") { return .stack }
            if equals("style") { return .style }
            return equals("snapshot") ? .snapshot : nil
        case UInt8(ascii: "t"):
            if equals("timestamp") { return .timestamp }
            if equals("to_route") { return .toRoute }
            if equals("to_flow") { return .toFlow }
            if equals("to_tab") { return .toTab }
            return equals("to_root") ? .toRoot : nil
        case UInt8(ascii: "u"): return equals("url") ? .url : nil
        default: return nil
        }
    }

    /// The known field whose key stands at `quote` exactly as its wire name, quotes included,
    /// and the offset after the closing quote; `nil` for anything else (escapes, other keys,
    /// bad JSON), which the scanner then reads. A wire name is plain ASCII, so raw bytes equal
    /// to it are a valid JSON string that decodes to it.
    @inline(__always)
    static func matchPlain(_ bytes: UnsafeBufferPointer<UInt8>, quoteAt quote: Int) -> (EventField, end: Int)? {
        let start = quote + 1
        guard start < bytes.count, bytes[quote] == UInt8(ascii: "\"") else { return nil }
        let base = bytes.baseAddress!
        var end = 0
        @inline(__always) func equals(_ literal: StaticString) -> Bool {
            let count = literal.utf8CodeUnitCount
            guard start + count < bytes.count, base[start + count] == UInt8(ascii: "\""),
                plainBytesEqual(base + start, literal.utf8Start, count)
            else { return false }
            end = start + count + 1
            return true
        }
        let field: EventField?
        switch bytes[start] {
        case UInt8(ascii: "a"): field = equals("app_version") ? .appVersion : nil
        case UInt8(ascii: "c"):
            field = equals("correlation_id") ? .correlationID : equals("command") ? .command : equals("count") ? .count : nil
        case UInt8(ascii: "e"): field = equals("event_id") ? .eventID : equals("event_name") ? .eventName : nil
        case UInt8(ascii: "f"):
            field = equals("from_route") ? .fromRoute : equals("from_flow") ? .fromFlow : equals("from_tab") ? .fromTab : nil
        case UInt8(ascii: "i"): field = equals("index") ? .index : nil
        case UInt8(ascii: "m"): field = equals("modal") ? .modal : nil
        case UInt8(ascii: "o"): field = equals("outcome") ? .outcome : nil
        case UInt8(ascii: "p"): field = equals("platform") ? .platform : nil
        case UInt8(ascii: "r"): field = equals("route_params") ? .routeParams : nil
        case UInt8(ascii: "s"):
            field =
                equals("seq")
                ? .seq
                : equals("session_id")
                    ? .sessionID
                    : equals("schema_version")
                        ? .schemaVersion
                        : equals("stack") ? .stack : equals("style") ? .style : equals("snapshot") ? .snapshot : nil
        case UInt8(ascii: "t"):
            field =
                equals("timestamp")
                ? .timestamp
                : equals("to_route")
                    ? .toRoute
                    : equals("to_flow")
                        ? .toFlow
                        : equals("to_tab") ? .toTab : equals("to_root") ? .toRoot : nil
        case UInt8(ascii: "u"): field = equals("url") ? .url : nil
        default: field = nil
        }
        guard let field else { return nil }
        return (field, end)
    }

    /// Hashes of the keys, precomputed for the identity hash.
    static let keyHashes: [UInt64] = allCases.map { StableHash.string($0.wireName) }
}

/// A string value found on a line, checked but not yet made a `String`: where it is, and its
/// hash. The strings are made once the line is known to be valid, only those the event keeps
/// (holding them as `String`s here cost a release of each field when the parser went).
struct TextField {
    var token: StringToken
    var hash: UInt64
}

/// Makes the strings of text fields, a name that repeats from `names` when there is a cache.
struct TextMaker {
    let scanner: JSONScanner
    let names: StringCache?
    /// Only checking (`EventDecoder.check`): every string is the empty one, which costs nothing.
    let checkOnly: Bool

    @inline(__always)
    func callAsFunction(_ field: TextField, unique: Bool = false) -> String {
        if checkOnly { return "" }
        if !unique, let names, !field.token.hasEscapes {
            return names.string(UnsafeBufferPointer(rebasing: scanner.bytes[field.token.start..<field.token.end]), hash: field.hash)
        }
        return scanner.plainString(of: field.token)
    }
}

/// The values found on one line, before they are checked against the event's name.
struct RawFields {
    var present: UInt32 = 0
    var schemaVersion: Int64?
    var eventID: TextField?
    var eventName: EventName?
    var sessionID: TextField?
    var seq: Int64?
    var timestamp: Timestamp?
    var correlationID: TextField?
    var appVersion: TextField?
    var platform: TextField?
    var snapshot: NavigationState?
    var stack: TextField?
    /// `.some(nil)` is a JSON `null`.
    var fromRoute: TextField??
    var toRoute: TextField??
    var count: Int64?
    var toRoot: Bool?
    var index: Int64?
    var routeParams: RouteParams?
    var fromFlow: TextField?
    var toFlow: TextField?
    var fromTab: TextField??
    var toTab: TextField?
    var command: TextField?
    var modal: TextField?
    var style: ModalStyle?
    var url: TextField?
    var outcome: DeepLinkOutcome?

    func has(_ field: EventField) -> Bool { present & (1 << UInt32(field.rawValue)) != 0 }
}

let maximumSeq: Int64 = (1 << 53) - 1

struct EventLineParser {
    var scanner: JSONScanner
    var fields = RawFields()
    var eventIDHash: UInt64 = 0
    var correlationIDHash: UInt64 = 0
    let names: StringCache?
    /// Checks the line without making its event: no string, no hash (`EventDecoder.check`).
    let checkOnly: Bool

    init(_ line: UnsafeBufferPointer<UInt8>, names: StringCache?, checkOnly: Bool = false) {
        scanner = JSONScanner(line)
        self.names = names
        self.checkOnly = checkOnly
    }

    /// A string token's hash; 0 when only checking, where no hash is read.
    @inline(__always)
    func hash(of token: StringToken) -> UInt64 {
        checkOnly ? 0 : scanner.plainHash(of: token)
    }

    mutating func parse() throws(EventDecodingError) -> DecodedEvent {
        let bytes = scanner.bytes
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            throw EventDecodingError(field: nil, message: "the line starts with a UTF-8 byte order mark")
        }
        guard let first = scanner.peekFast() else {
            throw EventDecodingError(field: nil, message: "empty line")
        }
        guard first == UInt8(ascii: "{") else {
            // Say what it is, if it is JSON at all.
            var probe = JSONScanner(bytes, position: scanner.position)
            do {
                let value = try JSONValue.parseValue(&probe, depth: 1)
                try probe.expectEnd()
                throw EventDecodingError(field: nil, message: "the line is \(value.typeName), not a JSON object")
            } catch let error as EventDecodingError {
                throw error
            } catch {
                throw EventDecodingError(field: nil, message: "not valid JSON: \(error)")
            }
        }
        scanner.position += 1
        var memberSum: UInt64 = 0
        var contentSum: UInt64 = 0
        var memberCount = 0
        var unknownKeys = KeySet()
        // Read once a line: each read of a static goes through its lazy initialiser's check.
        let keyHashes = EventField.keyHashes
        if !scanner.consume(UInt8(ascii: "}")) {
            repeat {
                // Most keys are known fields written plainly: matched on the raw bytes, unscanned.
                let field: EventField?
                var keyToken: StringToken?
                _ = scanner.peekFast()
                if let (known, end) = EventField.matchPlain(scanner.bytes, quoteAt: scanner.position) {
                    field = known
                    scanner.position = end
                } else {
                    let token = try syntax { (s: inout JSONScanner) throws(JSONSyntaxError) in try s.scanString() }
                    field = lookup(token)
                    keyToken = token
                }
                if !scanner.consumeAdjacent(UInt8(ascii: ":")) {
                    try syntax { (s: inout JSONScanner) throws(JSONSyntaxError) in try s.expect(UInt8(ascii: ":")) }
                }
                let keyHash: UInt64
                let valueHash: UInt64
                var isEnvelopeIdentity = false
                if let field {
                    let bit: UInt32 = 1 << UInt32(field.rawValue)
                    if fields.present & bit != 0 {
                        throw EventDecodingError(field: field.wireName, message: "duplicate key \"\(field.wireName)\"")
                    }
                    fields.present |= bit
                    keyHash = keyHashes[field.rawValue]
                    valueHash = try parseValue(of: field)
                    isEnvelopeIdentity = field == .eventID || field == .seq || field == .timestamp
                } else {
                    let keyToken = keyToken!  // an unknown key always went through the scanner
                    do {
                        try unknownKeys.insert(keyToken, in: scanner)
                    } catch {
                        throw EventDecodingError(field: scanner.string(of: keyToken), message: "duplicate key")
                    }
                    keyHash = scanner.hashString(keyToken)
                    let name = scanner.string(of: keyToken)
                    valueHash = try syntax(field: name) { (s: inout JSONScanner) throws(JSONSyntaxError) in
                        try s.skipValue(depth: 2)
                    }
                }
                if !checkOnly {
                    let member = StableHash.memberHash(key: keyHash, value: valueHash)
                    memberSum &+= member
                    if !isEnvelopeIdentity { contentSum &+= member }
                }
                memberCount += 1
            } while scanner.consumeAdjacent(UInt8(ascii: ",")) || scanner.consume(UInt8(ascii: ","))
            try syntax { (s: inout JSONScanner) throws(JSONSyntaxError) in try s.expect(UInt8(ascii: "}")) }
        }
        try syntax { (s: inout JSONScanner) throws(JSONSyntaxError) in try s.expectEnd() }
        let payload = try buildPayload()
        let text = self.text
        let excluded = 3  // event_id, seq and timestamp are always present on a valid event
        return DecodedEvent(
            event: NavigationEvent(
                payload: payload, eventID: text(fields.eventID!, unique: true), sessionID: text(fields.sessionID!), seq: fields.seq!,
                timestamp: fields.timestamp.take()!, correlationID: text(fields.correlationID!),
                appVersion: fields.appVersion.map { text($0) }, platform: fields.platform.map { text($0) }),
            identity: StableHash.objectHash(memberSum: memberSum, count: memberCount),
            contentIdentity: StableHash.objectHash(memberSum: contentSum, count: memberCount - excluded),
            eventIDHash: eventIDHash, correlationIDHash: correlationIDHash)
    }

    /// Runs a scanner step, turning a syntax error into a decoding error that names a known
    /// field (named only on an error: the name is a string to build).
    @inline(__always)
    mutating func syntax<T>(
        _ field: EventField, _ body: (inout JSONScanner) throws(JSONSyntaxError) -> T
    ) throws(EventDecodingError) -> T {
        do {
            return try body(&scanner)
        } catch {
            throw EventDecodingError(field: field.wireName, message: "not valid JSON: \(error)")
        }
    }

    /// Runs a scanner step, turning a syntax error into a decoding error.
    @inline(__always)
    mutating func syntax<T>(
        field: String? = nil, _ body: (inout JSONScanner) throws(JSONSyntaxError) -> T
    ) throws(EventDecodingError) -> T {
        do {
            return try body(&scanner)
        } catch {
            throw EventDecodingError(field: field, message: "not valid JSON: \(error)")
        }
    }

    func lookup(_ token: StringToken) -> EventField? {
        if token.hasEscapes {
            let key = scanner.withDecodedBytes(of: token) { Array($0) }
            return key.withUnsafeBufferPointer { EventField.match($0) }
        }
        return EventField.match(UnsafeBufferPointer(rebasing: scanner.bytes[token.start..<token.end]))
    }

    // MARK: Values

    /// A description of the value about to be read, for "expected X, found Y" messages.
    mutating func describeNextValue() -> String {
        guard let byte = scanner.peekFast() else { return "nothing" }
        switch byte {
        case UInt8(ascii: "\""): return "a string"
        case UInt8(ascii: "{"): return "an object"
        case UInt8(ascii: "["): return "an array"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return "a boolean"
        case UInt8(ascii: "n"): return "null"
        default:
            var probe = JSONScanner(scanner.bytes, position: scanner.position)
            if let token = try? probe.scanNumber() {
                let text = probe.text(of: token)
                return text.count > 40 ? "the number \(text.prefix(40))…" : "the number \(text)"
            }
            return "an invalid value"
        }
    }

    mutating func typeError(_ field: EventField, expected: String) -> EventDecodingError {
        EventDecodingError(field: field.wireName, message: "expected \(expected), found \(describeNextValue())")
    }
}

@inline(__always)
func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

/// Whether any of `count` bytes is DEL (0x7F), eight at a time: an id is checked for it, and
/// a call to `memchr` cost more than the check.
@inline(__always)
func containsDEL(_ start: UnsafePointer<UInt8>, _ count: Int) -> Bool {
    var offset = 0
    while offset + 8 <= count {
        let word = UnsafeRawPointer(start + offset).loadUnaligned(as: UInt64.self) ^ 0x7F7F_7F7F_7F7F_7F7F
        if (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080 != 0 { return true }
        offset += 8
    }
    while offset < count {
        if start[offset] == 0x7F { return true }
        offset += 1
    }
    return false
}

extension JSONScanner {
    /// `string(of:)`, with the common token (no escapes) made here, inline.
    @inline(__always)
    func plainString(of token: StringToken) -> String {
        if token.hasEscapes { return string(of: token) }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[token.start..<token.end]), as: UTF8.self)
    }

    /// `hashString(_:)`, with the common token (no escapes) hashed straight from its bytes.
    @inline(__always)
    func plainHash(of token: StringToken) -> UInt64 {
        if token.hasEscapes { return hashString(token) }
        return StableHash.string(UnsafeBufferPointer(rebasing: bytes[token.start..<token.end]))
    }

    /// The next byte after whitespace, as `peekSignificant()`, but looked at inline first: in a
    /// compact line the next byte is rarely whitespace, and the scanner's method is a call away.
    @inline(__always)
    mutating func peekFast() -> UInt8? {
        if position < bytes.count, bytes[position] > 0x20 { return bytes[position] }  // no whitespace is above 0x20
        return peekSignificant()
    }

    /// Consumes `byte` if it is the very next byte. Compact lines have no whitespace between
    /// tokens: this check, inlined, spares the scanner's call for most `:` and `,`.
    @inline(__always)
    mutating func consumeAdjacent(_ byte: UInt8) -> Bool {
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }
}

/// Whether `count` bytes (at most 16 here) are equal, eight at a time.
@inline(__always)
func plainBytesEqual(_ lhs: UnsafePointer<UInt8>, _ rhs: UnsafePointer<UInt8>, _ count: Int) -> Bool {
    @inline(__always) func word(_ pointer: UnsafePointer<UInt8>, _ offset: Int) -> UInt64 {
        UnsafeRawPointer(pointer + offset).loadUnaligned(as: UInt64.self)
    }
    guard count >= 8 else {
        for index in 0..<count where lhs[index] != rhs[index] { return false }
        return true
    }
    var offset = 0
    while offset + 8 < count {
        if word(lhs, offset) != word(rhs, offset) { return false }
        offset += 8
    }
    return word(lhs, count - 8) == word(rhs, count - 8)
}
