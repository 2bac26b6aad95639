/// Writes compact JSON into a byte buffer: no whitespace, keys in the order given, strings
/// escaped so that any content, including control characters, stays inert.
///
/// Everything NavReplay writes as JSON (events, findings, summaries, states) goes through here,
/// so the escaping rules live in one place.
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8] = []
    private var needsComma: [Bool] = []

    public init(reservingCapacity capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    public var string: String { String(decoding: bytes, as: UTF8.self) }

    public mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        needsComma.removeAll(keepingCapacity: true)
    }

    // MARK: Structure

    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma.append(false)
    }

    public mutating func endObject() {
        needsComma.removeLast()
        bytes.append(UInt8(ascii: "}"))
    }

    public mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma.append(false)
    }

    public mutating func endArray() {
        needsComma.removeLast()
        bytes.append(UInt8(ascii: "]"))
    }

    /// Writes an object key; the next value written is its value.
    public mutating func key(_ key: String) {
        separate()
        JSONWriter.appendQuoted(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        if !needsComma.isEmpty { needsComma[needsComma.count - 1] = false }
    }

    private mutating func separate() {
        guard let last = needsComma.last else { return }
        if last { bytes.append(UInt8(ascii: ",")) }
        needsComma[needsComma.count - 1] = true
    }

    // MARK: Scalars

    public mutating func string(_ value: String) {
        separate()
        JSONWriter.appendQuoted(value, to: &bytes)
    }

    public mutating func string(_ value: String?) {
        if let value { string(value) } else { null() }
    }

    public mutating func int(_ value: some BinaryInteger) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
    }

    public mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    public mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
    }

    /// Writes a number from its JSON text, as kept by `JSONValue.number`.
    public mutating func numberText(_ text: String) {
        separate()
        bytes.append(contentsOf: text.utf8)
    }

    /// Writes already serialised JSON as one value.
    public mutating func raw(_ json: some Sequence<UInt8>) {
        separate()
        bytes.append(contentsOf: json)
    }

    public mutating func value(_ value: JSONValue) {
        switch value {
        case .null: null()
        case .bool(let flag): bool(flag)
        case .number(let text): numberText(text)
        case .string(let text): string(text)
        case .array(let elements):
            beginArray()
            for element in elements { self.value(element) }
            endArray()
        case .object(let object):
            beginObject()
            for (name, member) in object.members {
                key(name)
                self.value(member)
            }
            endObject()
        }
    }

    // MARK: Convenience for keyed members

    public mutating func member(_ name: String, _ value: String) {
        key(name)
        string(value)
    }
    public mutating func member(_ name: String, _ value: String?) {
        key(name)
        string(value)
    }
    public mutating func member(_ name: String, _ value: some BinaryInteger) {
        key(name)
        int(value)
    }
    public mutating func member(_ name: String, _ value: Bool) {
        key(name)
        bool(value)
    }

    // MARK: Escaping

    /// Appends `value` as a JSON string literal. Escapes `"`, `\`, every C0 control character,
    /// DEL and the C1 controls, and U+2028/U+2029, so output is safe to embed and to print.
    public static func appendQuoted(_ value: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for scalar in value.unicodeScalars {
            switch scalar.value {
            case 0x22: output.append(contentsOf: [0x5C, 0x22])
            case 0x5C: output.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: output.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: output.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: output.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0x00..<0x20, 0x7F...0x9F, 0x2028, 0x2029:
                appendUnicodeEscape(scalar.value, to: &output)
            default:
                appendUTF8(scalar.value, to: &output)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    static func appendUnicodeEscape(_ value: UInt32, to output: inout [UInt8]) {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        output.append(contentsOf: [0x5C, UInt8(ascii: "u")])
        for shift in stride(from: 12, through: 0, by: -4) {
            output.append(digits[Int((value >> UInt32(shift)) & 0xF)])
        }
    }

    /// A JSON string literal for `value`.
    public static func quoted(_ value: String) -> String {
        var output: [UInt8] = []
        appendQuoted(value, to: &output)
        return String(decoding: output, as: UTF8.self)
    }
}
