import NavEvents
import NavJSON
import NavReplay
import NavReport
import NavSQLite
import SystemPackage

extension StoreWriter {
    /// Keeps the batch's event ids (their hashes, with their sessions) and notes, for every id
    /// hash that two sessions or more hold (with an earlier batch's session or within this
    /// batch), each session that holds it: one row a session and hash, never one a pair, so
    /// that a thousand sessions sharing one id take a thousand rows. Such sessions are always
    /// folded together, since an id's first occurrence decides which others conflict with it.
    /// The ids (`[u64 hash][u32 session number]` each, numbers into
    /// `sessions`) are read from `path` a part of `entriesPerPart` at a time: each part is
    /// sorted, checked against itself and every part stored before, and stored.
    func recordSharedIDs(in path: String, sessions: [String], partEntries entriesPerPart: Int, batch: Int64) throws {
        let rowOf = sessions.map { sessionRow($0) }
        var holders = Set<Holder>()
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(FilePath(path), .readOnly)
        } catch {
            throw StoreError("Cannot read the temporary file \(path): \(error)")
        }
        defer { try? file.close() }
        // Read a megabyte at a time into the part, which is sorted in place: a buffer the size of
        // a part and a sorted copy of it would each take tens of MB for a 1 GB batch, paid for
        // page by page as they are first touched.
        var raw = [UInt8](repeating: 0, count: 12 * 87_381)
        var held = 0  // bytes of `raw` read and not yet taken: at most a part of an entry
        let fileBytes = (try? file.seek(offset: 0, from: .end)).map(Int.init) ?? 0
        _ = try? file.seek(offset: 0, from: .start)
        var part: [(hash: UInt64, row: Int64)] = []
        part.reserveCapacity(min(entriesPerPart, fileBytes / 12))
        var entries = 0  // the part's entries as read, its sessions' rows or not
        while true {
            let count: Int
            do {
                count = try raw.withUnsafeMutableBytes { try file.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[held...])) }
            } catch {
                throw StoreError("Cannot read the temporary file \(path): \(error)")
            }
            guard count > 0 else {
                guard held == 0 else { throw StoreError("The temporary file \(path) ends inside an entry.") }
                break
            }
            let full = (held + count) / 12 * 12
            var offset = 0
            while offset < full {
                let take = min(full - offset, (entriesPerPart - entries) * 12)
                raw.withUnsafeBytes { bytes in
                    for entry in stride(from: offset, to: offset + take, by: 12) {
                        let hash = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: entry, as: UInt64.self))
                        let number = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: entry + 8, as: UInt32.self)))
                        if number < rowOf.count, let row = rowOf[number] { part.append((hash, row)) }
                    }
                }
                offset += take
                entries += take / 12
                if entries == entriesPerPart {
                    try recordPart(&part, batch: batch, holders: &holders)
                    part.removeAll(keepingCapacity: true)
                    entries = 0
                }
            }
            held = held + count - full
            if held > 0 && full > 0 {  // the start of the next entry, moved to the front
                raw.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[full..<(full + held)])) }
            }
        }
        if entries > 0 { try recordPart(&part, batch: batch, holders: &holders) }
        try sql { () throws(SQLiteError) in
            let insert = try database.prepare("INSERT OR IGNORE INTO shared_ids (id_hash, session) VALUES (?, ?)")
            for holder in holders.sorted(by: { ($0.hash, $0.row) < ($1.hash, $1.row) }) {
                try insert.run([.integer(Int64(bitPattern: holder.hash)), .integer(holder.row)])
            }
        }
    }

    /// One part of the batch's ids: sorted, its own shared ids and those it shares with every
    /// part stored before noted (each holder of each, once), then stored as a part of its own.
    private func recordPart(_ unique: inout [(hash: UInt64, row: Int64)], batch: Int64, holders: inout Set<Holder>) throws {
        unique.sort { ($0.hash, $0.row) < ($1.hash, $1.row) }
        var kept = 0
        for entry in unique where kept == 0 || unique[kept - 1] != entry {
            unique[kept] = entry
            kept += 1
        }
        unique.removeSubrange(kept...)
        var index = 0
        while index < unique.count {
            var end = index + 1
            while end < unique.count, unique[end].hash == unique[index].hash { end += 1 }
            // Sorted and unique: two entries of one hash are two sessions.
            if end - index > 1 {
                for entry in unique[index..<end] { holders.insert(Holder(hash: entry.hash, row: entry.row)) }
            }
            index = end
        }
        var found = holders
        try sql { () throws(SQLiteError) in
            // One stored part at a time: its blob is read and dropped before the next.
            try database.prepare("SELECT rowid, entries FROM event_ids ORDER BY rowid").forEachRow([]) { (row) throws(SQLiteError) in
                let entries = try StoreChecks.eventIDs(row)
                Self.matches(unique, in: entries) { found.insert(Holder(hash: $0, row: $1)) }
            }
        }
        holders = found
        guard !unique.isEmpty else { return }
        var blob: [UInt8] = []
        blob.reserveCapacity(unique.count * 16)
        for entry in unique {
            withUnsafeBytes(of: entry.hash.littleEndian) { blob.append(contentsOf: $0) }
            withUnsafeBytes(of: entry.row.littleEndian) { blob.append(contentsOf: $0) }
        }
        try sql { () throws(SQLiteError) in
            try database.prepare("INSERT INTO event_ids (batch, entries) VALUES (?, ?)").run([.integer(batch), .blob(blob)])
        }
    }

    /// A session holding an event id hash that another session holds too.
    private struct Holder: Hashable {
        let hash: UInt64
        let row: Int64
    }

    /// Calls `body` with each holder (hash, session) of every hash that `run` (sorted, unique)
    /// and a stored part both hold under two sessions or more between them: the run's entries
    /// and the part's, each once, so that the work is linear in both however many sessions
    /// share one id.
    private static func matches(_ run: [(hash: UInt64, row: Int64)], in blob: [UInt8], _ body: (UInt64, Int64) -> Void) {
        let count = blob.count / 16
        blob.withUnsafeBytes { raw in
            func hash(_ index: Int) -> UInt64 { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index * 16, as: UInt64.self)) }
            func row(_ index: Int) -> Int64 { Int64(littleEndian: raw.loadUnaligned(fromByteOffset: index * 16 + 8, as: Int64.self)) }
            var stored = 0
            var new = 0
            while stored < count, new < run.count {
                let storedHash = hash(stored)
                if storedHash < run[new].hash {
                    stored += 1
                } else if storedHash > run[new].hash {
                    new += 1
                } else {
                    var storedEnd = stored
                    while storedEnd < count, hash(storedEnd) == storedHash { storedEnd += 1 }
                    var newEnd = new
                    while newEnd < run.count, run[newEnd].hash == storedHash { newEnd += 1 }
                    let first = run[new].row
                    let shared =
                        newEnd - new > 1 || (stored..<storedEnd).contains { row($0) != first }
                    if shared {
                        for index in stored..<storedEnd { body(storedHash, row(index)) }
                        for index in new..<newEnd { body(storedHash, run[index].row) }
                    }
                    stored = storedEnd
                    new = newEnd
                }
            }
        }
    }

    /// The sessions to fold: `sessions` and every session that shares an event id with one of
    /// them, transitively, whose events the store still holds (all of them, or, for a pruned
    /// session, the lines of the ids it owned).
    func closure(of sessions: Set<String>) throws -> Set<String> {
        var result = sessions
        var pending = sessions.compactMap { sessionRow($0) }
        let (hashesOf, holdersOf) = try sql { () throws(SQLiteError) in
            (
                try database.prepare("SELECT id_hash FROM shared_ids WHERE session = ?"),
                try database.prepare("SELECT session FROM shared_ids WHERE id_hash = ?")
            )
        }
        // Each hash's holders are read once: the work is linear in the rows, however many
        // sessions share one id.
        var seenHashes = Set<Int64>()
        while let row = pending.popLast() {
            var others: [Int64] = []
            try sql { () throws(SQLiteError) in
                var hashes: [Int64] = []
                try hashesOf.forEachRow([.integer(row)]) { hashes.append($0.integer(0)) }
                for hash in hashes where seenHashes.insert(hash).inserted {
                    try holdersOf.forEachRow([.integer(hash)]) { others.append($0.integer(0)) }
                }
            }
            for other in others {
                // A pruned session here holds the first occurrence of an id it shared
                // (`prune`): folded for the others' sake, its own results are not written.
                guard let id = try sessionID(of: other), !result.contains(id) else { continue }
                result.insert(id)
                pending.append(other)
            }
        }
        return result
    }

    func addBatch(_ batch: Int64, report: IngestReport, closedAll: Bool) throws {
        try sql { () throws(SQLiteError) in
            try database.prepare(
                """
                INSERT INTO batches (batch, files, lines, blank_lines, events_lines, invalid_lines, late_lines, sessions_touched,
                  sessions_closed, new_findings, withdrawn_findings, watermark, watermark_ms, closed_all)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
            ).run([
                .integer(batch), .integer(Int64(report.files.count)), .integer(report.lines), .integer(report.blankLines),
                .integer(report.eventLines), .integer(report.invalidLines), .integer(Int64(report.lateEvents.count)),
                .integer(Int64(report.sessionsTouched)), .integer(Int64(report.sessionsClosed)),
                .integer(Int64(report.newFindings)), .integer(Int64(report.withdrawnFindings)),
                .optional(report.watermark?.text), .optional(report.watermark?.epochMilliseconds), .integer(closedAll ? 1 : 0),
            ])
        }
    }
}
