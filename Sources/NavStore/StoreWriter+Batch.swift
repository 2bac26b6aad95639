import NavEvents
import NavJSON
import NavReplay
import NavReport
import NavSQLite
import SystemPackage

extension StoreWriter {
    /// Keeps the batch's event ids (their hashes, with their sessions) and notes every pair of
    /// sessions that share one, with an earlier batch's session or within this batch: such
    /// sessions are always folded together, since an id's first occurrence decides which
    /// others conflict with it. The ids (`[u64 hash][u32 session number]` each, numbers into
    /// `sessions`) are read from `path` a part of `entriesPerPart` at a time: each part is
    /// sorted, checked against itself and every part stored before, and stored.
    func recordSharedIDs(in path: String, sessions: [String], partEntries entriesPerPart: Int, batch: Int64) throws {
        let rowOf = sessions.map { sessionRow($0) }
        var pairs = Set<Pair>()
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
                    try recordPart(&part, batch: batch, pairs: &pairs)
                    part.removeAll(keepingCapacity: true)
                    entries = 0
                }
            }
            held = held + count - full
            if held > 0 && full > 0 {  // the start of the next entry, moved to the front
                raw.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[full..<(full + held)])) }
            }
        }
        if entries > 0 { try recordPart(&part, batch: batch, pairs: &pairs) }
        try sql { () throws(SQLiteError) in
            let insert = try database.prepare("INSERT OR IGNORE INTO shared_ids (session, other) VALUES (?, ?)")
            for pair in pairs where pair.first != pair.second {
                try insert.run([.integer(pair.first), .integer(pair.second)])
                try insert.run([.integer(pair.second), .integer(pair.first)])
            }
        }
    }

    /// One part of the batch's ids: sorted, its own shared ids and those it shares with every
    /// part stored before noted, then stored as a part of its own.
    private func recordPart(_ unique: inout [(hash: UInt64, row: Int64)], batch: Int64, pairs: inout Set<Pair>) throws {
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
            for first in index..<end {
                for second in index..<end where first != second { pairs.insert(Pair(unique[first].row, unique[second].row)) }
            }
            index = end
        }
        var found = pairs
        try sql { () throws(SQLiteError) in
            // One stored part at a time: its blob is read and dropped before the next.
            try database.prepare("SELECT entries FROM event_ids ORDER BY rowid").forEachRow([]) { row in
                Self.matches(unique, in: row.blob(0)) { found.insert(Pair($0, $1)) }
            }
        }
        pairs = found
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

    private struct Pair: Hashable {
        let first: Int64
        let second: Int64
        init(_ first: Int64, _ second: Int64) {
            self.first = first
            self.second = second
        }
    }

    /// Calls `body` with each (new row, stored row) whose hashes match, for different sessions.
    private static func matches(_ run: [(hash: UInt64, row: Int64)], in blob: [UInt8], _ body: (Int64, Int64) -> Void) {
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
                    var probe = new
                    while probe < run.count, run[probe].hash == storedHash {
                        if run[probe].row != row(stored) { body(run[probe].row, row(stored)) }
                        probe += 1
                    }
                    stored += 1
                }
            }
        }
    }

    /// The sessions to fold: `sessions` and every session that shares an event id with one of
    /// them, transitively, whose events the store still holds.
    func closure(of sessions: Set<String>) throws -> Set<String> {
        var result = sessions
        var pending = sessions.compactMap { sessionRow($0) }
        let query = try sql { () throws(SQLiteError) in try database.prepare("SELECT other FROM shared_ids WHERE session = ?") }
        while let row = pending.popLast() {
            var others: [Int64] = []
            try sql { () throws(SQLiteError) in try query.forEachRow([.integer(row)]) { others.append($0.integer(0)) } }
            for other in others {
                guard let id = try sessionID(of: other), status(of: id) != .pruned, !result.contains(id) else { continue }
                result.insert(id)
                pending.append(other)
            }
        }
        return result
    }

    /// Drops the events of sessions closed before `cutoff` (event time), keeping their records
    /// and findings: their lines, their event ids and the ids they shared. Returns how many
    /// sessions were pruned.
    func prune(olderThan cutoff: Int64, batch: Int64) throws -> Int {
        try sql { () throws(SQLiteError) in
            var pruned: Set<Int64> = []
            try database.prepare("SELECT session FROM sessions WHERE status = 'closed' AND last_event_ms < ?")
                .forEachRow([.integer(cutoff)]) { pruned.insert($0.integer(0)) }
            guard !pruned.isEmpty else { return 0 }
            let deleteChunks = try database.prepare("DELETE FROM event_chunks WHERE session = ?")
            let markPruned = try database.prepare("UPDATE sessions SET status = 'pruned', pruned_batch = ? WHERE session = ?")
            // A pair is stored both ways: each partner's half goes by the table's key too.
            let partners = try database.prepare("SELECT other FROM shared_ids WHERE session = ?")
            let deletePair = try database.prepare("DELETE FROM shared_ids WHERE session = ? AND other = ?")
            let deleteShared = try database.prepare("DELETE FROM shared_ids WHERE session = ?")
            for row in pruned.sorted() {
                try deleteChunks.run([.integer(row)])
                try markPruned.run([.integer(batch), .integer(row)])
                var others: [Int64] = []
                try partners.forEachRow([.integer(row)]) { others.append($0.integer(0)) }
                for other in others { try deletePair.run([.integer(other), .integer(row)]) }
                try deleteShared.run([.integer(row)])
            }
            try dropEventIDs(of: pruned)
            return pruned.count
        }
    }

    /// Removes the entries of `sessions` from every stored part of event ids: a pruned session
    /// shares ids with no later one, and the parts a batch reads stay as large as what the store
    /// holds, not what it has seen.
    private func dropEventIDs(of sessions: Set<Int64>) throws(SQLiteError) {
        var rewritten: [(part: Int64, entries: [UInt8])] = []
        try database.prepare("SELECT rowid, entries FROM event_ids ORDER BY rowid").forEachRow([]) { row in
            let entries = row.blob(1)
            var kept: [UInt8] = []
            kept.reserveCapacity(entries.count)
            entries.withUnsafeBytes { raw in
                for offset in stride(from: 0, to: raw.count - raw.count % 16, by: 16)
                where !sessions.contains(Int64(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 8, as: Int64.self))) {
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
