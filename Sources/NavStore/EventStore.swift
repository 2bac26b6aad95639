import Dispatch
import NavJSON
public import NavModel
import NavReplay
package import NavSQLite

/// Why a store cannot be used: the message names the store and what to do.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }

    /// A SQLite call on the store at `path` that failed: "is damaged" when SQLite found the
    /// store damaged (a page that fails its checksum, a malformed file).
    package init(store path: String, _ error: SQLiteError) {
        description = error.kind == .damaged ? "The store \(path) is damaged: \(error)." : "The store \(path): \(error)"
    }
}

/// The persistent event store of `navreplay ingest`: one SQLite file (`docs/store.md`).
///
/// It holds the files read so far (how far, with a fingerprint of what was read), each
/// session's events (compressed, by session), each session's record and findings, and what each
/// batch changed. A batch is one SQLite transaction: a run killed at any moment leaves the store
/// as it was before the batch, and the same command again gives the store of an uninterrupted
/// run.
public final class EventStore {
    package let database: SQLiteDatabase
    public let path: String
    public let model: NavigationModel
    /// The model's JSON, as the store keeps it.
    public let modelText: String
    /// The checkpoint after a batch's commit, running on a thread of its own (`checkpoint()`).
    private let checkpoints = DispatchGroup()
    /// Why the last checkpoint failed, if it did.
    private let checkpointOutcome = CheckpointOutcome()

    /// How long an ingest waits for another one to finish, by default (seconds).
    public static let defaultLockWait = 60.0

    /// Opens the store at `path` for reading (`audit --store`); it must exist.
    public static func openForReading(path: String, toolVersion: String) throws -> EventStore {
        guard fileExists(path) else { throw StoreError("The store \(path) does not exist (navreplay ingest --store \(path) creates it).") }
        let database: SQLiteDatabase
        let full = fileSystemIsFull(path)
        if full && fileSize(path + "-wal") ?? 0 > 0 {
            throw StoreError(
                "The store \(path) cannot be read: its file system is full (No space left on device), and its last batch is "
                    + "still in \(path)-wal, which SQLite needs room to read. Free some space, or copy the store with its -wal "
                    + "file to another file system.")
        }
        if writable(path, exists: true) && !full {
            database = try opened(path) { () throws(SQLiteError) in try SQLiteDatabase(path: path, existing: true) }
        } else {
            // On a read-only (or full) file system SQLite cannot make the `-shm` index a WAL
            // database is read with (on a full one it left a stray one, and "disk I/O error"). A store whose write-ahead log is empty (every ingest ends by copying it
            // into the store) is read as an immutable file; one with a batch still in its log
            // cannot be read in place.
            if fileSize(path + "-wal") ?? 0 > 0 {
                throw StoreError(
                    "The store \(path) is on a read-only path, and its last batch is still in \(path)-wal: "
                        + "copy the store with its -wal file to a writable place to read it.")
            }
            database = try opened(path) { () throws(SQLiteError) in try SQLiteDatabase(immutable: path) }
        }
        database.waitForLocks(milliseconds: 10_000)
        let (model, text) = try checkedModel(database, path: path, expected: nil, toolVersion: toolVersion)
        return EventStore(database: database, path: path, model: model, modelText: text)
    }

    /// The paths of the files the store at `path` has ingested (as given, and resolved), or
    /// none when there is no readable store there: an ingest refuses to write over them.
    public static func ingestedPaths(of path: String, toolVersion: String) -> [String] {
        guard fileExists(path), let store = try? openForReading(path: path, toolVersion: toolVersion) else { return [] }
        var paths: [String] = []
        try? store.database.prepare("SELECT path, resolved FROM files").forEachRow([]) { row in
            paths.append(row.text(0))
            paths.append(row.text(1))
        }
        return paths
    }

    /// Opens the store at `path` for an ingest, creating it with `model` when it does not
    /// exist; an existing store must have been made with an equal model.
    /// `modelText` is the model's JSON, kept in the store so that a reader folds as the
    /// ingest did.
    public static func openForWriting(
        path: String, model: NavigationModel, modelText: String, toolVersion: String, lockWait: Double
    )
        throws -> EventStore
    {
        let existed = fileExists(path)
        guard writable(path, exists: existed) else {
            throw StoreError("The store \(path) cannot be written: \(String(cString: strerror(errno))).")
        }
        let database = try opened(path) { () throws(SQLiteError) in try SQLiteDatabase(path: path) }
        database.waitForLocks(milliseconds: Int32(max(0, min(lockWait, 86_400)) * 1000))
        // The batch's temporary tables (`FoldedSessions`) take SQLite's usual 4 KB pages, not the
        // store's: with 64 KB pages they held 36 MB of SQLite's memory at the peak of a 1 GB
        // batch, against 8 MB, past `--memory-limit 128M`.
        try opened(path) { () throws(SQLiteError) in try database.execute("PRAGMA temp.page_size = \(StoreSchema.temporaryPageSize)") }
        if !existed || (try? database.integer("SELECT count(*) FROM sqlite_master")) == 0 {
            try opened(path) { () throws(SQLiteError) in
                // 64 KB pages, SQLite's largest: a session's chunk of lines (tens of KB) spans one
                // or two pages instead of a chain of 4 KB overflow pages, which every batch writes
                // twice (the write-ahead log, then the database): a faster ingest for a larger
                // store (BENCHMARKS.md). Set before the first write: a store keeps the page size
                // it was made with.
                try database.execute("PRAGMA page_size = \(StoreSchema.pageSize)")
                // Each page's last 8 bytes hold its checksum (`SQLiteDatabase.reserveChecksums`).
                database.reserveChecksums()
                // WAL: readers (`audit --store`) go on while an ingest writes.
                try database.execute("PRAGMA journal_mode=WAL")
                try database.execute("BEGIN IMMEDIATE")
                if try database.integer("SELECT count(*) FROM sqlite_master") == 0 {
                    try database.execute(StoreSchema.tables)
                    let insert = try database.prepare("INSERT INTO meta (key, value) VALUES (?, ?)")
                    for (key, value) in [
                        ("format", StoreSchema.format), ("store_version", StoreSchema.version), ("written_by", "navreplay \(toolVersion)"),
                        ("model", modelText), ("watermark_ms", ""),
                    ] {
                        try insert.run([.text(key), .text(value)])
                    }
                }
                try database.execute("COMMIT")
            }
        }
        let (stored, text) = try checkedModel(database, path: path, expected: model, toolVersion: toolVersion)
        // A commit does not copy the batch's pages into the database itself: `checkpoint()`
        // does, beside the printing of the batch's changes.
        try opened(path) { () throws(SQLiteError) in try database.execute("PRAGMA wal_autocheckpoint = 0") }
        return EventStore(database: database, path: path, model: stored, modelText: text)
    }

    /// Copies the committed batch's pages from the write-ahead log into the database, on a thread
    /// and a connection of their own, while the caller goes on (reading the batch's changes back
    /// to print them), rather than inside the commit, before them (BENCHMARKS.md). The batch is
    /// durable before this starts: a run killed during it leaves the pages in the log, where
    /// readers find them and the next checkpoint copies them. `waitForCheckpoint()` waits for it.
    func checkpoint() {
        let path = path
        let outcome = checkpointOutcome
        outcome.failure = nil
        DispatchQueue.global().async(group: checkpoints) {
            // A failure leaves the pages in the log, where readers find them and the next
            // ingest's checkpoint copies them; it is reported (`waitForCheckpoint`), since
            // the log then keeps growing (a full disk).
            do {
                let connection = try SQLiteDatabase(path: path, existing: true)
                connection.waitForLocks(milliseconds: 10_000)
                try connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
            } catch {
                outcome.failure = "\(error)"
            }
        }
    }

    /// Waits for the checkpoint of the last batch committed, if one is running; throws when it
    /// failed (the batch is committed all the same, in `STORE-wal`).
    public func waitForCheckpoint() throws {
        checkpoints.wait()
        if let failure = checkpointOutcome.failure {
            throw StoreError(
                "The store \(path): its batch is committed, but could not be copied from \(path)-wal into the store: \(failure). "
                    + "Readers find the batch in \(path)-wal; free some space, and the next ingest copies it.")
        }
    }

    deinit { checkpoints.wait() }

    /// Whether the file system holding `path` has no byte left for an unprivileged writer.
    private static func fileSystemIsFull(_ path: String) -> Bool {
        var status = statvfs()
        return statvfs(directory(of: path), &status) == 0 && status.f_bavail == 0
    }

    private init(database: SQLiteDatabase, path: String, model: NavigationModel, modelText: String) {
        self.database = database
        self.path = path
        self.model = model
        self.modelText = modelText
    }

    /// The store's layout and model, checked: another format, version or model is refused
    /// before anything is read or written.
    private static func checkedModel(
        _ database: SQLiteDatabase, path: String, expected: NavigationModel?, toolVersion: String
    ) throws
        -> (NavigationModel, String)
    {
        var meta: [String: String] = [:]
        do {
            let query = try database.prepare("SELECT key, value FROM meta")
            try query.forEachRow([]) { row in meta[row.text(0)] = row.text(1) }
        } catch {
            if error.kind == .busy { throw busy(path) }
            if error.kind == .damaged { throw StoreError(store: path, error) }
            if error.kind == .fileSystem { throw StoreError("The store \(path) cannot be opened: \(error).") }
            throw StoreError("The file \(path) is not a NavReplay store (\(error)).")
        }
        guard meta["format"] == StoreSchema.format else { throw StoreError("The file \(path) is not a NavReplay store.") }
        guard let version = meta["store_version"], version == StoreSchema.version else {
            throw StoreError(
                "The store \(path) has layout version \(meta["store_version"] ?? "?") (written by \(meta["written_by"] ?? "another version")); "
                    + "this navreplay reads version \(StoreSchema.version) only. Ingest into a new store, or use the navreplay that wrote it."
            )
        }
        // Findings of two versions would mix: a rule's meaning may differ between them.
        guard meta["written_by"] == "navreplay \(toolVersion)" else {
            throw StoreError(
                "The store \(path) was written by \(meta["written_by"] ?? "another version"); this is navreplay \(toolVersion), "
                    + "whose findings may differ. Ingest the logs into a new store, or use the navreplay that wrote it.")
        }
        guard let text = meta["model"], let stored = try? NavigationModel.load(json: Array(text.utf8)) else {
            throw StoreError("The store \(path) holds no readable model.")
        }
        // Every page of a store carries its checksum: a store without them has had its header
        // changed (or was not written by navreplay ingest).
        guard database.isChecksummed else {
            throw StoreError("The store \(path) is damaged: its pages carry no checksums (byte 20 of its header is not 8).")
        }
        guard let watermark = meta["watermark_ms"], watermark.isEmpty || Int64(watermark) != nil else {
            throw StoreError(
                "The store \(path) is damaged: meta.watermark_ms is \(JSONWriter.quoted(meta["watermark_ms"] ?? "missing")), not a number.")
        }
        if let cap = meta["max_findings_per_session"], Int(cap).map({ $0 < 0 }) ?? true {
            throw StoreError("The store \(path) is damaged: meta.max_findings_per_session is \(JSONWriter.quoted(cap)), not a count.")
        }
        if let expected, expected != stored {
            throw StoreError(
                "The store \(path) was made with another navigation model. A store folds every batch with one model: "
                    + "give the model it was made with (--model), or ingest into a new store.")
        }
        return (stored, text)
    }

    static func busy(_ path: String) -> StoreError {
        StoreError(
            "The store \(path) is busy: it is locked by another process (an ingest, or any program that writes it, such as a "
                + "sqlite3 shell). Try again when it is done (or give --lock-wait more seconds).")
    }

    private static func opened<T>(_ path: String, _ body: () throws(SQLiteError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw error.kind == .damaged ? StoreError(store: path, error) : StoreError("\(error)")
        }
    }

    private static func fileExists(_ path: String) -> Bool { fileSize(path) != nil }

    private static func fileSize(_ path: String) -> Int64? {
        var status = stat()
        return stat(path, &status) == 0 ? Int64(status.st_size) : nil
    }

    /// Whether the store at `path` (if it `exists`) and the directory it is in (SQLite makes its
    /// `-wal` and `-shm` files beside a store) can be written; `errno` says why not.
    private static func writable(_ path: String, exists: Bool) -> Bool {
        (!exists || access(path, W_OK) == 0) && access(directory(of: path), W_OK) == 0
    }

    private static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}

/// Why a checkpoint failed: written on the checkpoint's thread before its group is left, read
/// after `wait()`, which orders the two.
private final class CheckpointOutcome: @unchecked Sendable {
    var failure: String?
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
