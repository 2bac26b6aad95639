/// An RFC 3339 timestamp with offset, kept as written and as an instant for comparisons.
public struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The text as it appeared in the log.
    public var text: String {
        get { storage.string }
        set { storage = TimestampText(newValue) }
    }
    /// The text, inline when it is short (every timestamp a router writes): decoding an event
    /// then allocates nothing for it, and copying one retains nothing.
    private var storage: TimestampText
    /// Seconds since 1970-01-01T00:00:00Z.
    public var epochSeconds: Int64
    /// The fraction of a second in units of 10^-18 (digits past the 18th are ignored).
    public var attoseconds: UInt64

    public var description: String { text }

    /// Milliseconds since the epoch, rounded down.
    public var epochMilliseconds: Int64 {
        epochSeconds &* 1000 &+ Int64(attoseconds / 1_000_000_000_000_000)
    }

    /// Compares instants, not texts: `10:00:00+01:00` is before `09:30:00Z`.
    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        (lhs.epochSeconds, lhs.attoseconds) < (rhs.epochSeconds, rhs.attoseconds)
    }

    public static func == (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.storage == rhs.storage
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(storage) }

    /// Whether two timestamps name the same instant.
    public func isSameInstant(as other: Timestamp) -> Bool {
        epochSeconds == other.epochSeconds && attoseconds == other.attoseconds
    }

    public init?(_ text: String) {
        var copy = text
        guard let parsed = copy.withUTF8({ Timestamp.parse($0) }) else { return nil }
        self = parsed
    }

    init(text: String, epochSeconds: Int64, attoseconds: UInt64) {
        self.init(storage: TimestampText(text), epochSeconds: epochSeconds, attoseconds: attoseconds)
    }

    private init(storage: TimestampText, epochSeconds: Int64, attoseconds: UInt64) {
        self.storage = storage
        self.epochSeconds = epochSeconds
        self.attoseconds = attoseconds
    }

    /// Formats an instant as `YYYY-MM-DDTHH:MM:SS.mmmZ`, as the router writes it.
    public init(epochMilliseconds: Int64) {
        let seconds = epochMilliseconds >= 0 ? epochMilliseconds / 1000 : (epochMilliseconds - 999) / 1000
        let millis = epochMilliseconds - seconds * 1000
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civilFromDays(days)
        func pad(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let text =
            "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):"
            + "\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)).\(pad(millis, 3))Z"
        self.init(text: text, epochSeconds: seconds, attoseconds: UInt64(millis) * 1_000_000_000_000_000)
    }

    /// Parses RFC 3339 `date-time` (docs/events-and-rules.md): `T`/`Z` in either case, any number of fraction
    /// digits, a real calendar date, no leap second, an offset that is `Z` or `±HH:MM`.
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Timestamp? {
        // YYYY-MM-DDTHH:MM:SS is 19 bytes, then fraction and offset.
        guard bytes.count >= 20 else { return nil }
        @inline(__always) func number(_ start: Int, _ count: Int) -> Int64? {
            var value: Int64 = 0
            for index in start..<(start + count) {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value * 10 + Int64(digit)
            }
            return value
        }
        guard let year = number(0, 4), bytes[4] == UInt8(ascii: "-"),
            let month = number(5, 2), bytes[7] == UInt8(ascii: "-"),
            let day = number(8, 2), bytes[10] | 0x20 == UInt8(ascii: "t"),
            let hour = number(11, 2), bytes[13] == UInt8(ascii: ":"),
            let minute = number(14, 2), bytes[16] == UInt8(ascii: ":"),
            let second = number(17, 2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month),
            hour <= 23, minute <= 59, second <= 59
        else { return nil }
        var index = 19
        var attoseconds: UInt64 = 0
        if bytes[index] == UInt8(ascii: ".") {
            index += 1
            let fractionStart = index
            var scale: UInt64 = 100_000_000_000_000_000
            while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 {
                attoseconds += UInt64(bytes[index] &- UInt8(ascii: "0")) * scale
                scale /= 10
                index += 1
            }
            guard index > fractionStart else { return nil }
        }
        guard index < bytes.count else { return nil }
        var offsetSeconds: Int64 = 0
        if bytes[index] | 0x20 == UInt8(ascii: "z") {
            index += 1
        } else if bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            guard index + 6 == bytes.count, let offsetHours = number(index + 1, 2),
                bytes[index + 3] == UInt8(ascii: ":"), let offsetMinutes = number(index + 4, 2),
                offsetHours <= 23, offsetMinutes <= 59
            else { return nil }
            offsetSeconds = (offsetHours * 3600 + offsetMinutes * 60) * (bytes[index] == UInt8(ascii: "-") ? -1 : 1)
            index += 6
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let epochSeconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Timestamp(storage: TimestampText(bytes), epochSeconds: epochSeconds, attoseconds: attoseconds)
    }
}

/// A timestamp's text: up to 32 bytes inline (a router's `2026-11-20T10:00:00.000Z` is 24),
/// longer ones (many fraction digits) as a `String`. A text is always kept the same way, so
/// two texts are equal exactly when their storage is.
private enum TimestampText: Sendable, Hashable {
    case inline(InlineBytes)
    case string(String)

    struct InlineBytes: Sendable, Hashable {
        static let capacity = 32
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        var count: UInt8 = 0

        static func == (lhs: InlineBytes, rhs: InlineBytes) -> Bool {
            lhs.count == rhs.count && lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1
                && lhs.words.2 == rhs.words.2 && lhs.words.3 == rhs.words.3
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(count)
            hasher.combine(words.0)
            hasher.combine(words.1)
            hasher.combine(words.2)
            hasher.combine(words.3)
        }
    }

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count <= InlineBytes.capacity, let base = bytes.baseAddress else {
            self = .string(String(decoding: bytes, as: UTF8.self))
            return
        }
        var inline = InlineBytes()
        inline.count = UInt8(bytes.count)
        withUnsafeMutableBytes(of: &inline.words) { $0.baseAddress!.copyMemory(from: base, byteCount: bytes.count) }
        self = .inline(inline)
    }

    init(_ text: String) {
        var copy = text
        self = copy.withUTF8 { TimestampText($0) }
    }

    var string: String {
        switch self {
        case .string(let text): return text
        case .inline(let inline):
            return withUnsafeBytes(of: inline.words) { String(decoding: $0.prefix(Int(inline.count)), as: UTF8.self) }
        }
    }
}

private func isLeapYear(_ year: Int64) -> Bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

private func daysInMonth(year: Int64, month: Int64) -> Int64 {
    switch month {
    case 2: isLeapYear(year) ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
private func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
}

private func civilFromDays(_ days: Int64) -> (Int64, Int64, Int64) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let mp = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
}
