#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The default sources of time and identifiers of a `NavigationRouter`, without Foundation.
///
/// Tests inject their own (a counter clock, incrementing ids) so that a router's log is the
/// same bytes on every run.
public enum SystemSources {
    /// The wall clock, in milliseconds since 1970-01-01T00:00:00Z (`CLOCK_REALTIME`).
    public static func epochMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }

    /// A random (version 4) UUID in lowercase hex, e.g. `1b4e28ba-2fa1-41d2-883f-0016d3cca427`.
    public static func uuid() -> String {
        var generator = SystemRandomNumberGenerator()
        return uuid(using: &generator)
    }

    /// A version 4 UUID from the given generator (a seeded one gives repeatable ids).
    public static func uuid(using generator: inout some RandomNumberGenerator) -> String {
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        var bytes: [UInt8] =
            (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * $0)) }
            + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * $0)) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40  // version 4
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 4122 variant
        let hex: [Character] = Array("0123456789abcdef")
        var text = ""
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append("-") }
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        return text
    }
}
