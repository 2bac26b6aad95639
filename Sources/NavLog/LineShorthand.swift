#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import NavEvents

/// A lossless shorthand for the lines copied to partition files: each `"key":` of the event
/// schema (and `"event_name":"<name>"` whole) becomes two bytes, a marker and the entry's
/// number. The keys are about 40% of a line's bytes, so a large input that is not mapped (gzip,
/// standard input, or any input with a small `--memory-limit`) copies that much less through the
/// kernel's page cache and to the disk. Used only past the kernel's dirty threshold (and for
/// standard input): below it, the copies never reach the disk and the shorthand's CPU time
/// costs more than it saves (`AuditConfiguration.shorthandFromBytes`, `BENCHMARKS.md`).
///
/// It is a substitution of bytes, not of JSON: a line is expanded to exactly its own bytes, so
/// the decoder sees the original line (valid or not, its errors and their columns unchanged).
/// A line that holds the marker byte itself (never a valid event: it is a control character)
/// is not shortened.
enum LineShorthand {
    static let marker: UInt8 = 0x01

    /// The patterns, by entry number: every key the decoder knows, then every event name with
    /// its key.
    private static let table = Table(
        keys: EventDecoder.knownKeys.map { Array("\"\($0)\":".utf8) },
        names: EventName.allCases.map { Array("\"event_name\":\"\($0.rawValue)\"".utf8) })

    /// The longest pattern, and the room each takes in the table (whole words, so that one is
    /// compared and copied eight bytes at a time).
    static let patternRoom = 32

    /// The patterns in flat memory, and an index of them by the two bytes after their opening
    /// quote: the hot loops touch no Swift array.
    private final class Table: @unchecked Sendable {
        // @unchecked: written once, in init; read-only after.
        let bytes: UnsafeMutablePointer<UInt8>
        let lengths: UnsafeMutablePointer<Int>
        /// Each pattern's length in whole words, and the masks of its words' bytes.
        let wordCounts: UnsafeMutablePointer<Int>
        let masks: UnsafeMutablePointer<UInt64>
        /// For each slot (the hash of a key's first two bytes), where its candidates start in
        /// `candidates` and how many there are; keys and event names have slots of their own.
        let keySlots: UnsafeMutablePointer<(start: Int, count: Int)>
        let nameSlots: UnsafeMutablePointer<(start: Int, count: Int)>
        let candidates: UnsafeMutablePointer<Int>
        let eventNameKey: Int
        /// Entries below are keys; from it on, event names with their key.
        let keyCount: Int
        let entryCount: Int

        static let slotCount = 256

        @inline(__always) static func slot(_ first: UInt8, _ second: UInt8) -> Int {
            (Int(first) &* 31 &+ Int(second)) & (slotCount - 1)
        }

        init(keys: [[UInt8]], names: [[UInt8]]) {
            let patterns = keys + names
            entryCount = patterns.count
            keyCount = keys.count
            precondition(entryCount < 256 && patterns.allSatisfy { $0.count <= LineShorthand.patternRoom && $0.count >= 3 })
            bytes = .allocate(capacity: entryCount * LineShorthand.patternRoom)
            bytes.initialize(repeating: 0, count: entryCount * LineShorthand.patternRoom)
            lengths = .allocate(capacity: entryCount)
            wordCounts = .allocate(capacity: entryCount)
            masks = .allocate(capacity: entryCount * (LineShorthand.patternRoom / 8))
            masks.initialize(repeating: 0, count: entryCount * (LineShorthand.patternRoom / 8))
            for (entry, pattern) in patterns.enumerated() {
                lengths[entry] = pattern.count
                wordCounts[entry] = (pattern.count + 7) / 8
                for byte in 0..<pattern.count { masks[entry * (LineShorthand.patternRoom / 8) + byte / 8] |= UInt64(0xFF) << UInt64(byte % 8 * 8) }
                (bytes + entry * LineShorthand.patternRoom).update(from: pattern, count: pattern.count)
            }
            eventNameKey = keys.firstIndex(of: Array("\"event_name\":".utf8))!
            // Keys are found by the two bytes after their quote; event names by the two bytes
            // after `"event_name":"`.
            let namePrefix = Array("\"event_name\":\"".utf8).count
            var ordered: [Int] = []
            func index(_ entries: Range<Int>, skip: Int) -> UnsafeMutablePointer<(start: Int, count: Int)> {
                let slots = UnsafeMutablePointer<(start: Int, count: Int)>.allocate(capacity: Table.slotCount)
                var bySlot: [[Int]] = Array(repeating: [], count: Table.slotCount)
                for entry in entries { bySlot[Table.slot(patterns[entry][skip], patterns[entry][skip + 1])].append(entry) }
                for slot in 0..<Table.slotCount {
                    slots[slot] = (ordered.count, bySlot[slot].count)
                    ordered += bySlot[slot]
                }
                return slots
            }
            keySlots = index(0..<keyCount, skip: 1)
            nameSlots = index(keyCount..<entryCount, skip: namePrefix)
            candidates = .allocate(capacity: ordered.count)
            candidates.initialize(from: ordered, count: ordered.count)
        }

        /// Whether `pattern` is at `line[at...]`: whole words compared under the pattern's
        /// masks where the line has room for them, else `memcmp`.
        @inline(__always) func isPattern(_ entry: Int, at line: UnsafePointer<UInt8>, room: Int) -> Bool {
            let words = wordCounts[entry]
            guard words * 8 <= room else { return lengths[entry] <= room && memcmp(bytes + entry * LineShorthand.patternRoom, line, lengths[entry]) == 0 }
            let pattern = UnsafeRawPointer(bytes + entry * LineShorthand.patternRoom)
            let mask = masks + entry * (LineShorthand.patternRoom / 8)
            let text = UnsafeRawPointer(line)
            var difference: UInt64 = 0
            for word in 0..<words {
                difference |= (pattern.load(fromByteOffset: word * 8, as: UInt64.self) ^ text.loadUnaligned(fromByteOffset: word * 8, as: UInt64.self)) & mask[word]
            }
            return difference == 0
        }

        /// The entry whose pattern starts at the quote `line[0]`, `room` bytes being left.
        @inline(__always) func match(_ line: UnsafePointer<UInt8>, room: Int) -> Int? {
            guard room >= 3 else { return nil }
            let keySlot = keySlots[Table.slot(line[1], line[2])]
            for candidate in candidates + keySlot.start ..< candidates + keySlot.start + keySlot.count
            where isPattern(candidate.pointee, at: line, room: room) {
                let key = candidate.pointee
                guard key == eventNameKey, room > lengths[key] + 2 else { return key }
                // `"event_name":"<name>"` whole when the value is a known name.
                let value = lengths[key] + 1
                let nameSlot = nameSlots[Table.slot(line[value], line[value + 1])]
                for name in candidates + nameSlot.start ..< candidates + nameSlot.start + nameSlot.count
                where isPattern(name.pointee, at: line, room: room) {
                    return name.pointee
                }
                return key
            }
            return nil
        }
    }

    /// Copies `source[from...]` to `out[written...]` up to the first `byte`, eight bytes at a
    /// time (a word may be stored whole past it: `out` has room for as much as `source`), and
    /// returns where that byte is in each, or `nil` for the first when there is none.
    @inline(__always) private static func copy(
        upTo byte: UInt8, _ source: UnsafePointer<UInt8>, from: Int, count: Int, to out: UnsafeMutablePointer<UInt8>, at written: Int
    ) -> (found: Int?, written: Int) {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let pattern = ones &* UInt64(byte)
        var from = from
        var written = written
        while from + 8 <= count {
            let word = UnsafeRawPointer(source + from).loadUnaligned(as: UInt64.self)
            UnsafeMutableRawPointer(out + written).storeBytes(of: word, as: UInt64.self)
            let hit = word ^ pattern
            // A zero byte of `hit` is `byte`; the lowest flagged byte is a true one.
            let flags = (hit &- ones) & ~hit & 0x8080_8080_8080_8080
            if flags != 0 {
                let skip = flags.trailingZeroBitCount >> 3
                return (from + skip, written + skip)
            }
            from += 8
            written += 8
        }
        while from < count {
            if source[from] == byte { return (from, written) }
            out[written] = source[from]
            from += 1
            written += 1
        }
        return (nil, written)
    }

    /// Writes the shorthand of `line` to `out` (room for `line.count` bytes: it is never
    /// longer) and returns its length; `nil` when the line holds the marker byte.
    static func shorten(_ line: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>) -> Int? {
        guard let base = line.baseAddress, line.count > 0 else { return nil }
        let count = line.count
        if memchr(base, Int32(marker), count) != nil { return nil }
        let table = Self.table
        var from = 0
        var written = 0
        while true {
            let (found, at) = copy(upTo: UInt8(ascii: "\""), base, from: from, count: count, to: out, at: written)
            written = at
            guard let quote = found else { return written }
            guard let entry = table.match(base + quote, room: count - quote) else {
                out[written] = UInt8(ascii: "\"")
                written += 1
                from = quote + 1
                continue
            }
            out[written] = marker
            out[written + 1] = UInt8(entry)
            written += 2
            from = quote + table.lengths[entry]
            // A string value is copied whole: no key starts inside it. (Were the guess wrong,
            // a pattern would only be missed: what is copied is copied exactly.)
            guard entry < table.keyCount, from < count, base[from] == UInt8(ascii: "\"") else { continue }
            out[written] = UInt8(ascii: "\"")
            written += 1
            from += 1
            while true {
                let (end, at) = copy(upTo: UInt8(ascii: "\""), base, from: from, count: count, to: out, at: written)
                written = at
                guard let end else { return written }
                out[written] = UInt8(ascii: "\"")
                written += 1
                from = end + 1
                // An escaped quote (an odd run of backslashes before it) does not end the value.
                var backslashes = 0
                while end - backslashes - 1 >= 0 && base[end - backslashes - 1] == UInt8(ascii: "\\") { backslashes += 1 }
                if backslashes % 2 == 0 { break }
            }
        }
    }

    /// The most bytes the line that `count` bytes of shorthand expand to may take, with the
    /// room `expand` needs to store whole words.
    static func expandedCapacity(_ count: Int) -> Int { count / 2 * patternRoom + count + patternRoom + 8 }

    /// Writes the line that `short` is the shorthand of to `out` (room for
    /// `expandedCapacity(short.count)` bytes) and returns its length; `nil` when `short` is not
    /// one (a marker with no known entry after it).
    static func expand(_ short: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>) -> Int? {
        guard let base = short.baseAddress else { return 0 }
        let table = Self.table
        let count = short.count
        var from = 0
        var written = 0
        while true {
            let (found, at) = copy(upTo: marker, base, from: from, count: count, to: out, at: written)
            written = at
            guard let marker = found else { return written }
            guard marker + 1 < count, Int(base[marker + 1]) < table.entryCount else { return nil }
            let entry = Int(base[marker + 1])
            // The pattern's whole room, four words: the bytes past its length are overwritten next.
            let pattern = UnsafeRawPointer(table.bytes + entry * patternRoom)
            let destination = UnsafeMutableRawPointer(out + written)
            for word in 0..<(patternRoom / 8) {
                destination.storeBytes(of: pattern.load(fromByteOffset: word * 8, as: UInt64.self), toByteOffset: word * 8, as: UInt64.self)
            }
            written += table.lengths[entry]
            from = marker + 2
        }
    }
}
