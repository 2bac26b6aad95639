import NavJSON
import NavModel

extension EventLineParser {
    mutating func parseValue(of field: EventField) throws(EventDecodingError) -> UInt64 {
        switch field {
        case .schemaVersion:
            let (value, hash) = try integer(field)
            guard value == 1 else {
                throw EventDecodingError(
                    field: field.wireName, message: "unsupported schema_version \(value) (this reader knows 1)")
            }
            fields.schemaVersion = value
            return hash
        case .eventID, .sessionID, .correlationID:
            let value = try identifier(field)
            switch field {
            case .eventID:
                fields.eventID = value
                eventIDHash = value.hash
            case .sessionID: fields.sessionID = value
            default:
                fields.correlationID = value
                correlationIDHash = value.hash
            }
            return value.hash
        case .eventName:
            return try parseEventName()
        case .seq:
            let (value, hash) = try integer(field)
            guard value >= 0 && value <= maximumSeq else {
                throw EventDecodingError(field: field.wireName, message: "\(value) is outside 0...2^53-1")
            }
            fields.seq = value
            return hash
        case .timestamp:
            return try parseTimestamp()
        case .appVersion, .platform:
            let value = try string(field, nonEmpty: false)
            if field == .appVersion { fields.appVersion = value } else { fields.platform = value }
            return value.hash
        case .stack, .fromFlow, .toFlow, .toTab, .command, .modal, .url:
            let value = try string(field)
            switch field {
            case .stack: fields.stack = value
            case .fromFlow: fields.fromFlow = value
            case .toFlow: fields.toFlow = value
            case .toTab: fields.toTab = value
            case .command: fields.command = value
            case .modal: fields.modal = value
            default: fields.url = value
            }
            return value.hash
        case .fromTab, .fromRoute, .toRoute:
            let value = try nullableString(field)
            switch field {
            case .fromTab: fields.fromTab = .some(value)
            case .fromRoute: fields.fromRoute = .some(value)
            default: fields.toRoute = .some(value)
            }
            return value?.hash ?? StableHash.nullHash
        case .count, .index:
            let (value, hash) = try integer(field)
            if field == .count { fields.count = value } else { fields.index = value }
            return hash
        case .toRoot:
            guard let byte = scanner.peekFast(), byte == UInt8(ascii: "t") || byte == UInt8(ascii: "f") else {
                throw typeError(field, expected: "a boolean")
            }
            let literal = try syntax(field) { (s: inout JSONScanner) throws(JSONSyntaxError) in
                try s.scanLiteral()
            }
            fields.toRoot = literal == .true
            return literal == .true ? StableHash.trueHash : StableHash.falseHash
        case .style:
            let (style, hash): (ModalStyle, UInt64) = try parseChoice(field)
            fields.style = style
            return hash
        case .outcome:
            let (outcome, hash): (DeepLinkOutcome, UInt64) = try parseChoice(field)
            fields.outcome = outcome
            return hash
        case .routeParams:
            return try parseRouteParams()
        case .snapshot:
            return try parseSnapshot()
        }
    }

    /// `event_name`: one of the known names. This and the other fields' parsers cut out of
    /// `parseValue` are inlined into it: called, they cost `validate` 0.6% more instructions.
    @inline(__always)
    mutating func parseEventName() throws(EventDecodingError) -> UInt64 {
        let field = EventField.eventName
        guard scanner.peekFast() == UInt8(ascii: "\"") else { throw typeError(field, expected: "a string") }
        let token = try syntax(field) { (s: inout JSONScanner) throws(JSONSyntaxError) in
            try s.scanString()
        }
        if let (name, hash) = EventName.matchHashed(token, in: scanner) {
            fields.eventName = name
            return hash
        }
        let value = scanner.string(of: token)
        let hash = scanner.hashString(token)
        guard let name = EventName(rawValue: value) else {
            throw EventDecodingError(
                field: field.wireName,
                message: "unknown event_name \(JSONWriter.quoted(value)) (expected one of \(EventName.wireNames))")
        }
        fields.eventName = name
        return hash
    }

    /// `timestamp`: an RFC 3339 date-time with an offset.
    @inline(__always)
    mutating func parseTimestamp() throws(EventDecodingError) -> UInt64 {
        let field = EventField.timestamp
        guard scanner.peekFast() == UInt8(ascii: "\"") else {
            throw typeError(field, expected: "an RFC 3339 timestamp string")
        }
        let token = try syntax(field) { (s: inout JSONScanner) throws(JSONSyntaxError) in
            try s.scanString()
        }
        let parsed =
            token.hasEscapes
            ? scanner.withDecodedBytes(of: token, { Timestamp.parse($0) })
            : Timestamp.parse(UnsafeBufferPointer(rebasing: scanner.bytes[token.start..<token.end]))
        guard let timestamp = parsed else {
            let text = scanner.string(of: token)
            throw EventDecodingError(
                field: field.wireName,
                message: "\(JSONWriter.quoted(String(text.prefix(64)))) is not an RFC 3339 date-time with offset "
                    + "(e.g. 2026-11-20T10:15:30.123Z; a real date, no leap second)")
        }
        fields.timestamp = timestamp
        return hash(of: token)
    }

    /// A field whose string is one of `T`'s raw values (`style`, `outcome`).
    @inline(__always)
    mutating func parseChoice<T: RawRepresentable<String> & CaseIterable>(
        _ field: EventField
    ) throws(EventDecodingError) -> (
        T, UInt64
    ) {
        let found = try string(field)
        let value = scanner.plainString(of: found.token)
        guard let choice = T(rawValue: value) else {
            let choices = T.allCases.map(\.rawValue).joined(separator: ", ")
            throw EventDecodingError(field: field.wireName, message: "\(JSONWriter.quoted(value)) is not one of \(choices)")
        }
        return (choice, found.hash)
    }

    mutating func string(_ field: EventField, nonEmpty: Bool = true) throws(EventDecodingError) -> TextField {
        guard scanner.peekFast() == UInt8(ascii: "\"") else {
            throw typeError(field, expected: nonEmpty ? "a non-empty string" : "a string")
        }
        let token = try syntax(field) { (s: inout JSONScanner) throws(JSONSyntaxError) in
            try s.scanString()
        }
        if nonEmpty && token.rawCount == 0 {
            throw EventDecodingError(field: field.wireName, message: "expected a non-empty string, found \"\"")
        }
        return TextField(token: token, hash: hash(of: token))
    }

    /// Makes the text fields' strings. A value of its own, so that the helpers which use it
    /// capture it rather than the parser (capturing the parser copied it whole, every line).
    var text: TextMaker { TextMaker(scanner: scanner, names: names, checkOnly: checkOnly) }

    mutating func nullableString(_ field: EventField) throws(EventDecodingError) -> TextField? {
        if scanner.peekFast() == UInt8(ascii: "n") {
            let literal = try syntax(field) { (s: inout JSONScanner) throws(JSONSyntaxError) in
                try s.scanLiteral()
            }
            guard literal == .null else { throw EventDecodingError(field: field.wireName, message: "invalid literal") }
            return nil
        }
        guard scanner.peekFast() == UInt8(ascii: "\"") else {
            throw typeError(field, expected: "a non-empty string or null")
        }
        return try string(field)
    }

    /// An id: 1 to 128 Unicode scalars, none of them a control character (category Cc).
    mutating func identifier(_ field: EventField) throws(EventDecodingError) -> TextField {
        guard scanner.peekFast() == UInt8(ascii: "\"") else {
            throw typeError(field, expected: "an id string")
        }
        let token = try syntax(field) { (s: inout JSONScanner) throws(JSONSyntaxError) in
            try s.scanString()
        }
        if token.isASCII && !token.hasEscapes {
            // The common case, checked without decoding: raw ASCII holds no control character
            // but DEL (the scanner rejects the rest), and counts one scalar a byte.
            let count = token.rawCount
            if count >= 1 && count <= 128 && !containsDEL(scanner.bytes.baseAddress! + token.start, count) {
                return TextField(token: token, hash: hash(of: token))
            }
        }
        let problem: String? = scanner.withDecodedBytes(of: token) { bytes -> String? in
            var scalars = 0
            var previous: UInt8 = 0
            for byte in bytes {
                if byte & 0xC0 != 0x80 { scalars += 1 }
                if byte < 0x20 || byte == 0x7F || (previous == 0xC2 && byte >= 0x80 && byte <= 0x9F) {
                    return "contains a control character"
                }
                previous = byte
            }
            if scalars == 0 { return "is empty (an id has 1 to 128 characters)" }
            if scalars > 128 { return "has \(scalars) characters (an id has at most 128)" }
            return nil
        }
        if let problem { throw EventDecodingError(field: field.wireName, message: "the id \(problem)") }
        return TextField(token: token, hash: scanner.hashString(token))
    }

    /// The common integer, read without the scanner: 1 to 18 digits, no sign, no leading zero,
    /// and no fraction or exponent after it; `nil` for anything else, which the scanner reads.
    @inline(__always)
    func plainInteger(at start: Int) -> (Int64, end: Int)? {
        let bytes = scanner.bytes
        var index = start
        var value: Int64 = 0
        while index < bytes.count, index - start < 18, isDigit(bytes[index]) {
            value = value &* 10 &+ Int64(bytes[index] &- UInt8(ascii: "0"))
            index += 1
        }
        let digits = index - start
        guard digits > 0, digits == 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
        if index < bytes.count {
            let next = bytes[index]
            guard !isDigit(next), next != UInt8(ascii: "."), next | 0x20 != UInt8(ascii: "e") else { return nil }
        }
        return (value, index)
    }

    mutating func integer(_ field: EventField) throws(EventDecodingError) -> (Int64, UInt64) {
        guard let byte = scanner.peekFast(), byte == UInt8(ascii: "-") || isDigit(byte) else {
            throw typeError(field, expected: "an integer")
        }
        let start = scanner.position
        if let (value, end) = plainInteger(at: start) {
            scanner.position = end
            return (value, checkOnly ? 0 : StableHash.number(UnsafeBufferPointer(rebasing: scanner.bytes[start..<end])))
        }
        let token = try syntax(field) { (s: inout JSONScanner) throws(JSONSyntaxError) in
            try s.scanNumber()
        }
        var before: String {  // described only for a message
            var probe = self
            probe.scanner.position = start
            return probe.describeNextValue()
        }
        guard token.isInteger else {
            throw EventDecodingError(
                field: field.wireName, message: "expected an integer, found \(before) (no fraction or exponent allowed)")
        }
        guard let value = scanner.int64(of: token) else {
            throw EventDecodingError(field: field.wireName, message: "\(before.dropFirst(11)) is outside -2^63...2^63-1")
        }
        return (value, scanner.hashNumber(token))
    }
}
