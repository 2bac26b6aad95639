import NavEvents
import NavInput
import NavJSON
import NavSQLite

extension StoreWriter {
    /// Drops the events of sessions closed before `cutoff` (event time), keeping their records
    /// and findings: their lines, their event ids and the ids they shared. Returns how many
    /// sessions were pruned.
    ///
    /// But for one thing: a pruned session that would own an event id (it comes first, by
    /// `session_id`, of the sessions holding it) which a session the store still holds shares
    /// keeps the lines of that id, its rows in `shared_ids` and its entries in `event_ids`,
    /// so that the holder's `event_id.conflict` stays what one audit finds. Those lines go once
    /// no session the store holds shares the id any more.
    func prune(olderThan cutoff: Int64, batch: Int64) throws -> Int {
        var pruned: Set<Int64> = []
        try sql { () throws(SQLiteError) in
            try database.prepare("SELECT session FROM sessions WHERE status = 'closed' AND last_event_ms < ?")
                .forEachRow([.integer(cutoff)]) { pruned.insert($0.integer(0)) }
        }
        guard !pruned.isEmpty else { return 0 }
        let statements = try sql { () throws(SQLiteError) in try PruneStatements(database) }
        var kept: [Int64: Set<UInt64>] = [:]
        var touchedHashes = Set<Int64>()
        for row in pruned.sorted() {
            let owned = try ownedHashes(of: row, pruned: pruned, statements)
            touchedHashes.formUnion(owned.all)
            try sql { () throws(SQLiteError) in try statements.markPruned.run([.integer(batch), .integer(row)]) }
            if owned.kept.isEmpty {
                try sql { () throws(SQLiteError) in
                    try statements.deleteChunks.run([.integer(row)])
                    try statements.deleteShared.run([.integer(row)])
                }
            } else {
                kept[row] = Set(owned.kept.map { UInt64(bitPattern: $0) })
                try keepOwnedLines(of: row, hashes: kept[row] ?? [], batch: batch, statements)
                try sql { () throws(SQLiteError) in
                    for hash in owned.all where !owned.kept.contains(hash) {
                        try statements.deleteHolder.run([.integer(hash), .integer(row)])
                    }
                }
            }
        }
        let prunedNow = pruned.count
        try sql { () throws(SQLiteError) in
            // An id no session the store holds shares any more: its rows go, and a pruned
            // session that kept lines for such ids alone keeps nothing.
            for hash in touchedHashes.sorted() {
                var holders: [Int64] = []
                try statements.holders.forEachRow([.integer(hash)]) { holders.append($0.integer(0)) }
                let held = try statements.heldHolder.returnsRow([.integer(hash)])
                guard holders.count < 2 || !held else { continue }
                try statements.deleteHash.run([.integer(hash)])
                for holder in holders where try !statements.holdsAny.returnsRow([.integer(holder)]) {
                    guard try statements.isPruned.returnsRow([.integer(holder)]) else { continue }
                    try statements.deleteChunks.run([.integer(holder)])
                    kept[holder] = []
                    pruned.insert(holder)
                }
            }
            try dropEventIDs(of: pruned, keeping: kept)
        }
        return prunedNow
    }

    /// The id hashes the session at `row` holds with others (`all`), and those of them it
    /// would own while a session the store keeps (not pruned now) shares them (`kept`).
    private func ownedHashes(of row: Int64, pruned: Set<Int64>, _ statements: PruneStatements) throws -> (all: [Int64], kept: [Int64]) {
        var hashes: [Int64] = []
        try sql { () throws(SQLiteError) in try statements.hashesOf.forEachRow([.integer(row)]) { hashes.append($0.integer(0)) } }
        guard !hashes.isEmpty, let own = try sessionID(of: row) else { return (hashes, []) }
        var kept: [Int64] = []
        for hash in hashes {
            var holders: [Int64] = []
            try sql { () throws(SQLiteError) in try statements.holders.forEachRow([.integer(hash)]) { holders.append($0.integer(0)) } }
            var owns = true
            var shared = false
            for holder in holders where holder != row {
                guard let other = try sessionID(of: holder) else { continue }
                if other.utf8Precedes(own) { owns = false }
                if !pruned.contains(holder), status(of: other) != .pruned { shared = true }
            }
            if owns && shared { kept.append(hash) }
        }
        return (hashes, kept)
    }

    /// Replaces the session's chunks with one of its lines whose event id hash is in `hashes`.
    private func keepOwnedLines(of row: Int64, hashes: Set<UInt64>, batch: Int64, _ statements: PruneStatements) throws {
        var chunks: [[UInt8]] = []
        try sql { () throws(SQLiteError) in
            try statements.chunks.forEachRow([.integer(row)]) { chunks.append($0.blob(0)) }
        }
        var records: [UInt8] = []
        var count = 0
        var lineBytes = 0
        let decoder = EventDecoder()
        for chunk in chunks {
            guard let lines = ChunkCodec.locatedLines(chunk) else {
                throw StoreError("The store \(store.path) is damaged: a stored chunk of sessions row \(row) cannot be read.")
            }
            lines.withUnsafeBufferPointer { bytes in
                var start = 0
                while start < bytes.count {
                    let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
                    defer { start = end + 1 }
                    // `FILE<TAB>LINE<TAB>`, then the line.
                    guard let firstTab = bytes[start..<end].firstIndex(of: 0x09),
                        let secondTab = bytes[(firstTab + 1)..<end].firstIndex(of: 0x09)
                    else { continue }
                    let text = UnsafeBufferPointer(rebasing: bytes[(secondTab + 1)..<end])
                    guard let keys = LineKeys.of(text, decoder: decoder), hashes.contains(keys.eventIDHash) else { continue }
                    count += 1
                    lineBytes += text.count + 1
                    ChunkCodec.append(prefix: UnsafeBufferPointer(rebasing: bytes[start...secondTab]), text: text, to: &records)
                }
            }
        }
        try sql { () throws(SQLiteError) in
            try statements.deleteChunks.run([.integer(row)])
            guard count > 0 else { return }
            try statements.insertChunk.run([
                .integer(row), .integer(batch), .integer(Int64(count)), .integer(Int64(lineBytes)), .blob(records),
            ])
        }
    }

    /// Removes the entries of `sessions` from every stored part of event ids (but the hashes
    /// `keeping` keeps of a session): a pruned session shares ids with no later one, and the
    /// parts a batch reads stay as large as what the store holds, not what it has seen.
    private func dropEventIDs(of sessions: Set<Int64>, keeping: [Int64: Set<UInt64>]) throws(SQLiteError) {
        var rewritten: [(part: Int64, entries: [UInt8])] = []
        try database.prepare("SELECT rowid, entries FROM event_ids ORDER BY rowid").forEachRow([]) { (row) throws(SQLiteError) in
            let entries = try StoreChecks.eventIDs(row)
            var kept: [UInt8] = []
            kept.reserveCapacity(entries.count)
            entries.withUnsafeBytes { raw in
                for offset in stride(from: 0, to: raw.count - raw.count % 16, by: 16) {
                    let session = Int64(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 8, as: Int64.self))
                    if sessions.contains(session) {
                        let hash = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                        guard keeping[session]?.contains(hash) == true else { continue }
                    }
                    kept.append(contentsOf: raw[offset..<(offset + 16)])
                }
            }
            if kept.count != entries.count { rewritten.append((row.integer(0), kept)) }
        }
        let update = try database.prepare("UPDATE event_ids SET entries = ? WHERE rowid = ?")
        let delete = try database.prepare("DELETE FROM event_ids WHERE rowid = ?")
        for (part, entries) in rewritten {
            if entries.isEmpty {
                try delete.run([.integer(part)])
            } else {
                try update.run([.blob(entries), .integer(part)])
            }
        }
    }
}

/// The statements of a prune, prepared once.
private struct PruneStatements {
    let markPruned: SQLiteStatement
    let deleteChunks: SQLiteStatement
    let chunks: SQLiteStatement
    let insertChunk: SQLiteStatement
    let hashesOf: SQLiteStatement
    let holders: SQLiteStatement
    let heldHolder: SQLiteStatement
    let holdsAny: SQLiteStatement
    let isPruned: SQLiteStatement
    let deleteShared: SQLiteStatement
    let deleteHolder: SQLiteStatement
    let deleteHash: SQLiteStatement

    init(_ database: SQLiteDatabase) throws(SQLiteError) {
        markPruned = try database.prepare("UPDATE sessions SET status = 'pruned', pruned_batch = ? WHERE session = ?")
        deleteChunks = try database.prepare("DELETE FROM event_chunks WHERE session = ?")
        chunks = try database.prepare("SELECT data FROM event_chunks WHERE session = ? ORDER BY chunk")
        insertChunk = try database.prepare("INSERT INTO event_chunks (session, batch, lines, line_bytes, data) VALUES (?, ?, ?, ?, ?)")
        hashesOf = try database.prepare("SELECT id_hash FROM shared_ids WHERE session = ?")
        holders = try database.prepare("SELECT session FROM shared_ids WHERE id_hash = ?")
        heldHolder = try database.prepare(
            "SELECT 1 FROM shared_ids h JOIN sessions s ON s.session = h.session WHERE h.id_hash = ? AND s.status != 'pruned' LIMIT 1")
        holdsAny = try database.prepare("SELECT 1 FROM shared_ids WHERE session = ? LIMIT 1")
        isPruned = try database.prepare("SELECT 1 FROM sessions WHERE session = ? AND status = 'pruned'")
        deleteShared = try database.prepare("DELETE FROM shared_ids WHERE session = ?")
        deleteHolder = try database.prepare("DELETE FROM shared_ids WHERE id_hash = ? AND session = ?")
        deleteHash = try database.prepare("DELETE FROM shared_ids WHERE id_hash = ?")
    }
}
