import NavSQLite

extension StoredRun {
    /// Each session's batch, by session id: the batch that first held it (`diff --by batch`).
    public static func sessionBatches(_ store: EventStore) throws -> [String: Int] {
        try read(store) { () throws(SQLiteError) -> [String: Int] in
            var batches: [String: Int] = [:]
            try store.database.prepare("SELECT session_id, first_batch FROM sessions").forEachRow([]) {
                batches[$0.text(0)] = Int($0.integer(1))
            }
            return batches
        }
    }

    /// Each batch's date: the day of its watermark (the newest event time the store had seen when
    /// it was ingested), `YYYY-MM-DD`; a batch without one has none. Batches that share a day
    /// are told apart by the watermark's time, `YYYY-MM-DD HH:MM`.
    public static func batchDates(_ store: EventStore) throws -> [Int: String] {
        let watermarks = try read(store) { () throws(SQLiteError) -> [(Int, String)] in
            var rows: [(Int, String)] = []
            try store.database.prepare("SELECT batch, watermark FROM batches WHERE watermark IS NOT NULL ORDER BY batch").forEachRow([]) {
                rows.append((Int($0.integer(0)), $0.text(1)))
            }
            return rows
        }
        return batchLabels(watermarks)
    }

    /// `YYYY-MM-DD` of each RFC 3339 watermark, or `YYYY-MM-DD HH:MM` where two batches share a day.
    static func batchLabels(_ watermarks: [(batch: Int, watermark: String)]) -> [Int: String] {
        var byDay: [Substring: Int] = [:]
        for (_, watermark) in watermarks { byDay[watermark.prefix(10), default: 0] += 1 }
        var labels: [Int: String] = [:]
        for (batch, watermark) in watermarks {
            let day = watermark.prefix(10)
            labels[batch] = byDay[day, default: 0] > 1 ? String(day) + " " + String(watermark.dropFirst(11).prefix(5)) : String(day)
        }
        return labels
    }
}
