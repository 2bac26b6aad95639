import Foundation
import NavEngine
import NavResults
import NavReplay
import NavReport
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
