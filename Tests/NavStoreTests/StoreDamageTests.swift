import Foundation
import NavEvents
@testable import NavSQLite
@testable import NavStore
import NavTestSupport
import Testing

/// A hand-damaged store is refused, never read as another valid store (issue 46, item 7): each
/// damage the issue lists, made by another program (SQLite without the store's checksums, as a
/// `sqlite3` shell writes) and caught by the pages' checksums, and made through the checksums
/// (as a program that sums pages would) and caught by the column checks.
@Suite struct StoreDamageTests {
    /// A store of two batches: sessions with chunks of lines, event ids, findings, an unreadable line.
    static func store() throws -> StoreBench {
        let bench = try StoreBench()
        var second = IngestTests.session("s2", start: EventBuilder.defaultStart + 60_000)
        second[3].eventID = IngestTests.session("s1")[3].eventID
        try bench.ingest([try bench.write("a.ndjson", IngestTests.session("s1") + second, extra: ["{not json"])])
        try bench.ingest([try bench.write("b.ndjson", IngestTests.session("s3", start: EventBuilder.defaultStart + 120_000))])
        return bench
    }

    /// The message of each read of the store that fails, by read.
    static func failures(_ path: String) -> [String: String] {
        var failures: [String: String] = [:]
        func attempt(_ name: String, _ body: () throws -> Void) {
            do { try body() } catch { failures[name] = "\(error)" }
        }
        attempt("verify") { try StoreVerification.verify(path: path, toolVersion: StoreFixture.version) }
        attempt("audit") { _ = try StoredRun.audit(try EventStore.openForReading(path: path, toolVersion: StoreFixture.version)) }
        attempt("sessions") {
            try StoredRun.sessionRecords(try EventStore.openForReading(path: path, toolVersion: StoreFixture.version)) { _ in }
        }
        attempt("held") {
            let store = try EventStore.openForReading(path: path, toolVersion: StoreFixture.version)
            _ = try StoredRun.writeHeldEvents(store, to: path + ".held")
        }
        return failures
    }

    static func edit(_ path: String, checksums: Bool, _ sql: String) throws {
        let database = try SQLiteDatabase(path: path, existing: true, checksums: checksums)
        try database.execute(sql)
    }

    /// Each damage, made by a program without the store's checksums: every read of the pages it
    /// changed, and `verify`, end with "is damaged".
    @Test(arguments: [
        ("a deleted chunk", "DELETE FROM event_chunks WHERE chunk = (SELECT min(chunk) FROM event_chunks)", ["verify", "held"]),
        ("a cut event_ids blob", "UPDATE event_ids SET entries = substr(entries, 1, 10)", ["verify"]),
        ("an edited lines count", "UPDATE event_chunks SET lines = lines + 1", ["verify", "held"]),
        ("watermark_ms 'abc'", "UPDATE meta SET value = 'abc' WHERE key = 'watermark_ms'", ["verify", "audit", "sessions", "held"]),
        ("status 'bogus'", "UPDATE sessions SET status = 'bogus' WHERE session_id = 's2'", ["verify", "sessions"]),
        ("a record of '{'", "UPDATE sessions SET record = '{' WHERE session_id = 's2'", ["verify", "sessions"]),
    ])
    func anEditByAnotherProgramFailsTheChecksums(damage: String, sql: String, reads: [String]) throws {
        let bench = try Self.store()
        #expect(Self.failures(bench.path).isEmpty, "the intact store reads")
        try Self.edit(bench.path, checksums: false, sql)
        let failures = Self.failures(bench.path)
        for read in reads {
            #expect(
                failures[read]?.contains("The store \(bench.path) is damaged: ") == true, "\(damage), \(read): \(failures[read] ?? "read")")
        }
        #expect(failures["verify"]?.contains("fails its checksum") == true, "\(damage): \(failures["verify"] ?? "")")
    }

    /// The same edits made through the checksums (the pages stay whole): the columns' checks
    /// find them, naming the table and row.
    @Test(arguments: [
        ("a cut event_ids blob", "UPDATE event_ids SET entries = substr(entries, 1, 10)", "verify", "event_ids row"),
        ("an edited lines count", "UPDATE event_chunks SET lines = lines + 1", "held", "event_chunks row"),
        ("watermark_ms 'abc'", "UPDATE meta SET value = 'abc' WHERE key = 'watermark_ms'", "audit", "meta.watermark_ms"),
        ("status 'bogus'", "UPDATE sessions SET status = 'bogus' WHERE session_id = 's2'", "verify", "has status \"bogus\""),
        ("a record of '{'", "UPDATE sessions SET record = '{' WHERE session_id = 's2'", "sessions", "a record that is not a JSON object"),
        ("the files' lines", "UPDATE files SET lines = lines - 1", "verify", "the files' lines"),
    ])
    func anEditThatKeepsTheChecksumsFailsTheColumnChecks(damage: String, sql: String, read: String, names: String) throws {
        let bench = try Self.store()
        try Self.edit(bench.path, checksums: true, sql)
        let failures = Self.failures(bench.path)
        #expect(failures[read]?.contains("The store \(bench.path) is damaged: ") == true, "\(damage): \(failures[read] ?? "read")")
        #expect(failures[read]?.contains(names) == true, "\(damage): \(failures[read] ?? "read")")
        #expect(failures["verify"] != nil, "\(damage): verify")
    }

    /// A store of another version, its pages whole, is refused by its version, not as damaged.
    @Test func aWholeStoreOfAnotherVersionIsRefusedByItsVersion() throws {
        let bench = try Self.store()
        try Self.edit(bench.path, checksums: true, "UPDATE meta SET value = 'navreplay 0.0.1' WHERE key = 'written_by'")
        #expect(Self.failures(bench.path)["audit"]?.contains("was written by navreplay 0.0.1") == true)
    }

    /// One byte flipped inside a stored chunk (in the file, as a disk or an editor would):
    /// the chunk's page fails its checksum; no read gives a line that no log holds.
    @Test func aFlippedByteInAStoredChunkIsRefused() throws {
        let bench = try Self.store()
        let database = try SQLiteDatabase(path: bench.path, existing: true, checksums: false)
        var chunk: [UInt8] = []
        try database.prepare("SELECT data FROM event_chunks ORDER BY chunk LIMIT 1").forEachRow([]) { chunk = $0.blob(0) }
        var file = try #require(FileManager.default.contents(atPath: bench.path))
        let needle = Data(chunk.prefix(48))
        let found = try #require(file.range(of: needle), "the chunk is in the database file")
        file[found.lowerBound + 40] ^= 0x04
        try file.write(to: URL(fileURLWithPath: bench.path))
        let failures = Self.failures(bench.path)
        #expect(failures["held"]?.contains("is damaged: page ") == true, "\(failures["held"] ?? "read")")
        #expect(failures["held"]?.contains("(of event_chunks) fails its checksum") == true, "\(failures["held"] ?? "read")")
        #expect(failures["verify"]?.contains("fails its checksum") == true, "\(failures["verify"] ?? "read")")
    }
}
