import CNavSupport
import NavEvents

/// A lossless shorthand for the lines copied to partition files: each `"key":` of the event
/// schema (and `"event_name":"<name>"` whole) becomes two bytes, a marker and the entry's
/// number, and a key's value that is a lowercase UUID or a `YYYY-MM-DDTHH:MM:SS.mmmZ` timestamp
/// is packed in binary after a marker of its own (38 bytes as 18, 26 as 11). On the benchmark's
/// lines that is 59% fewer bytes (the keys alone, 41%), so a large input that is not mapped
/// (gzip, standard input, or any input with a small `--memory-limit`) copies that much less
/// through the kernel's page cache and to the disk. Used only past the kernel's dirty threshold
/// (and for standard input): below it, the copies never reach the disk and the shorthand's CPU
/// time costs more than it saves (`AuditConfiguration.shorthandFromBytes`, `BENCHMARKS.md`).
///
/// It is a substitution of bytes, not of JSON: a line is expanded to exactly its own bytes, so
/// the decoder sees the original line (valid or not, its errors and their columns unchanged).
/// A line that holds the marker byte itself (never a valid event: it is a control character)
/// is not shortened.
package enum LineShorthand {
    package static let marker = UInt8(NAVREPLAY_SHORTHAND_MARKER)

    /// The room each pattern takes when expanded (they are stored as whole words).
    package static let patternRoom = Int(NAVREPLAY_SHORTHAND_ROOM)

    /// The patterns, by entry number: every key the decoder knows, then every event name with
    /// its key. The loops that use them are C (`CNavSupport/shorthand.h`, which says why).
    private static let table = Table(
        keys: EventDecoder.knownKeys.map { Array("\"\($0)\":".utf8) },
        names: EventName.allCases.map { Array("\"event_name\":\"\($0.rawValue)\"".utf8) },
        eventNameKey: Array("\"event_name\":".utf8))

    private final class Table: @unchecked Sendable {
        // @unchecked: written once, in init; read-only after.
        let pointer: UnsafeMutablePointer<navreplay_shorthand_table>

        init(keys: [[UInt8]], names: [[UInt8]], eventNameKey: [UInt8]) {
            pointer = .allocate(capacity: 1)
            let patterns = keys + names
            let built = navreplay_shorthand_build(
                pointer, patterns.flatMap { $0 }, patterns.map { $0.count }, Int32(keys.count), Int32(names.count),
                Int32(keys.firstIndex(of: eventNameKey) ?? -1))
            precondition(built == 0, "the shorthand's patterns do not fit its table")
        }
    }

    /// Writes the shorthand of `line` to `out` (room for `line.count` bytes: it is never
    /// longer, and nothing past them is touched) and returns its length; `nil` when the line
    /// holds the marker byte.
    package static func shorten(_ line: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>) -> Int? {
        guard let base = line.baseAddress, line.count > 0 else { return nil }
        let length = navreplay_shorten(table.pointer, base, line.count, out)
        return length < 0 ? nil : length
    }

    /// The most bytes the line that `count` bytes of shorthand expand to may take, with the
    /// room `expand` needs to store whole patterns.
    package static func expandedCapacity(_ count: Int) -> Int { count / 2 * patternRoom + count + patternRoom + 8 }

    /// Writes the line that `short` is the shorthand of to `out` (room for
    /// `expandedCapacity(short.count)` bytes) and returns its length; `nil` when `short` is not
    /// one (a marker with no known entry after it).
    package static func expand(_ short: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>) -> Int? {
        guard let base = short.baseAddress else { return 0 }
        let length = navreplay_expand(table.pointer, base, short.count, out)
        return length < 0 ? nil : length
    }
}
