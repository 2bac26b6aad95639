#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import NavJSON

/// Strings already made from the same bytes, so that a name repeated on many lines (a session
/// id, a stack, a route, a correlation id) is made once: a direct-mapped table, a slot per
/// hash, holding the last string of up to 48 bytes with that hash and a copy of its bytes.
/// Making a `String` (UTF-8 validation, often an allocation) was the largest cost of reading a
/// partition back, and 8% of decoding a line.
///
/// Not thread-safe: one per decoding job.
package final class StringCache {
    /// Long enough for a UUID (36 bytes), so that the events of one correlation group share
    /// their `correlation_id`.
    private static let maximumBytes = 48
    private let mask: Int
    /// Raw storage, not an array: a class's array property is checked for exclusive access on
    /// every use, which cost more than the strings it saved.
    private let strings: UnsafeMutablePointer<String>
    private let slots: Int
    private let keys: UnsafeMutablePointer<UInt8>
    private let lengths: UnsafeMutablePointer<Int32>

    package init(slotsLog2: Int = 12) {
        let slots = 1 << slotsLog2
        self.slots = slots
        mask = slots - 1
        strings = .allocate(capacity: slots)
        strings.initialize(repeating: "", count: slots)
        keys = .allocate(capacity: slots * StringCache.maximumBytes)
        lengths = .allocate(capacity: slots)
        lengths.initialize(repeating: -1, count: slots)
    }

    deinit {
        strings.deinitialize(count: slots)
        strings.deallocate()
        keys.deallocate()
        lengths.deallocate()
    }

    /// The string of `utf8` (repaired, as `String(decoding:as:)` does, if it is not UTF-8).
    package func string(_ utf8: UnsafeBufferPointer<UInt8>) -> String {
        guard utf8.count <= StringCache.maximumBytes else { return String(decoding: utf8, as: UTF8.self) }
        return string(utf8, hash: StableHash.string(utf8))
    }

    /// The string of `utf8`, whose `StableHash.string` the caller has computed already. (Any
    /// hash gives the right string, the bytes are compared; this one spreads names over the slots.)
    @inline(__always)
    package func string(_ utf8: UnsafeBufferPointer<UInt8>, hash: UInt64) -> String {
        guard utf8.count <= StringCache.maximumBytes, let source = utf8.baseAddress else {
            return String(decoding: utf8, as: UTF8.self)
        }
        let slot = Int(truncatingIfNeeded: hash) & mask
        let key = keys + slot * StringCache.maximumBytes
        if lengths[slot] == Int32(utf8.count), memcmp(key, source, utf8.count) == 0 {
            return strings[slot]
        }
        let made = String(decoding: utf8, as: UTF8.self)
        strings[slot] = made
        key.update(from: source, count: utf8.count)
        lengths[slot] = Int32(utf8.count)
        return made
    }
}
