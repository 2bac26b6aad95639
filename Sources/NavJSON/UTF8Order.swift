#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension String {
    /// Whether this string's UTF-8 bytes sort before `other`'s: the order of sessions, findings
    /// and paths in every output, the same on every platform (`<` compares by Unicode
    /// equivalence instead). A `memcmp` where both strings are contiguous, as native and small
    /// strings are: the generic `utf8.lexicographicallyPrecedes` was 1.4% of an audit's
    /// instructions, sorting each partition's sessions.
    public func utf8Precedes(_ other: String) -> Bool {
        let contiguous = utf8.withContiguousStorageIfAvailable { left in
            other.utf8.withContiguousStorageIfAvailable { right in
                let common = Swift.min(left.count, right.count)
                if common > 0 {
                    let order = memcmp(left.baseAddress!, right.baseAddress!, common)
                    if order != 0 { return order < 0 }
                }
                return left.count < right.count
            }
        }
        if let contiguous, let precedes = contiguous { return precedes }
        return utf8.lexicographicallyPrecedes(other.utf8)
    }

    /// Whether this string and `other` are the same UTF-8 bytes. `==` takes canonically
    /// equivalent strings as equal (`"caf\u{E9}"` and `"cafe\u{301}"`), but ids are sequences
    /// of scalars (docs/events-and-rules.md): two such ids are two sessions, as they are to every byte hash.
    public func utf8Equals(_ other: String) -> Bool {
        let contiguous = utf8.withContiguousStorageIfAvailable { left in
            other.utf8.withContiguousStorageIfAvailable { right in
                left.count == right.count && (left.count == 0 || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0)
            }
        }
        if let contiguous, let equal = contiguous { return equal }
        return utf8.elementsEqual(other.utf8)
    }
}

extension Optional where Wrapped == String {
    /// `utf8Equals` for ids that may be absent (a finding of an unreadable line has no session):
    /// two absent ids are equal.
    public func utf8Equals(_ other: String?) -> Bool {
        switch (self, other) {
        case (nil, nil): true
        case let (left?, right?): left.utf8Equals(right)
        default: false
        }
    }
}
