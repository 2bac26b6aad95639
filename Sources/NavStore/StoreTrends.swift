import NavReplay
public import NavReport
import NavSQLite

extension StoredRun {
    /// Findings per batch (labelled by its date, `batchDates`) and per app version
    /// (`report --store`).
    public static func trends(_ store: EventStore) throws -> ReportTrends {
        let dates = try batchDates(store)
        return try read(store) { () throws(SQLiteError) -> ReportTrends in
            let database = store.database
            var trends = ReportTrends()
            try database.prepare(
                """
                SELECT b.batch, b.sessions_touched,
                  (SELECT count(*) FROM findings f WHERE f.batch = b.batch),
                  (SELECT count(*) FROM findings f WHERE f.batch = b.batch AND f.severity = 'error'),
                  (SELECT count(*) FROM findings f WHERE f.batch = b.batch AND f.severity = 'warning')
                FROM batches b ORDER BY b.batch
                """
            ).forEachRow([]) { row in
                trends.batches.append(
                    ReportTrends.Period(
                        label: dates[Int(row.integer(0))] ?? "batch \(row.integer(0))", sessions: Int(row.integer(1)),
                        findings: Int(row.integer(2)),
                        errors: Int(row.integer(3)), warnings: Int(row.integer(4))))
            }
            var versions: [ReportTrends.Period] = []
            try database.prepare(
                """
                SELECT s.app_version, count(*),
                  coalesce(sum((SELECT count(*) FROM findings f WHERE f.session = s.session)), 0),
                  coalesce(sum((SELECT count(*) FROM findings f WHERE f.session = s.session AND f.severity = 'error')), 0),
                  coalesce(sum((SELECT count(*) FROM findings f WHERE f.session = s.session AND f.severity = 'warning')), 0)
                FROM sessions s WHERE s.app_version IS NOT NULL GROUP BY s.app_version
                """
            ).forEachRow([]) { row in
                versions.append(
                    ReportTrends.Period(
                        label: row.text(0), sessions: Int(row.integer(1)), findings: Int(row.integer(2)), errors: Int(row.integer(3)),
                        warnings: Int(row.integer(4))))
            }
            trends.versions = versions.sorted { versionPrecedes($0.label, $1.label) }
            return trends
        }
    }

    /// App versions in release order: numeric parts compared as numbers (3.10 after 3.9), others
    /// as text.
    static func versionPrecedes(_ lhs: String, _ rhs: String) -> Bool {
        let left = lhs.split(whereSeparator: { $0 == "." || $0 == "-" || $0 == "+" })
        let right = rhs.split(whereSeparator: { $0 == "." || $0 == "-" || $0 == "+" })
        for (a, b) in zip(left, right) where a != b {
            if let x = Int(a), let y = Int(b) { return x < y }
            return a < b
        }
        return left.count != right.count ? left.count < right.count : lhs < rhs
    }

    /// Writes every event the store holds as located input to `path`, and returns the paths
    /// its file indexes name (`report --store` folds them again for its timelines). One chunk
    /// is held at a time, in one read transaction.
    public static func writeHeldEvents(_ store: EventStore, to path: String) throws -> [String] {
        let output = try ScratchOutput(path: path)
        let database = store.database
        var paths: [String] = []
        var chunks: [Int64] = []
        do {
            try database.execute("BEGIN")
            defer { try? database.execute("COMMIT") }
            try database.prepare("SELECT path FROM files ORDER BY file").forEachRow([]) { paths.append($0.text(0)) }
            // A pruned session's lines of the ids it owned (`StoreWriter.prune`) are not a session.
            try database.prepare(
                "SELECT chunk FROM event_chunks WHERE session NOT IN (SELECT session FROM sessions WHERE status = 'pruned') ORDER BY chunk"
            ).forEachRow([]) { chunks.append($0.integer(0)) }
            let query = try database.prepare("SELECT data, lines FROM event_chunks WHERE chunk = ?")
            for chunk in chunks {
                var lines: [UInt8]?
                // A store holds no over-long line: no `/LENGTH` prefix is whole.
                try query.forEachRow([.integer(chunk)]) {
                    lines = ChunkCodec.locatedLines($0.blob(0), files: paths.count, maxLineBytes: Int.max, lines: Int($0.integer(1)))
                }
                guard let lines else {
                    throw StoreError("The store \(store.path) is damaged: event_chunks row \(chunk) does not hold its lines.")
                }
                try output.write(bytes: lines)
            }
        } catch let error as SQLiteError {
            throw StoreError(store: store.path, error)
        }
        try output.close()
        return paths
    }
}
