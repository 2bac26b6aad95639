/// A deterministic 64-bit identity hash of JSON values.
///
/// CONTRACT §7: two lines are the same event when they are the same JSON value; key order and
/// whitespace do not matter, strings compare by their decoded content and numbers by their text.
/// The scanner computes this hash while it validates, so deduplication needs no second pass and
/// no canonical copy of the line. Object members combine by wrapping addition, so their order
/// does not matter (keys are unique, so nothing cancels). It is FNV-1a with a SplitMix64
/// finaliser: not cryptographic, but the same in every process, which keeps audits reproducible.
public struct StableHash: Sendable {
    private var state: UInt64

    public enum Tag {
        public static let string: UInt8 = 0x73
        public static let number: UInt8 = 0x6E
        public static let array: UInt8 = 0x61
        public static let object: UInt8 = 0x6F
    }

    public init(tag: UInt8) {
        state = 0xCBF2_9CE4_8422_2325
        combineByte(tag)
    }

    @inline(__always)
    public mutating func combineByte(_ byte: UInt8) {
        state = (state ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }

    /// Mixes bytes eight at a time (then the tail byte by byte), with the length, so that no
    /// two different byte strings are combined alike by construction.
    @inline(__always)
    public mutating func combine(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else {
            combine(UInt64(0))
            return
        }
        var index = 0
        while index + 8 <= bytes.count {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
            state = StableHash.mix(state ^ word)
            index += 8
        }
        while index < bytes.count {
            combineByte(bytes[index])
            index += 1
        }
        combine(UInt64(bytes.count))
    }

    @inline(__always)
    public mutating func combine(_ value: UInt64) {
        state = StableHash.mix(state ^ value) &+ 0x9E37_79B9_7F4A_7C15
    }

    public func finish() -> UInt64 { StableHash.mix(state) }

    @inline(__always)
    public static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    public static func string(_ decoded: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hasher = StableHash(tag: Tag.string)
        hasher.combine(decoded)
        return hasher.finish()
    }

    public static func string(_ value: String) -> UInt64 {
        var copy = value
        return copy.withUTF8 { string($0) }
    }

    public static func number(_ text: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hasher = StableHash(tag: Tag.number)
        hasher.combine(text)
        return hasher.finish()
    }

    public static func number(_ text: String) -> UInt64 {
        var copy = text
        return copy.withUTF8 { number($0) }
    }

    public static let trueHash = mix(0x7472_7565)
    public static let falseHash = mix(0x6661_6C73_65)
    public static let nullHash = mix(0x6E75_6C6C)

    /// One object member's contribution; members are summed, so order does not matter.
    @inline(__always)
    public static func memberHash(key: UInt64, value: UInt64) -> UInt64 {
        mix(key &* 0x9E37_79B9_7F4A_7C15 ^ value)
    }

    public static func objectHash(memberSum: UInt64, count: Int) -> UInt64 {
        var hasher = StableHash(tag: Tag.object)
        hasher.combine(memberSum)
        hasher.combine(UInt64(count))
        return hasher.finish()
    }
}
