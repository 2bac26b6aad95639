import NavEvents
import NavJSON
import NavModel
public import NavReplay

/// Findings as compact bytes and back, exactly: every field, states and JSON values included.
///
/// An audit whose output is one document (`--format json`, `junit`, `sarif`, `github`, or any
/// format with a baseline) needs every finding before it writes, but nothing else of a session.
/// Each session's findings travel as these bytes through the engine's ordered output stream,
/// which sets them aside on disk past a budget and holds nothing for a clean session; keeping
/// each session's whole audit instead held about 1.7 KB a session, findings or not (800,000
/// clean sessions: 1.2 GB with `--memory-limit 128M`).
public enum FindingCodec {
    /// The bytes of `findings`; empty when there are none.
    public static func encode(_ findings: [Finding]) -> [UInt8] {
        guard !findings.isEmpty else { return [] }
        var writer = Writer()
        writer.count(findings.count)
        for finding in findings { writer.finding(finding) }
        return writer.bytes
    }

    /// The findings of one or more `encode` outputs, one after the other.
    public static func decode(_ bytes: [UInt8]) throws(FindingCodecError) -> [Finding] {
        var reader = Reader(bytes: bytes)
        var findings: [Finding] = []
        while !reader.isAtEnd {
            let count = try reader.count()
            findings.reserveCapacity(findings.count + count)
            for _ in 0..<count { findings.append(try reader.finding()) }
        }
        return findings
    }

    private struct Writer {
        var bytes: [UInt8] = []

        mutating func count(_ value: Int) {
            var rest = UInt64(value)
            while rest >= 0x80 {
                bytes.append(UInt8(rest & 0x7F) | 0x80)
                rest >>= 7
            }
            bytes.append(UInt8(rest))
        }

        mutating func int(_ value: Int64) {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }

        mutating func flag(_ value: Bool) { bytes.append(value ? 1 : 0) }

        mutating func string(_ value: String) {
            count(value.utf8.count)
            bytes.append(contentsOf: value.utf8)
        }

        mutating func optional<T>(_ value: T?, _ write: (inout Writer, T) -> Void) {
            flag(value != nil)
            if let value { write(&self, value) }
        }

        mutating func location(_ value: LineLocation) {
            int(Int64(value.file))
            int(value.line)
        }

        mutating func finding(_ finding: Finding) {
            string(finding.rule.rawValue)
            optional(finding.sessionID) { $0.string($1) }
            optional(finding.seq) { $0.int($1) }
            optional(finding.eventID) { $0.string($1) }
            optional(finding.location) { $0.location($1) }
            string(finding.message)
            optional(finding.expected) { $0.json($1) }
            optional(finding.found) { $0.json($1) }
            flag(finding.afterGap)
            optional(finding.witness) { writer, witness in
                writer.int(witness.seq)
                writer.string(witness.eventID)
                writer.string(witness.name.rawValue)
                writer.optional(witness.location) { $0.location($1) }
            }
            optional(finding.eventName) { $0.string($1.rawValue) }
            optional(finding.stateBefore) { $0.state($1) }
            optional(finding.stateAfter) { $0.state($1) }
        }

        /// As JSON text (`JSONWriter`), read back by `JSONValue.parse`: members in order and
        /// numbers as written, so the value comes back exactly.
        mutating func json(_ value: JSONValue) {
            var writer = JSONWriter()
            writer.value(value)
            count(writer.bytes.count)
            bytes += writer.bytes
        }

        mutating func names(_ names: [String]) {
            count(names.count)
            for name in names { string(name) }
        }

        mutating func state(_ state: NavigationState) {
            string(state.flow)
            optional(state.tab) { $0.string($1) }
            count(state.stacks.count)
            for stack in state.stacks.keys.sorted() {
                string(stack)
                names(state.stacks[stack] ?? [])
            }
            names(state.modals)
        }
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        var isAtEnd: Bool { index == bytes.count }

        mutating func byte() throws(FindingCodecError) -> UInt8 {
            guard index < bytes.count else { throw FindingCodecError(offset: index) }
            defer { index += 1 }
            return bytes[index]
        }

        mutating func count() throws(FindingCodecError) -> Int {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let next = try byte()
                guard shift < 63 else { throw FindingCodecError(offset: index) }
                value |= UInt64(next & 0x7F) << shift
                if next < 0x80 { break }
                shift += 7
            }
            // A count is never more than what is left: a finding takes at least one byte.
            guard value <= UInt64(bytes.count - index) else { throw FindingCodecError(offset: index) }
            return Int(value)
        }

        mutating func int() throws(FindingCodecError) -> Int64 {
            guard bytes.count - index >= 8 else { throw FindingCodecError(offset: index) }
            var value: UInt64 = 0
            for shift in 0..<8 { value |= UInt64(bytes[index + shift]) << (8 * UInt64(shift)) }
            index += 8
            return Int64(bitPattern: value)
        }

        mutating func flag() throws(FindingCodecError) -> Bool {
            switch try byte() {
            case 0: return false
            case 1: return true
            default: throw FindingCodecError(offset: index - 1)
            }
        }

        mutating func string() throws(FindingCodecError) -> String {
            let length = try count()
            defer { index += length }
            return String(decoding: bytes[index..<index + length], as: UTF8.self)
        }

        mutating func optional<T>(_ read: (inout Reader) throws(FindingCodecError) -> T) throws(FindingCodecError) -> T? {
            try flag() ? try read(&self) : nil
        }

        mutating func location() throws(FindingCodecError) -> LineLocation {
            let file = try int()
            guard let narrow = Int32(exactly: file) else { throw FindingCodecError(offset: index) }
            return LineLocation(file: narrow, line: try int())
        }

        mutating func named<T: RawRepresentable<String>>(_ type: T.Type) throws(FindingCodecError) -> T {
            let start = index
            guard let value = T(rawValue: try string()) else { throw FindingCodecError(offset: start) }
            return value
        }

        mutating func finding() throws(FindingCodecError) -> Finding {
            let rule = try named(Rule.self)
            let sessionID = try optional { (reader) throws(FindingCodecError) in try reader.string() }
            let seq = try optional { (reader) throws(FindingCodecError) in try reader.int() }
            let eventID = try optional { (reader) throws(FindingCodecError) in try reader.string() }
            let location = try optional { (reader) throws(FindingCodecError) in try reader.location() }
            let message = try string()
            let expected = try optional { (reader) throws(FindingCodecError) in try reader.json() }
            let found = try optional { (reader) throws(FindingCodecError) in try reader.json() }
            let afterGap = try flag()
            let witness = try optional { (reader) throws(FindingCodecError) in
                EventReference(
                    seq: try reader.int(), eventID: try reader.string(), name: try reader.named(EventName.self),
                    location: try reader.optional { (reader) throws(FindingCodecError) in try reader.location() })
            }
            let eventName = try optional { (reader) throws(FindingCodecError) in try reader.named(EventName.self) }
            var finding = Finding(
                rule: rule, sessionID: sessionID, seq: seq, eventID: eventID, location: location, message: message,
                expected: expected, found: found, witness: witness, eventName: eventName)
            finding.afterGap = afterGap
            finding.stateBefore = try optional { (reader) throws(FindingCodecError) in try reader.state() }
            finding.stateAfter = try optional { (reader) throws(FindingCodecError) in try reader.state() }
            return finding
        }

        mutating func json() throws(FindingCodecError) -> JSONValue {
            let start = index
            let length = try count()
            defer { index += length }
            do {
                return try JSONValue.parse(Array(bytes[index..<index + length]))
            } catch {
                throw FindingCodecError(offset: start)
            }
        }

        mutating func names() throws(FindingCodecError) -> [String] {
            var names: [String] = []
            for _ in 0..<(try count()) { names.append(try string()) }
            return names
        }

        mutating func state() throws(FindingCodecError) -> NavigationState {
            let flow = try string()
            let tab = try optional { (reader) throws(FindingCodecError) in try reader.string() }
            var stacks: [String: [String]] = [:]
            for _ in 0..<(try count()) { stacks[try string()] = try names() }
            return NavigationState(flow: flow, tab: tab, stacks: stacks, modals: try names())
        }
    }
}

/// Bytes that `FindingCodec.encode` did not write (a damaged temporary file).
public struct FindingCodecError: Error, Sendable, CustomStringConvertible {
    public var offset: Int
    public var description: String { "the findings held for output are damaged at byte \(offset)" }
}
