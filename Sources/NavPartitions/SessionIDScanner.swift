#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Finds the top-level `session_id` of an event line without decoding it.
///
/// When a large input is partitioned by session, a line only needs its session to be routed;
/// it is decoded and validated once, when its partition folds. Decoding every line first (and
/// again when folding) was half of a spilled audit's work. The scan walks the top-level
/// members (skipping nested values and strings, escapes included) up to the first
/// `"session_id"` key and returns its string value's bytes, usually within the first hundred
/// bytes of the line.
///
/// It is exact for every valid event: a valid event has one top-level `session_id` with a
/// string value. For anything it is not sure of (not an object, a key or the value with an
/// escape, no `session_id`, broken JSON before it) it returns `nil`, and the line is decoded
/// at once instead. A line it routes may still be invalid; the decoder says so when the
/// partition folds, with the same finding.
package enum SessionIDScanner {
    package static func sessionID(in line: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        canonicalSessionID(in: line) ?? scannedSessionID(in: line)
    }

    /// The session of a line that starts as the canonical encoder (`NavigationEvent.write(to:)`,
    /// used by the router's sinks and `navreplay-loggen`) writes every event:
    /// `{"schema_version":1,"event_id":"…","event_name":"…","session_id":"…"`, matched
    /// literally, with no key or value scanned; `nil` for any other line, which
    /// `scannedSessionID` then walks. On such a line both give the same range: the walk reads
    /// the same members.
    package static func canonicalSessionID(in line: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        canonicalIDs(in: line)?.session
    }

    /// The session and the event id of a line that starts as the canonical encoder writes it
    /// (above); `nil` for any other line.
    @inline(__always)
    package static func canonicalIDs(in line: UnsafeBufferPointer<UInt8>) -> (session: Range<Int>, event: Range<Int>)? {
        guard let base = line.baseAddress else { return nil }
        let count = line.count
        var position = 0
        @inline(__always) func take(_ literal: StaticString) -> Bool {
            let length = literal.utf8CodeUnitCount
            guard length >= 8, position + length <= count else { return false }
            let text = UnsafeRawPointer(literal.utf8Start)
            let bytes = UnsafeRawPointer(base + position)
            var offset = 0
            while true {
                // Eight bytes at a time; the last word overlaps the one before it.
                let at = min(offset, length - 8)
                guard bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self) == text.loadUnaligned(fromByteOffset: at, as: UInt64.self)
                else { return false }
                if at == length - 8 { break }
                offset += 8
            }
            position += length
            return true
        }
        @inline(__always) func plainValue() -> Range<Int>? {
            guard let (quote, escaped) = Scan(bytes: line, position: position).nextQuote(), !escaped else { return nil }
            defer { position = quote }
            return position..<quote
        }
        guard take(#"{"schema_version":1,"event_id":""#), let event = plainValue(), take(#"","event_name":""#),
            plainValue() != nil, take(#"","session_id":""#), let session = plainValue()
        else { return nil }
        return (session, event)
    }

    /// The session of any line: a walk over its top-level members.
    package static func scannedSessionID(in line: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        var scan = Scan(bytes: line)
        scan.skipSpace()
        guard scan.take(UInt8(ascii: "{")) else { return nil }
        while true {
            scan.skipSpace()
            guard let key = scan.plainString() else { return nil }
            scan.skipSpace()
            guard scan.take(UInt8(ascii: ":")) else { return nil }
            scan.skipSpace()
            if scan.equals(key, "session_id") {
                return scan.plainString()
            }
            guard scan.skipValue() else { return nil }
            scan.skipSpace()
            guard scan.take(UInt8(ascii: ",")) else { return nil }
        }
    }

    /// The ranges of the plain (unescaped) string values of a line's top-level `session_id`,
    /// `event_id`, `timestamp` and `app_version`, in one walk over its members: what an ingest
    /// needs of a line before it is folded. A key absent, escaped or not a string is `nil`
    /// (the caller decodes such a line instead); a line that is not an object gives all `nil`.
    package struct StoreKeys {
        package var sessionID: Range<Int>?
        package var eventID: Range<Int>?
        package var timestamp: Range<Int>?
        package var appVersion: Range<Int>?
    }

    package static func storeKeys(in line: UnsafeBufferPointer<UInt8>) -> StoreKeys {
        var keys = StoreKeys()
        var scan = Scan(bytes: line)
        scan.skipSpace()
        guard scan.take(UInt8(ascii: "{")) else { return keys }
        while true {
            scan.skipSpace()
            guard let key = scan.plainString() else { return keys }
            scan.skipSpace()
            guard scan.take(UInt8(ascii: ":")) else { return keys }
            scan.skipSpace()
            let start = scan.position
            var value: Range<Int>?
            if scan.position < line.count, line[scan.position] == UInt8(ascii: "\"") {
                value = scan.plainString()
                if value == nil {
                    scan.position = start
                    guard scan.skipValue() else { return keys }
                }
            } else {
                guard scan.skipValue() else { return keys }
            }
            if let value {
                if scan.equals(key, "session_id") {
                    keys.sessionID = value
                } else if scan.equals(key, "event_id") {
                    keys.eventID = value
                } else if scan.equals(key, "timestamp") {
                    keys.timestamp = value
                } else if scan.equals(key, "app_version") {
                    keys.appVersion = value
                }
            }
            scan.skipSpace()
            guard scan.take(UInt8(ascii: ",")) else { return keys }
        }
    }

    struct Scan {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        mutating func skipSpace() {
            while position < bytes.count {
                switch bytes[position] {
                case 0x20, 0x09, 0x0A, 0x0D: position += 1
                default: return
                }
            }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard position < bytes.count, bytes[position] == byte else { return false }
            position += 1
            return true
        }

        func equals(_ range: Range<Int>, _ literal: StaticString) -> Bool {
            guard range.count == literal.utf8CodeUnitCount else { return false }
            let text = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
            for offset in 0..<range.count where bytes[range.lowerBound + offset] != text[offset] { return false }
            return true
        }

        /// Where the next `"` is, from `position`, and whether a `\` comes before it (then the
        /// place of that `\`): eight bytes at a time, looking for both at once. Two `memchr`s
        /// did it before, whose calls cost more than the few words of the short strings here.
        func nextQuote() -> (quote: Int, escaped: Bool)? {
            guard let base = bytes.baseAddress else { return nil }
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            var index = position
            while index + 8 <= bytes.count {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                let quotes = word ^ 0x2222_2222_2222_2222
                let slashes = word ^ 0x5C5C_5C5C_5C5C_5C5C
                // A zero byte in either marks a match; the lowest flag is always a true one.
                let found = ((quotes &- ones) & ~quotes | (slashes &- ones) & ~slashes) & highs
                if found != 0 {
                    let at = index + found.trailingZeroBitCount / 8
                    return (at, base[at] == UInt8(ascii: "\\"))
                }
                index += 8
            }
            while index < bytes.count {
                if base[index] == UInt8(ascii: "\"") { return (index, false) }
                if base[index] == UInt8(ascii: "\\") { return (index, true) }
                index += 1
            }
            return nil
        }

        /// A string with no escape: the range of its content. `nil` otherwise.
        mutating func plainString() -> Range<Int>? {
            guard take(UInt8(ascii: "\"")), let (quote, escaped) = nextQuote(), !escaped else { return nil }
            defer { position = quote + 1 }
            return position..<quote
        }

        /// Skips a string whatever it holds; false if it does not end.
        mutating func skipString() -> Bool {
            guard take(UInt8(ascii: "\"")) else { return false }
            if let (quote, escaped) = nextQuote(), !escaped {
                position = quote + 1
                return true
            }
            while position < bytes.count {
                let byte = bytes[position]
                position += 1
                if byte == UInt8(ascii: "\\") {
                    position += 1  // whatever is escaped, it does not end the string
                } else if byte == UInt8(ascii: "\"") {
                    return true
                }
            }
            return false
        }

        /// Skips one value: a string, a nested object or array, or a scalar up to the next
        /// separator. Not a validation: only what it takes to find where the value ends.
        mutating func skipValue() -> Bool {
            guard position < bytes.count else { return false }
            switch bytes[position] {
            case UInt8(ascii: "\""):
                return skipString()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                while position < bytes.count {
                    switch bytes[position] {
                    case UInt8(ascii: "\""):
                        guard skipString() else { return false }
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 {
                            position += 1
                            return true
                        }
                    default: break
                    }
                    position += 1
                }
                return false
            default:
                let start = position
                while position < bytes.count {
                    switch bytes[position] {
                    case UInt8(ascii: ","), UInt8(ascii: "}"), 0x20, 0x09, 0x0A, 0x0D:
                        return position > start
                    default: position += 1
                    }
                }
                return false
            }
        }
    }
}
