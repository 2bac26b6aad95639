import Foundation
import NavEngine
import NavResults
import NavReplay
import NavReport
import NavSQLite
import NavStore
import NavTestSupport
import Testing

/// A batch's fold reads one temporary file of located lines that name many original files. Made
/// to partition from its first line, that file is mapped and its lines are routed as references
/// (decoded in place when their partition folds): the store still equals one audit of the files.
@Suite struct MappedFoldTests {
    @Test(arguments: [1, 2, 3] as [UInt64])
    func aMappedFoldOfLinesFromManyFilesEqualsTheAudit(seed: UInt64) throws {
        let lines = StoreCorpus.lines(seed: seed, sessions: 24)
        let directory = try TemporaryDirectory()
        var files: [String] = []
        for part in 0..<4 {
            let slice = lines[(lines.count * part / 4)..<(lines.count * (part + 1) / 4)]
            files.append(try directory.write("night-\(part).ndjson", slice.map { $0 + "\n" }.joined()))
        }
        var options = IngestOptions()
        options.jobs = 2
        options.partitionedInputBytes = 0
        options.temporaryDirectory = directory.path("")
        let storePath = directory.path("store.db")
        // Three files in one batch; then the fourth, which folds again the earlier batch's lines
        // of the sessions it touches, and closes every session.
        _ = try Ingestion.run(store: try StoreFixture.open(storePath), paths: Array(files[0..<3]), options: options)
        options.closeAll = true
        _ = try Ingestion.run(store: try StoreFixture.open(storePath), paths: [files[3]], options: options)

        let reader = try EventStore.openForReading(path: storePath, toolVersion: StoreFixture.version)
        let stored = String(decoding: FindingWriter.ndjson(try StoredRun.audit(reader)), as: UTF8.self)
        let whole = try StoreFixture.audit(files)
        let audited = String(decoding: FindingWriter.ndjson(whole.findings), as: UTF8.self)
        #expect(stored == audited, "seed \(seed)")
        #expect(whole.findings.findings.contains { ($0.location?.file ?? 0) > 0 }, "findings in files past the first")
        var records: [String] = []
        try StoredRun.sessionRecords(reader) { records.append($0 + "\n") }
        #expect(records.joined() == whole.records, "seed \(seed): session records")
    }
}

/// Ingests a corpus as two batches (its two halves, files in `directory`), the second closing
/// every session, with `configure` applied to the options; returns the store for reading, and
/// whether its findings and session records equal one audit of both halves.
private func ingestInTwoBatches(
    _ lines: [String], in directory: TemporaryDirectory, _ configure: (inout IngestOptions) -> Void
) throws -> (store: EventStore, sameFindings: Bool, sameRecords: Bool) {
    let first = try directory.write("a.ndjson", lines[..<(lines.count / 2)].map { $0 + "\n" }.joined())
    let second = try directory.write("b.ndjson", lines[(lines.count / 2)...].map { $0 + "\n" }.joined())
    var options = IngestOptions()
    options.temporaryDirectory = directory.path("")
    configure(&options)
    let storePath = directory.path("store.db")
    _ = try Ingestion.run(store: try StoreFixture.open(storePath), paths: [first], options: options)
    options.closeAll = true
    _ = try Ingestion.run(store: try StoreFixture.open(storePath), paths: [second], options: options)

    let reader = try EventStore.openForReading(path: storePath, toolVersion: StoreFixture.version)
    let stored = String(decoding: FindingWriter.ndjson(try StoredRun.audit(reader)), as: UTF8.self)
    let whole = try StoreFixture.audit([first, second])
    var records: [String] = []
    try StoredRun.sessionRecords(reader) { records.append($0 + "\n") }
    return (reader, stored == String(decoding: FindingWriter.ndjson(whole.findings), as: UTF8.self), records.joined() == whole.records)
}

/// The lines a batch keeps go to the store a flush at a time: with a flush of a few kilobytes,
/// each session's lines of one batch take several chunks, read back in order.
@Suite struct ChunkFlushTests {
    @Test func linesKeptInManyFlushesFoldLikeTheAudit() throws {
        let directory = try TemporaryDirectory()
        let (store, sameFindings, sameRecords) = try ingestInTwoBatches(StoreCorpus.lines(seed: 7, sessions: 12), in: directory) {
            $0.chunkFlushBytes = 2048
        }
        let chunksPerBatch = try store.database.integer(
            "SELECT max(n) FROM (SELECT count(*) AS n FROM event_chunks GROUP BY session, batch)")
        #expect(chunksPerBatch > 1, "a session's lines of one batch in several chunks")
        #expect(sameFindings)
        #expect(sameRecords)
    }
}

/// A batch's event ids are sorted and stored a part at a time: with parts of a few ids, a batch
/// stores many parts and the store still equals one audit. (`IngestTests` checks that a pair of
/// sessions found across two parts folds together later.)
@Suite struct EventIDPartTests {
    @Test(arguments: [3, 5] as [UInt64])
    func idsStoredInManyPartsFoldLikeTheAudit(seed: UInt64) throws {
        let directory = try TemporaryDirectory()
        let (store, sameFindings, sameRecords) = try ingestInTwoBatches(StoreCorpus.lines(seed: seed, sessions: 16), in: directory) {
            $0.idPartEntries = 5
        }
        #expect(try store.database.integer("SELECT count(*) FROM event_ids WHERE batch = 1") > 10, "many parts")
        #expect(try store.database.integer("SELECT count(*) FROM shared_ids") > 0, "sessions that share ids")
        #expect(sameFindings, "seed \(seed)")
        #expect(sameRecords, "seed \(seed): session records")
    }
}
