public import CSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A SQLite call that failed: what was being done and SQLite's own message.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// SQLite itself failed.
        case sqlite
        /// Appending: the database already holds this session, from an earlier run.
        case sessionAlreadyHeld(String)
        /// Appending: the file is not a sessions database this version writes.
        case notASessionsDatabase
        /// Another connection holds the database's write lock, for longer than the wait allowed.
        case busy
        /// The file is not an SQLite database (or is encrypted).
        case notADatabase
        /// The file system failed: full, read-only, an I/O error, a file that cannot be opened.
        case fileSystem
        /// A page failed its checksum (`checksums.h`), or SQLite found the file malformed.
        case damaged
    }

    public var description: String
    public var kind: Kind

    package init(_ description: String, kind: Kind = .sqlite) {
        self.description = description
        self.kind = kind
    }

    /// The error of a call that returned `status` on `handle`, with SQLite's message (`message`
    /// when the call gave its own) and, for a failure of the file system, the system's reason
    /// ("No space left on device"), which SQLite's message leaves out.
    static func failed(_ status: Int32, _ handle: OpaquePointer?, message: String? = nil) -> SQLiteError {
        var text = "SQLite: " + (message ?? handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory")
        let primary = status & 0xFF
        if let handle, sqlite3_extended_errcode(handle) == navreplay_checksums_failed() || primary == SQLITE_CORRUPT {
            let at = navreplay_checksums_failed_at(handle)
            let file = String(cString: sqlite3_db_filename(handle, "main"))
            let place =
                at > 0
                ? "page \(at)\(PageChecksums.owner(of: at, in: file)) fails its checksum"
                : at < 0 ? "frame \(-at) of its -wal fails its checksum" : text
            return SQLiteError(place, kind: .damaged)
        }
        if [SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN].contains(primary), let handle, sqlite3_system_errno(handle) != 0 {
            text += " (\(String(cString: strerror(sqlite3_system_errno(handle)))))"
        }
        let kind: Kind
        switch primary {
        case SQLITE_BUSY: kind = .busy
        case SQLITE_NOTADB: kind = .notADatabase
        case SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN, SQLITE_READONLY: kind = .fileSystem
        default: kind = .sqlite
        }
        return SQLiteError(text, kind: kind)
    }
}

/// A value to bind to a statement parameter.
package enum SQLiteValue {
    case null
    case integer(Int64)
    case text(String)
    case blob([UInt8])

    package static func optional(_ value: String?) -> SQLiteValue { value.map(SQLiteValue.text) ?? .null }
    package static func optional(_ value: Int64?) -> SQLiteValue { value.map(SQLiteValue.integer) ?? .null }
}

/// An open database connection; closed when released.
package final class SQLiteDatabase {
    package let handle: OpaquePointer
    package let path: String

    /// Opens (or creates) the database at `path`. `existing` opens an existing file only
    /// (read-write all the same: a reader of a WAL database may have to recover its index).
    ///
    /// Every connection reads and writes through the checksums VFS (`checksums.h`): a database
    /// whose pages reserve 8 bytes (a store) has each page checked as it is read and summed as
    /// it is written; others are read and written as SQLite does. `checksums: false` uses
    /// SQLite's own VFS, which neither checks nor sums (what another program does).
    package convenience init(path: String, existing: Bool = false, checksums: Bool = true) throws(SQLiteError) {
        try self.init(
            opening: path, flags: existing ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, path: path,
            doing: existing ? "open" : "create", checksums: checksums)
    }

    /// Whether the checksums VFS is registered (once, by the first connection).
    private static let checksumsRegistered: Bool = navreplay_checksums_register() == SQLITE_OK

    /// Whether the database's pages carry checksums: it was made after `reserveChecksums()`.
    package var isChecksummed: Bool { navreplay_checksums_checked(handle) != 0 }

    /// Reserves the 8 bytes of each page that hold its checksum: before the first page of a
    /// new database is written.
    package func reserveChecksums() {
        var bytes = Int32(NAVREPLAY_CHECKSUMS_RESERVE)
        sqlite3_file_control(handle, "main", SQLITE_FCNTL_RESERVE_BYTES, &bytes)
    }

    /// Opens the database at `path` read-only and immutable (SQLite takes no lock and makes no
    /// `-shm` file): for a database on a read-only file system, whose write-ahead log, if it
    /// has one, is empty.
    package convenience init(immutable path: String, checksums: Bool = true) throws(SQLiteError) {
        // A URI's path: `?`, `#` and `%` (and nothing else a file name holds) must be escaped.
        let escapes: [Unicode.Scalar: String] = ["?": "%3f", "#": "%23", "%": "%25"]
        let uri = "file:" + path.unicodeScalars.map { escapes[$0] ?? String($0) }.joined() + "?immutable=1"
        try self.init(opening: uri, flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, path: path, doing: "open", checksums: checksums)
    }

    private init(opening filename: String, flags: Int32, path: String, doing: String, checksums: Bool = true) throws(SQLiteError) {
        var handle: OpaquePointer?
        let vfs = checksums && Self.checksumsRegistered ? NAVREPLAY_CHECKSUMS_VFS : nil
        let status = sqlite3_open_v2(filename, &handle, flags, vfs)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            throw SQLiteError("cannot \(doing) the database \(path): \(message)")
        }
        self.handle = handle
        self.path = path
    }

    /// `close_v2`: even if a statement outlived us, the connection closes when it is finalized.
    deinit { sqlite3_close_v2(handle) }

    /// How long a statement waits for another connection's lock before it fails as busy.
    package func waitForLocks(milliseconds: Int32) {
        sqlite3_busy_timeout(handle, milliseconds)
    }

    package func execute(_ sql: String) throws(SQLiteError) {
        var error: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &error)
        if status != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? "unknown error"
            sqlite3_free(error)
            throw SQLiteError.failed(status, handle, message: message)
        }
    }

    /// The first column of the first row of a query that returns one integer.
    package func integer(_ sql: String, _ values: [SQLiteValue] = []) throws(SQLiteError) -> Int64 {
        let statement = try prepare(sql)
        var result: Int64 = 0
        var found = false
        try statement.forEachRow(values) { row in
            if !found { result = row.integer(0) }
            found = true
        }
        guard found else { throw SQLiteError("SQLite: no row for \(sql)") }
        return result
    }

    package func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard status == SQLITE_OK, let statement else { throw SQLiteError.failed(status, handle) }
        return SQLiteStatement(statement: statement, owner: self)
    }

    /// The rowid of the last row inserted on this connection.
    package var lastInsertedRow: Int64 { sqlite3_last_insert_rowid(handle) }
}

/// A prepared statement, run once per row; finalized when released.
package final class SQLiteStatement {
    let statement: OpaquePointer
    /// Held so that the connection outlives every statement prepared on it (an optimised
    /// build may otherwise release the database first, and `sqlite3_close` then fails).
    let owner: SQLiteDatabase
    var database: OpaquePointer { owner.handle }

    init(statement: OpaquePointer, owner: SQLiteDatabase) {
        self.statement = statement
        self.owner = owner
    }

    deinit { sqlite3_finalize(statement) }

    /// Binds the values to the parameters, in order, and steps the statement once.
    package func run(_ values: [SQLiteValue]) throws(SQLiteError) {
        guard try step(values) == SQLITE_DONE else { throw failure() }
    }

    /// Whether the query, with these values bound, returns a row.
    package func returnsRow(_ values: [SQLiteValue]) throws(SQLiteError) -> Bool {
        let status = try step(values)
        guard status == SQLITE_ROW || status == SQLITE_DONE else { throw failure() }
        return status == SQLITE_ROW
    }

    /// Runs the query with these values bound and calls `body` with each row it returns.
    package func forEachRow(_ values: [SQLiteValue], _ body: (SQLiteRow) throws(SQLiteError) -> Void) throws(SQLiteError) {
        var status = try step(values)
        while status == SQLITE_ROW {
            try body(SQLiteRow(statement: statement))
            status = sqlite3_step(statement)
        }
        guard status == SQLITE_DONE else { throw failure() }
    }

    private func failure() -> SQLiteError {
        SQLiteError.failed(sqlite3_errcode(database), database)
    }

    private func step(_ values: [SQLiteValue]) throws(SQLiteError) -> Int32 {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
        // SQLITE_TRANSIENT: SQLite copies the bytes before the call returns.
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for (index, value) in values.enumerated() {
            let position = Int32(index + 1)
            let status: Int32
            switch value {
            case .null: status = sqlite3_bind_null(statement, position)
            case .integer(let number): status = sqlite3_bind_int64(statement, position, number)
            case .text(let text): status = sqlite3_bind_text(statement, position, text, -1, transient)
            case .blob(let bytes):
                status = bytes.withUnsafeBytes { raw in
                    // A zero-length blob is still a blob, not NULL: a pointer must be given.
                    sqlite3_bind_blob(statement, position, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(raw.count), transient)
                }
            }
            guard status == SQLITE_OK else { throw failure() }
        }
        return sqlite3_step(statement)
    }
}

/// One row of a query, valid during the callback that receives it.
package struct SQLiteRow {
    let statement: OpaquePointer

    package func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }

    package func integer(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }

    package func optionalInteger(_ column: Int32) -> Int64? { isNull(column) ? nil : integer(column) }

    package func text(_ column: Int32) -> String {
        guard let pointer = sqlite3_column_text(statement, column) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    package func optionalText(_ column: Int32) -> String? { isNull(column) ? nil : text(column) }

    package func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let pointer = sqlite3_column_blob(statement, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}
