import Foundation
import NavFuzzStore
import NavModel
import NavPartitions
import NavResults
import NavSQLite
import NavStore
import NavTestSupport
import Testing

/// The `store` fuzz target's check: its seeds are stores `ingest` writes and reach the readers,
/// its restatement of the chunk framing agrees with the codec at the edges, and a damaged store
/// ends a read with an error that names it.
@Suite struct StoreFuzzTests {
    @Test func theSeedsAreWhatIngestWritesAndKeepEveryInvariant() throws {
        let seeds = try StoreSeeds.all()
        let readers = Set(seeds.map { StoreCheck.selection[Int($0.bytes[0]) % StoreCheck.selection.count] })
        #expect(readers == Set(StoreCheck.Reader.allCases), "a reader without a seed")
        for seed in seeds {
            #expect(check(StoreCheck.check, seed.bytes) == [], "\(seed.name)")
            let committed = try? Repository.read("Tests/Fixtures/fuzz/store/\(seed.name)")
            #expect(committed != nil, "Tests/Fixtures/fuzz/store/\(seed.name) is missing: navreplay-fuzz-store --write-seeds")
        }
        for seed in try StoreSeeds.ingest() {
            #expect(check(IngestCheck.check, seed.bytes) == [], "\(seed.name)")
            let committed = try? Repository.read("Tests/Fixtures/fuzz/ingest/\(seed.name)")
            #expect(committed != nil, "Tests/Fixtures/fuzz/ingest/\(seed.name) is missing: navreplay-fuzz-ingest --write-seeds")
        }
    }

    /// A committed store seed opens with the check's version and holds what the readers read:
    /// sessions, findings, changes and held lines. (A seed the check refused at its opening
    /// would leave every reader behind it unfuzzed.)
    @Test func aCommittedStoreSeedReachesEveryReader() throws {
        let directory = try TemporaryDirectory()
        let path = try storeFile("database-two-batches", in: directory)
        let store = try EventStore.openForReading(path: path, toolVersion: StoreCheck.toolVersion)
        let run = try StoredRun.audit(store)
        var records = 0
        try StoredRun.sessionRecords(store) { _ in records += 1 }
        #expect(records == 3)
        #expect(run.counts.findings > 0)
        #expect(try StoredChanges.findings(store, batch: 2, change: .withdrawn, files: run.files).count > 0, "the gap filled")
        let held = directory.path("held")
        _ = try StoredRun.writeHeldEvents(store, to: held)
        #expect(try String(contentsOfFile: held, encoding: .utf8).split(separator: "\n").count >= 8)
    }

    @Test func aDamagedChunkEndsTheReadWithAnErrorNamingTheStore() throws {
        let directory = try TemporaryDirectory()
        let path = try storeFile("database-one-batch", in: directory)
        do {
            let database = try SQLiteDatabase(path: path, existing: true)
            try database.execute("UPDATE event_chunks SET data = x'01ffff' WHERE chunk = (SELECT min(chunk) FROM event_chunks)")
        }
        let store = try EventStore.openForReading(path: path, toolVersion: StoreCheck.toolVersion)
        #expect {
            _ = try StoredRun.writeHeldEvents(store, to: directory.path("held"))
        } throws: { "\($0)".contains(path) && "\($0)".contains("damaged") }
        // The check itself finds nothing wrong: the reader refused the chunk, naming the store.
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(check(StoreCheck.check, [StoreCheck.selector(of: .database), 255] + bytes) == [])
        #expect(check(IngestCheck.check, [255] + bytes) == [])
    }

    /// Found by the `ingest` target: a stored line whose prefix names a file the store does not
    /// have reached the fold, which blamed its own temporary file. It is the store's damage.
    @Test func aStoredLineOfAFileTheStoreLacksIsTheStoresDamage() throws {
        let directory = try TemporaryDirectory()
        let path = try storeFile("database-one-batch", in: directory)
        var chunk: [UInt8] = []
        let line = Array(#"{"schema_version":1}"#.utf8)
        Array("9\t1\t".utf8).withUnsafeBufferPointer { prefix in
            line.withUnsafeBufferPointer { text in _ = ChunkCodec.append(prefix: prefix, text: text, to: &chunk) }
        }
        do {
            let database = try SQLiteDatabase(path: path, existing: true)
            let update = try database.prepare(
                "UPDATE event_chunks SET data = ?, lines = 1 WHERE session = (SELECT session FROM sessions WHERE session_id = 's1')")
            try update.run([.blob(chunk)])
        }
        // `report --store` folds the held lines again: the same damage, named the same way.
        let reading = try EventStore.openForReading(path: path, toolVersion: StoreCheck.toolVersion)
        #expect {
            _ = try StoredRun.writeHeldEvents(reading, to: directory.path("held"))
        } throws: { "\($0)".contains("The store \(path) is damaged") }
        let batch = directory.path("night2.ndjson")
        try Data(StoreSeeds.laterBatch).write(to: URL(fileURLWithPath: batch))
        let store = try EventStore.openForWriting(
            path: path, model: .poc, modelText: NavigationModel.pocJSON, toolVersion: StoreCheck.toolVersion, lockWait: 0)
        var options = IngestOptions()
        options.temporaryDirectory = directory.path("")
        #expect {
            _ = try Ingestion.run(store: store, paths: [batch], options: options)
        } throws: { "\($0)".contains("The store \(path) is damaged: event_chunks row") && "\($0)".contains("(session \"s1\")") }
    }

    @Test func theChunkRestatementAgreesWithTheCodecAtTheEdges() {
        let chunk = StoreCheck.selector(of: .chunk)
        let line = Array("0\t1\t".utf8)
        func record(form: UInt8, prefix: [UInt8], text: [UInt8]) -> [UInt8] {
            [form, UInt8(prefix.count), 0] + withUnsafeBytes(of: UInt32(text.count).littleEndian, Array.init) + prefix + text
        }
        let crlf = record(form: 0, prefix: line, text: Array("x\r".utf8))
        let cases: [(String, [UInt8], Bool)] = [
            ("empty", [], true), ("a raw line ending in \\r", crlf, true), ("an empty text", record(form: 0, prefix: line, text: []), true),
            ("a cut header", Array(crlf.prefix(5)), false), ("a cut text", Array(crlf.dropLast()), false),
            ("an unknown form", record(form: 2, prefix: line, text: Array("x".utf8)), false),
            ("a shorthand cut in its escape", record(form: 1, prefix: line, text: [LineShorthand.marker]), false),
        ]
        for (name, bytes, whole) in cases {
            #expect((NaiveChunk.lines(bytes) != nil) == whole, "\(name)")
            #expect(check(StoreCheck.check, [chunk, 0] + bytes) == [], "\(name)")
        }
        #expect(NaiveChunk.lines(crlf).map { NaiveChunk.located($0) } == Array("0\t1\tx\r\r\n".utf8))
    }

    /// A committed store seed, without its reader's and parameter's bytes, as a file.
    func storeFile(_ seed: String, in directory: TemporaryDirectory) throws -> String {
        let bytes = try Repository.read("Tests/Fixtures/fuzz/store/\(seed)")
        let path = directory.path("nav.db")
        try Data(bytes.dropFirst(2)).write(to: URL(fileURLWithPath: path))
        return path
    }
}
