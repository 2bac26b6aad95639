import NavInput
import NavRuns
import NavSQLite

/// One session's events as the store holds them, for `replay --store`: written as located
/// lines (`FILE_INDEX<TAB>LINE<TAB>line`) over the store's files, so that a replay of them
/// names each line's file and line as the logs' replay did.
public enum HeldSessionEvents {
    /// What the store has of a session's events.
    public enum Held: Sendable, Equatable {
        /// Its events were written; located over these files (the store's, in file order).
        case events(paths: [String])
        /// The session is known, but its events were dropped by `--retain` at this batch.
        case pruned(batch: Int64)
        /// The store has no session of that id.
        case unknown
    }

    /// Writes the events the store holds of session `sessionID` to `path` as located lines.
    public static func writeEvents(of sessionID: String, _ store: EventStore, to path: String) throws -> Held {
        let database = store.database
        var paths: [String] = []
        var held: Held = .unknown
        do {
            try database.execute("BEGIN")
            defer { try? database.execute("COMMIT") }
            var session: Int64?
            try database.prepare("SELECT session, pruned_batch FROM sessions WHERE session_id = ?").forEachRow([.text(sessionID)]) {
                session = $0.integer(0)
                if !$0.isNull(1) { held = .pruned(batch: $0.integer(1)) }
            }
            guard let session, held == .unknown else { return held }
            try database.prepare("SELECT path FROM files ORDER BY file").forEachRow([]) { paths.append($0.text(0)) }
            var chunks: [Int64] = []
            try database.prepare("SELECT chunk FROM event_chunks WHERE session = ? ORDER BY chunk").forEachRow([.integer(session)]) {
                chunks.append($0.integer(0))
            }
            let output = try ScratchOutput(path: path)
            let query = try database.prepare("SELECT data FROM event_chunks WHERE chunk = ?")
            for chunk in chunks {
                var lines: [UInt8]?
                // A store holds no over-long line: no `/LENGTH` prefix is whole.
                try query.forEachRow([.integer(chunk)]) {
                    lines = ChunkCodec.locatedLines($0.blob(0), files: paths.count, maxLineBytes: Int.max)
                }
                guard let lines else { throw StoreError("The store \(store.path) is damaged: a stored chunk cannot be read.") }
                try output.write(bytes: lines)
            }
            try output.close()
        } catch let error as SQLiteError {
            throw StoreError("The store \(store.path): \(error)")
        }
        return .events(paths: paths)
    }
}
