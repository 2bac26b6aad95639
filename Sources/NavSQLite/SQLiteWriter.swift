import CSQLite
import NavEvents
import NavJSON
import NavModel
public import NavReplay
import NavReport
public import NavResults

/// Writes an audit as a SQLite database (`navreplay sessions --format sqlite`), through the
/// system's libsqlite3.
///
/// Tables (JSON columns hold JSON text, for SQLite's `json_extract` and `json_each`):
///
/// - `sessions`: one row a session: `session_id, events, first_seq, last_seq, start, end,
///   start_ms, end_ms, duration_ms, final_state` (JSON), `screens` (JSON), `entry_screen`,
///   `exit_screen`, `findings, errors, warnings, redeliveries, duplicates`.
/// - `events`: one row a folded event: `session_id, seq, event_id, event_name, timestamp,
///   timestamp_ms, correlation_id, stack, file, line, event` (the canonical JSON line),
///   `state_after` (JSON, docs/events-and-rules.md), `changes` (JSON array of text), `findings` (count).
///   `state_after` and `changes` list long stacks and modals as findings do (`ListedNames`):
///   a row's size does not grow with a stack's depth (`sessions.final_state` is whole).
/// - `findings`: one row a finding: `rule, severity, session_id, seq, event_id, file, line,
///   message, expected, found` (JSON), `after_gap` (0/1), `fingerprint`.
/// - `meta`: `key, value`: the tool and its version, the event schema version, the summary.
///
/// Indexes: `events(session_id, seq)`, `findings(session_id, seq)`, `findings(rule)`,
/// `sessions(session_id)`.
public enum SQLiteWriter {
    public static let schema = """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE sessions (
          session_id TEXT NOT NULL, events INTEGER NOT NULL, first_seq INTEGER, last_seq INTEGER,
          start TEXT, "end" TEXT, start_ms INTEGER, end_ms INTEGER, duration_ms INTEGER,
          final_state TEXT NOT NULL, screens TEXT NOT NULL, entry_screen TEXT, exit_screen TEXT,
          findings INTEGER NOT NULL, errors INTEGER NOT NULL, warnings INTEGER NOT NULL,
          redeliveries INTEGER NOT NULL, duplicates INTEGER NOT NULL);
        CREATE TABLE events (
          session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_id TEXT NOT NULL, event_name TEXT NOT NULL,
          timestamp TEXT NOT NULL, timestamp_ms INTEGER NOT NULL, correlation_id TEXT NOT NULL, stack TEXT,
          file TEXT, line INTEGER, event TEXT NOT NULL, state_after TEXT NOT NULL, changes TEXT NOT NULL,
          findings INTEGER NOT NULL);
        CREATE TABLE findings (
          rule TEXT NOT NULL, severity TEXT NOT NULL, session_id TEXT, seq INTEGER, event_id TEXT,
          file TEXT, line INTEGER, message TEXT NOT NULL, expected TEXT, found TEXT,
          after_gap INTEGER NOT NULL, fingerprint TEXT NOT NULL);
        CREATE INDEX sessions_session ON sessions(session_id);
        CREATE INDEX events_session ON events(session_id, seq);
        CREATE INDEX findings_session ON findings(session_id, seq);
        CREATE INDEX findings_rule ON findings(rule);
        """

    /// Writes the database at `path`, replacing any file there. `run` should be audited with
    /// `SessionAuditOptions(recordSteps: true)`, or the `events` table stays empty.
    public static func write(_ run: AuditRun, to path: String, toolVersion: String) throws(SQLiteError) {
        let writer = try SQLiteSessionsWriter(path: path, toolVersion: toolVersion)
        try writer.insertInvalid(run.invalidFindings, files: run.files)
        for audit in run.sessions {
            do {
                try writer.insert(session: audit, files: run.files)
            } catch let error as SQLiteError {
                throw error
            } catch {
                throw SQLiteError("cannot read a session's steps back: \(error)")
            }
        }
        try writer.finish(run)
    }

    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }

    static func jsonText(_ value: JSONValue) -> String {
        var writer = JSONWriter()
        writer.value(value)
        return writer.string
    }

    static func removeFile(_ path: String) {
        _ = path.withCString { unlink($0) }
    }

    /// The size of the file at `path`, or `nil` when there is none.
    static func size(of path: String) -> Int64? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return Int64(status.st_size)
    }

    /// Refuses a file that is not a sessions database of this schema version.
    static func checkSessionsDatabase(_ database: SQLiteDatabase, path: String) throws(SQLiteError) {
        let notOurs = SQLiteError(
            "\(path) exists and is not a navreplay sessions database (no meta table naming navreplay)",
            kind: .notASessionsDatabase)
        let tables: Int64
        do {
            tables = try database.integer(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('meta', 'sessions', 'events', 'findings')")
        } catch {
            throw notOurs  // not a SQLite file at all
        }
        guard tables == 4,
            try database.integer("SELECT count(*) FROM meta WHERE key = 'tool' AND value = 'navreplay'") == 1
        else { throw notOurs }
        let version = String(NavigationEvent.schemaVersion)
        guard try database.integer("SELECT count(*) FROM meta WHERE key = 'schema_version' AND value = '\(version)'") == 1 else {
            throw SQLiteError(
                "\(path) holds events of another schema version than \(version)", kind: .notASessionsDatabase)
        }
    }
}

/// Writes the sessions database one session at a time, so that an audit streams into it with
/// bounded memory (`navreplay sessions --format sqlite`): `rows(of:files:)` encodes a session's
/// rows on a fold job, `insert(_:)` adds them in session order, `finish(_:)` adds the summary.
public final class SQLiteSessionsWriter {
    private let database: SQLiteDatabase
    private let sessions: SQLiteStatement
    private let events: SQLiteStatement
    private let findings: SQLiteStatement
    private let meta: SQLiteStatement

    /// Sessions a database already held when this writer opened it, by rowid: a session of
    /// this run found among them is refused. `nil` for a new database.
    private let heldSession: SQLiteStatement?
    private let heldUpTo: Int64

    /// What to do with a database file that exists at the path.
    public enum Existing: Sendable {
        /// Remove it and create a new database.
        case replace
        /// Add this run's sessions to it, in one transaction; a session it holds already is
        /// refused (`SQLiteError.Kind.sessionAlreadyHeld`) and nothing is added. An empty file
        /// counts as no database.
        case append
    }

    /// Creates the database at `path` (or opens it, to append) and opens its transaction.
    public init(path: String, toolVersion: String, existing: Existing = .replace) throws(SQLiteError) {
        let appending = existing == .append && SQLiteWriter.size(of: path).map { $0 > 0 } == true
        if !appending {
            SQLiteWriter.removeFile(path)
            SQLiteWriter.removeFile(path + "-journal")
        }
        database = try SQLiteDatabase(path: path)
        if appending {
            // A database with earlier runs in it keeps SQLite's rollback journal and syncs: a
            // crash mid-run must leave it as it was, not half written.
            try SQLiteWriter.checkSessionsDatabase(database, path: path)
            try database.execute("BEGIN IMMEDIATE")
            heldUpTo = try database.integer("SELECT coalesce(max(rowid), 0) FROM sessions")
            heldSession = try database.prepare("SELECT 1 FROM sessions WHERE session_id = ? AND rowid <= ? LIMIT 1")
        } else {
            try database.execute("PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF;")
            try database.execute(SQLiteWriter.schema)
            try database.execute("BEGIN")
            heldUpTo = 0
            heldSession = nil
        }
        self.path = path
        meta = try database.prepare("INSERT OR REPLACE INTO meta VALUES (?, ?)")
        sessions = try database.prepare("INSERT INTO sessions VALUES (" + SQLiteWriter.placeholders(18) + ")")
        events = try database.prepare("INSERT INTO events VALUES (" + SQLiteWriter.placeholders(14) + ")")
        findings = try database.prepare("INSERT INTO findings VALUES (" + SQLiteWriter.placeholders(12) + ")")
        for (key, value) in [
            ("tool", "navreplay"), ("tool_version", toolVersion), ("schema_version", String(NavigationEvent.schemaVersion)),
        ] {
            try meta.run([.text(key), .text(value)])
        }
    }

    private let path: String

    /// The findings of lines that are not events (they come before every session).
    public func insertInvalid(_ invalid: [Finding], files: [String]) throws(SQLiteError) {
        // Their fingerprints need the lines' bytes, re-read from the files.
        let run = AuditRun(files: files, fileReports: [], invalidFindings: invalid, sessions: [], counts: AuditCounts())
        for (finding, fingerprint) in zip(invalid, FindingFingerprint.compute(run)) {
            try findings.run(SQLiteSessionsWriter.findingRow(finding, fingerprint: fingerprint, files: files))
        }
    }

    /// Inserts one session's rows, as `rows(of:files:)` encoded them.
    public func insert(_ encoded: [UInt8]) throws(SQLiteError) {
        var reader = RowReader(bytes: encoded)
        while let (table, values) = reader.next() { try insertRow(table, values) }
        guard reader.isAtEnd else { throw SQLiteError("a session's rows do not decode") }
    }

    /// Inserts one session's rows as they are made, one at a time: for a session audited from
    /// disk, whose steps are read back from there and whose rows are never held together.
    public func insert(session audit: SessionAudit, files: [String]) throws {
        try Self.forEachRow(of: audit, files: files) { table, values in try insertRow(table, values) }
    }

    private func insertRow(_ table: UInt8, _ values: [SQLiteValue]) throws(SQLiteError) {
        switch table {
        case 0:
            if let heldSession, case .text(let id)? = values.first,
                try heldSession.returnsRow([.text(id), .integer(heldUpTo)])
            {
                throw SQLiteError(
                    "\(path) already holds session \(JSONWriter.quoted(id)) from an earlier run; nothing was added",
                    kind: .sessionAlreadyHeld(id))
            }
            try sessions.run(values)
        case 1: try events.run(values)
        case 2: try findings.run(values)
        default: throw SQLiteError("a session's rows do not decode")
        }
    }

    /// Adds the run's summary (replacing an earlier run's, when appending) and commits.
    public func finish(_ run: AuditRun) throws(SQLiteError) {
        try meta.run([.text("summary"), .text(String(decoding: SummaryWriter.json(run).dropLast(), as: UTF8.self))])
        try database.execute("COMMIT")
    }

    /// A session's rows (the session, its events with the state after each, its findings with
    /// their fingerprints), encoded for `insert(_:)`. Throws only when the steps of a session
    /// audited from disk cannot be read back.
    public static func rows(of audit: SessionAudit, files: [String]) throws -> [UInt8] {
        var writer = RowWriter()
        try forEachRow(of: audit, files: files) { table, values in writer.row(table, values) }
        return writer.bytes
    }

    /// Each of a session's rows, by table (0 sessions, 1 events, 2 findings), in the order they
    /// are inserted.
    static func forEachRow(of audit: SessionAudit, files: [String], _ emit: (UInt8, [SQLiteValue]) throws -> Void) throws {
        let errors =
            audit.findings.filter { $0.severity == .error }.count
            + audit.droppedFindings.filter { $0.key.severity == .error }.values.reduce(0, +)
        var screens = JSONWriter()
        screens.beginArray()
        for screen in audit.screens { screen.write(to: &screens) }
        screens.endArray()
        try emit(
            0,
            [
                .text(audit.sessionID), .integer(Int64(audit.events)), .optional(audit.firstSeq), .optional(audit.lastSeq),
                .optional(audit.start?.text), .optional(audit.end?.text), .optional(audit.start?.epochMilliseconds),
                .optional(audit.end?.epochMilliseconds), .optional(audit.durationMilliseconds),
                .text(audit.finalState.json), .text(screens.string), .optional(audit.screens.first?.label),
                .optional(audit.screens.last?.label), .integer(Int64(audit.findingCount)), .integer(Int64(errors)),
                .integer(Int64(audit.findingCount - errors)), .integer(Int64(audit.redeliveries)),
                .integer(Int64(audit.duplicates)),
            ])
        try audit.forEachStep { step, cursor in
            var changes = JSONWriter()
            changes.beginArray()
            for change in cursor.condensedChanges { changes.string(change.description) }
            changes.endArray()
            try emit(
                1,
                [
                    .text(audit.sessionID), .integer(step.event.seq), .text(step.event.eventID),
                    .text(step.event.name.rawValue), .text(step.event.timestamp.text),
                    .integer(step.event.timestamp.epochMilliseconds), .text(step.event.correlationID),
                    .optional(Self.stack(of: step.event.payload)), .optional(path(of: step.location, in: files)),
                    .integer(step.location.line), .text(step.event.canonicalJSON), .text(cursor.condensedState.json),
                    .text(changes.string), .integer(Int64(step.findings.count)),
                ])
        }
        for (finding, fingerprint) in zip(audit.findings, FindingFingerprint.compute(sessionFindings: audit.findings)) {
            try emit(2, findingRow(finding, fingerprint: fingerprint, files: files))
        }
    }

    /// The stack an event names: a stack operation's, or the stack of a screen it views.
    static func stack(of payload: NavigationEvent.Payload) -> String? {
        if case .screenView(.stack(let stack, _), _) = payload { return stack }
        return payload.stack
    }

    /// The input path a location names, as `AuditRun.path(of:)` (no run is at hand on a fold job).
    static func path(of location: LineLocation?, in files: [String]) -> String? {
        guard let location, location.file >= 0, Int(location.file) < files.count else { return nil }
        return files[Int(location.file)]
    }

    static func findingRow(_ finding: Finding, fingerprint: String, files: [String]) -> [SQLiteValue] {
        [
            .text(finding.rule.rawValue), .text(finding.severity.rawValue), .optional(finding.sessionID),
            .optional(finding.seq), .optional(finding.eventID), .optional(path(of: finding.location, in: files)),
            .optional(finding.location?.line), .text(finding.message), .optional(finding.expected.map(SQLiteWriter.jsonText)),
            .optional(finding.found.map(SQLiteWriter.jsonText)), .integer(finding.afterGap ? 1 : 0), .text(fingerprint),
        ]
    }
}

/// Rows encoded as bytes: `[u8 table][u16 count]` then each value, `[u8 0]` null, `[u8 1][i64]`
/// integer, `[u8 2][u32 length][UTF-8]` text (little-endian).
struct RowWriter {
    private(set) var bytes: [UInt8] = []

    mutating func row(_ table: UInt8, _ values: [SQLiteValue]) {
        bytes.append(table)
        append(UInt16(values.count))
        for value in values {
            switch value {
            case .null: bytes.append(0)
            case .integer(let number):
                bytes.append(1)
                append(UInt64(bitPattern: number))
            case .text(let text):
                bytes.append(2)
                append(UInt32(text.utf8.count))
                bytes.append(contentsOf: text.utf8)
            case .blob:
                preconditionFailure("the sessions database stores no blobs")
            }
        }
    }

    private mutating func append<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
}

struct RowReader {
    let bytes: [UInt8]
    private var offset = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset == bytes.count }

    /// The next row, or `nil` at the end or at bytes that do not decode (then not `isAtEnd`).
    mutating func next() -> (table: UInt8, values: [SQLiteValue])? {
        guard let table = byte(), let count = integer(UInt16.self) else { return nil }
        var values: [SQLiteValue] = []
        values.reserveCapacity(Int(count))
        for _ in 0..<count {
            switch byte() {
            case 0: values.append(.null)
            case 1:
                guard let number = integer(UInt64.self) else { return nil }
                values.append(.integer(Int64(bitPattern: number)))
            case 2:
                guard let length = integer(UInt32.self), offset + Int(length) <= bytes.count else { return nil }
                values.append(.text(String(decoding: bytes[offset..<(offset + Int(length))], as: UTF8.self)))
                offset += Int(length)
            default: return nil
            }
        }
        return (table, values)
    }

    private mutating func byte() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    private mutating func integer<T: FixedWidthInteger>(_: T.Type) -> T? {
        let size = MemoryLayout<T>.size
        guard offset + size <= bytes.count else { return nil }
        var value: T = 0
        for index in 0..<size { value |= T(bytes[offset + index]) << (8 * index) }
        offset += size
        return value
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
    import NavResults
#endif

/// The database is written as the sessions fold: each session's rows are encoded on its fold
/// job and inserted in session order, so that no session is kept and the rows' order (their
/// `rowid`s) is the sessions' whatever the jobs.
extension SQLiteSessionsWriter: StreamingFormatter {
    struct Rows: SessionFormat {
        /// A session held in memory: its steps are never read back, so `rows` cannot throw (a
        /// session audited from disk is written by `write(session:files:)`).
        func bytes(of audit: SessionAudit, files: [String]) -> [UInt8] {
            (try? SQLiteSessionsWriter.rows(of: audit, files: files)) ?? []
        }
    }

    public var sessionFormat: any SessionFormat { Rows() }

    public func begin(invalid: [Finding], files: [String]) throws { try insertInvalid(invalid, files: files) }

    public func write(_ bytes: [UInt8]) throws { try insert(bytes) }

    /// A session audited from disk, its rows inserted as its steps are read back.
    public func write(session audit: SessionAudit, files: [String]) throws { try insert(session: audit, files: files) }
}
