/// The reduce side of a distributed audit's event-id ledger (`SplitRouter`): from the entries
/// of one id bucket, the sessions that share an event id with another session.
///
/// Entries are 16 bytes: the id's `EventIDLedger` hash, then its session id's `StableHash`,
/// little-endian. The
/// answer is by hash, a superset: two ids or two sessions whose 64-bit hashes are equal make
/// their sessions fold together, which changes nothing in the result (every occurrence of a
/// shared id is then resolved by one audit, as on one machine).
package enum SharedEventIDs {
    /// The session hashes met with another session's under one id hash, sorted, each once.
    package static func sessions(inEntries bytes: UnsafeRawBufferPointer) -> [UInt64] {
        let count = bytes.count / 16
        var entries: [(id: UInt64, session: UInt64)] = []
        entries.reserveCapacity(count)
        for index in 0..<count {
            let id = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index * 16, as: UInt64.self))
            let session = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index * 16 + 8, as: UInt64.self))
            entries.append((id, session))
        }
        entries.sort { ($0.id, $0.session) < ($1.id, $1.session) }
        var shared: [UInt64] = []
        var start = 0
        while start < entries.count {
            var end = start + 1
            while end < entries.count, entries[end].id == entries[start].id { end += 1 }
            if entries[end - 1].session != entries[start].session {
                var previous: UInt64?
                for entry in entries[start..<end] where entry.session != previous {
                    shared.append(entry.session)
                    previous = entry.session
                }
            }
            start = end
        }
        shared.sort()
        var unique: [UInt64] = []
        for session in shared where session != unique.last { unique.append(session) }
        return unique
    }
}
