import NavEvents
import NavInput
import NavJSON
import NavReplay
import NavReport
import NavSQLite

/// What the store holds of a session before a batch.
struct StoredSession: Sendable {
    enum Status: String, Sendable {
        case open, closed, pruned
    }

    var row: Int64
    var status: Status
    var newestMilliseconds: Int64
}

/// The store's side of an ingest: one write transaction, and the reads and writes of a batch.
final class StoreWriter {
    let store: EventStore
    var database: SQLiteDatabase { store.database }
    /// The sessions the batch has met, by id: the open ones, those it names or folds (as the
    /// store held them before it), and those it makes (`madeRows`, open and empty).
    private var sessions: [String: StoredSession] = [:]
    private var ids: [Int64: String] = [:]
    private var madeRows: Set<Int64> = []
    private lazy var insertChunk = try? database.prepare(
        "INSERT INTO event_chunks (session, batch, lines, line_bytes, data) VALUES (?, ?, ?, ?, ?)")

    init(store: EventStore) { self.store = store }

    func begin() throws {
        do {
            try database.execute("BEGIN IMMEDIATE")
        } catch {
            throw error.kind == .busy ? EventStore.busy(store.path) : StoreError(store: store.path, error)
        }
        try sql { () throws(SQLiteError) in try database.execute(StoreSchema.unreadableIndex) }
    }

    func commit() throws { try sql { () throws(SQLiteError) in try database.execute("COMMIT") } }

    func rollback() { try? database.execute("ROLLBACK") }

    /// Runs SQLite calls, their failures phrased with the store's path.
    func sql<T>(_ body: () throws(SQLiteError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw StoreError(store: store.path, error)
        }
    }

    func nextBatch() throws -> Int64 {
        try sql { () throws(SQLiteError) in try database.integer("SELECT coalesce(max(batch), 0) + 1 FROM batches") }
    }

    func watermark() throws -> Int64? {
        try sql { () throws(SQLiteError) in
            var value: Int64?
            try database.prepare("SELECT value FROM meta WHERE key = 'watermark_ms'").forEachRow([]) { value = Int64($0.text(0)) }
            return value
        }
    }

    func saveWatermark(_ milliseconds: Int64) throws {
        guard milliseconds != .min else { return }
        try sql { () throws(SQLiteError) in
            try database.prepare("UPDATE meta SET value = ? WHERE key = 'watermark_ms'").run([.text(String(milliseconds))])
        }
    }

    /// The cap of findings per session the store folds with: the one its first batch was
    /// given (kept in `meta`), or `given` for a store's first batch. Another `given` is refused.
    func maxFindingsPerSession(given: Int?) throws -> Int {
        let stored = try sql { () throws(SQLiteError) in
            var value: Int?
            try database.prepare("SELECT value FROM meta WHERE key = 'max_findings_per_session'").forEachRow([]) { value = Int($0.text(0)) }
            return value
        }
        if let stored {
            if let given, given != stored {
                throw StoreError(
                    "The store \(store.path) keeps at most \(stored) findings per session (the --max-findings-per-session it was made "
                        + "with); this batch gives \(given). A store folds every batch with one cap: give \(stored), or leave the "
                        + "option out, or ingest into a new store.")
            }
            return stored
        }
        let value = given ?? IngestOptions.defaultMaxFindingsPerSession
        try sql { () throws(SQLiteError) in
            try database.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('max_findings_per_session', ?)").run([
                .text(String(value))
            ])
        }
        return value
    }

    /// The files the store has read, by their resolved paths.
    func files() throws -> [String: StoredFile] {
        try sql { () throws(SQLiteError) in
            var files: [String: StoredFile] = [:]
            try database.prepare("SELECT file, path, resolved, lines, blank_lines, fingerprint, torn_tail, tail_left, bytes FROM files")
                .forEachRow([]) { row in
                    var file = StoredFile(
                        id: Int(row.integer(0)), path: row.text(1), resolved: row.text(2), readPath: row.text(1), lines: row.integer(3),
                        blankLines: row.integer(4), fingerprint: UInt64(bitPattern: row.integer(5)), tornTail: row.integer(6) != 0,
                        tailLeft: row.integer(7) != 0)
                    file.bytes = row.integer(8)
                    files[file.resolved] = file
                }
            return files
        }
    }

    func saveFiles(_ files: [StoredFile], batch: Int64) throws {
        try sql { () throws(SQLiteError) in
            let upsert = try database.prepare(
                """
                INSERT INTO files (file, path, resolved, lines, blank_lines, fingerprint, torn_tail, tail_left, first_batch, last_batch, bytes)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(file) DO UPDATE SET lines = excluded.lines, blank_lines = excluded.blank_lines, bytes = excluded.bytes,
                  fingerprint = excluded.fingerprint, torn_tail = excluded.torn_tail, tail_left = excluded.tail_left,
                  last_batch = excluded.last_batch
                """)
            for file in files {
                try upsert.run([
                    .integer(Int64(file.id)), .text(file.path), .text(file.resolved), .integer(file.lines), .integer(file.blankLines),
                    .integer(Int64(bitPattern: file.fingerprint)), .integer(file.tornTail ? 1 : 0), .integer(file.tailLeft ? 1 : 0),
                    .integer(batch), .integer(batch), .integer(file.bytes),
                ])
            }
        }
    }

    /// The open sessions, the only ones a batch reads whole: a store's closed and pruned
    /// sessions are looked up one at a time, as a batch names them, so that a batch costs what
    /// it touches, not what the store has gathered.
    func openSessions() throws -> [String: StoredSession] {
        try sql { () throws(SQLiteError) in
            var open: [String: StoredSession] = [:]
            try database.prepare(
                "SELECT session, session_id, status, coalesce(last_event_ms, -9223372036854775808) FROM sessions WHERE status = 'open'"
            ).forEachRow([]) { (row) throws(SQLiteError) in
                let (id, session) = try remember(row)
                open[id] = session
            }
            return open
        }
    }

    /// What the store held of the session before this batch, or `nil` for a session it did not
    /// know (one whose row this batch made included).
    func stored(_ sessionID: String) throws -> StoredSession? {
        if let known = sessions[sessionID] { return madeRows.contains(known.row) ? nil : known }
        let found = try sql { () throws(SQLiteError) in
            var found: StoredSession?
            guard let lookUpByID else { throw SQLiteError("SQLite: cannot prepare the session lookup") }
            try lookUpByID.forEachRow([.text(sessionID)]) { (row) throws(SQLiteError) in found = try remember(row).1 }
            return found
        }
        // Not cached when absent: a batch asks once for each session it meets, which then takes a
        // row (`row(of:)`) before it is asked of again.
        return found
    }

    /// Caches a `sessions` row (`session, session_id, status, last_event_ms`) as it was before
    /// the batch.
    private func remember(_ row: SQLiteRow) throws(SQLiteError) -> (String, StoredSession) {
        guard let status = StoredSession.Status(rawValue: row.text(2)) else {
            throw SQLiteError(StoreChecks.badStatus(row: row.integer(0), row.text(2)), kind: .damaged)
        }
        let session = StoredSession(row: row.integer(0), status: status, newestMilliseconds: row.integer(3))
        let id = row.text(1)
        sessions[id] = session
        ids[session.row] = id
        return (id, session)
    }

    private lazy var lookUpByID = try? database.prepare(
        "SELECT session, session_id, status, coalesce(last_event_ms, -9223372036854775808) FROM sessions WHERE session_id = ?")
    private lazy var lookUpByRow = try? database.prepare(
        "SELECT session, session_id, status, coalesce(last_event_ms, -9223372036854775808) FROM sessions WHERE session = ?")

    /// The session's row, made (open, empty) when the store has none.
    func row(of sessionID: String, batch: Int64) throws -> Int64 {
        if let session = sessions[sessionID] { return session.row }
        return try sql { () throws(SQLiteError) in
            try database.prepare(
                """
                INSERT INTO sessions (session_id, status, events, redeliveries, duplicates, findings, dropped_findings, record,
                  first_batch, last_batch) VALUES (?, 'open', 0, 0, 0, 0, '{}', '', ?, ?)
                """
            ).run([.text(sessionID), .integer(batch), .integer(batch)])
            let row = database.lastInsertedRow
            madeRows.insert(row)
            sessions[sessionID] = StoredSession(row: row, status: .open, newestMilliseconds: .min)
            ids[row] = sessionID
            return row
        }
    }

    func addChunk(session sessionID: String, _ kept: KeptLines, batch: Int64) throws {
        let session = try row(of: sessionID, batch: batch)
        try sql { () throws(SQLiteError) in
            guard let insertChunk else { throw SQLiteError("SQLite: cannot prepare the chunk insert") }
            try insertChunk.run([
                .integer(session), .integer(batch), .integer(Int64(kept.count)), .integer(Int64(kept.lineBytes)), .blob(kept.records),
            ])
        }
    }

    /// Each stored chunk of a session from batches before `batch`, as located lines. Each
    /// line's prefix must name one of the store's `files` (the fold's paths): a damaged chunk is
    /// the store's error, not one of the fold's temporary file.
    func forEachChunk(
        of sessionID: String, before batch: Int64, files: Int, maxLineBytes: Int, _ body: ([UInt8]) throws -> Void
    ) throws {
        guard let session = sessions[sessionID]?.row else { return }
        var chunks: [(chunk: Int64, lines: Int, data: [UInt8])] = []
        try sql { () throws(SQLiteError) in
            try database.prepare("SELECT chunk, lines, data FROM event_chunks WHERE session = ? AND batch < ? ORDER BY chunk")
                .forEachRow([.integer(session), .integer(batch)]) { chunks.append(($0.integer(0), Int($0.integer(1)), $0.blob(2))) }
        }
        for chunk in chunks {
            guard let lines = ChunkCodec.locatedLines(chunk.data, files: files, maxLineBytes: maxLineBytes, lines: chunk.lines) else {
                throw StoreError(
                    "The store \(store.path) is damaged: event_chunks row \(chunk.chunk) (session \(JSONWriter.quoted(sessionID))) "
                        + "cannot be read back as its \(chunk.lines) lines.")
            }
            try body(lines)
        }
    }

    func addLate(_ late: (sessionID: String, file: Int, line: Int64, text: String), batch: Int64, path: String) throws {
        try sql { () throws(SQLiteError) in
            try database.prepare("INSERT INTO late_events (batch, session_id, file, line, event) VALUES (?, ?, ?, ?, ?)")
                .run([.integer(batch), .text(late.sessionID), .text(path), .integer(late.line), .text(late.text)])
        }
    }

    func openSessionCount() throws -> Int {
        Int(try sql { () throws(SQLiteError) in try database.integer("SELECT count(*) FROM sessions WHERE status = 'open'") })
    }

    func status(of sessionID: String) -> StoredSession.Status? { sessions[sessionID]?.status }

    /// The id of the session at `row`, looked up when the batch has not met it.
    func sessionID(of row: Int64) throws -> String? {
        if let id = ids[row] { return id }
        return try sql { () throws(SQLiteError) in
            guard let lookUpByRow else { throw SQLiteError("SQLite: cannot prepare the session lookup") }
            var found: String?
            try lookUpByRow.forEachRow([.integer(row)]) { (row) throws(SQLiteError) in found = try remember(row).0 }
            return found
        }
    }

    func sessionRow(_ sessionID: String) -> Int64? { sessions[sessionID]?.row }
}
