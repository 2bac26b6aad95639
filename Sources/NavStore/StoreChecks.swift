import NavJSON
import NavSQLite

/// The checks of what a store's columns may hold, beside its pages' checksums: a value that
/// no ingest writes is the store's damage (`SQLiteError.Kind.damaged`), named by table, row
/// and column.
enum StoreChecks {
    static let statuses: Set<String> = ["open", "closed", "pruned"]

    static func badStatus(row: Int64, _ status: String) -> String {
        "sessions row \(row) has status \(JSONWriter.quoted(status)), not open, closed or pruned"
    }

    /// An `event_ids` row (`rowid, entries`): its entries, whole 16-byte entries.
    static func eventIDs(_ row: SQLiteRow) throws(SQLiteError) -> [UInt8] {
        let entries = row.blob(1)
        guard entries.count % 16 == 0, !entries.isEmpty else {
            throw SQLiteError("event_ids row \(row.integer(0)) holds \(entries.count) bytes, not whole 16-byte entries", kind: .damaged)
        }
        return entries
    }

    /// A `sessions` row (`session, record`): its record, a JSON object.
    static func record(_ row: SQLiteRow) throws(SQLiteError) -> String {
        let text = row.text(1)
        guard case .object? = try? JSONValue.parse(text) else {
            throw SQLiteError("sessions row \(row.integer(0)) has a record that is not a JSON object", kind: .damaged)
        }
        return text
    }
}

/// `navreplay verify --store`: the whole store checked, every page and every column.
public enum StoreVerification {
    /// Throws a `StoreError` ("The store STORE is damaged: WHAT") when any page of the store
    /// or of its `-wal` fails its checksum, SQLite finds it malformed, or a column holds what
    /// no ingest writes.
    public static func verify(path: String, toolVersion: String) throws {
        let store = try EventStore.openForReading(path: path, toolVersion: toolVersion)
        if let damage = PageChecksums.damage(of: path) { throw StoreError("The store \(path) is damaged: \(damage).") }
        try StoredRun.read(store) { () throws(SQLiteError) in
            let database = store.database
            var problems: [String] = []
            try database.prepare("PRAGMA integrity_check").forEachRow([]) { row in
                if row.text(0) != "ok" { problems.append(row.text(0)) }
            }
            if let problem = problems.first { throw SQLiteError("SQLite's integrity check: \(problem)", kind: .damaged) }
            try columns(database)
        }
    }

    private static func columns(_ database: SQLiteDatabase) throws(SQLiteError) {
        for (query, what) in [
            ("SELECT session, status FROM sessions WHERE status NOT IN ('open', 'closed', 'pruned')", "status"),
            ("SELECT batch, watermark_ms FROM batches WHERE watermark_ms IS NOT NULL AND typeof(watermark_ms) != 'integer'", "watermark"),
            ("SELECT rowid, finding FROM findings WHERE json_valid(finding) = 0", "finding"),
            ("SELECT rowid, finding FROM finding_changes WHERE json_valid(finding) = 0", "finding"),
        ] {
            try database.prepare(query + " LIMIT 1").forEachRow([]) { (row) throws(SQLiteError) in
                switch what {
                case "status": throw SQLiteError(StoreChecks.badStatus(row: row.integer(0), row.text(1)), kind: .damaged)
                case "watermark":
                    throw SQLiteError(
                        "batches row \(row.integer(0)) has watermark_ms \(JSONWriter.quoted(row.text(1))), not a number", kind: .damaged)
                default: throw SQLiteError("a row of \(query.split(separator: " ")[3]) has a finding that is not JSON", kind: .damaged)
                }
            }
        }
        try database.prepare("SELECT session, record FROM sessions WHERE record != ''").forEachRow([]) { (row) throws(SQLiteError) in
            _ = try StoreChecks.record(row)
        }
        try database.prepare("SELECT rowid, entries FROM event_ids").forEachRow([]) { (row) throws(SQLiteError) in
            _ = try StoreChecks.eventIDs(row)
        }
        let files = Int(try database.integer("SELECT count(*) FROM files"))
        try database.prepare("SELECT chunk, lines, data FROM event_chunks").forEachRow([]) { (row) throws(SQLiteError) in
            if ChunkCodec.locatedLines(row.blob(2), files: files, maxLineBytes: Int.max, lines: Int(row.integer(1))) == nil {
                throw SQLiteError("event_chunks row \(row.integer(0)) does not hold its \(row.integer(1)) lines", kind: .damaged)
            }
        }
        let read = try database.integer("SELECT coalesce(sum(lines), 0) FROM files")
        let batches = try database.integer("SELECT coalesce(sum(lines), 0) FROM batches")
        if read != batches {
            throw SQLiteError("the files' lines (\(read)) are not the lines the batches read (\(batches))", kind: .damaged)
        }
    }
}
