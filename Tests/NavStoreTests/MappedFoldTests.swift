import Foundation
import NavEngine
import NavResults
import NavReplay
import NavReport
import NavSQLite
import NavStore
import NavTestSupport
import Testing

/// A batch's fold reads its plain files in place, and the earlier batches' lines of the sessions
/// it folds again from a temporary file of located lines that name many original files. Made to
/// partition from their first line, those files are mapped and their lines are routed as
/// references (decoded in place when their partition folds): the store still equals one audit.
@Suite struct MappedFoldTests {
    /// A file appended to between batches is read from its first new line: CRLF line ends, and
    /// a last line cut in two by a batch (left for the next one), fold like one audit of the
    /// whole file, mapped and routed on every core or read by path.
    @Test(arguments: [0, nil] as [Int64?])
    func anAppendedFileIsReadInPlaceFromItsNewLines(partitionedFrom: Int64?) throws {
        let lines = StoreCorpus.lines(seed: 5, sessions: 16).enumerated().map { $0 % 3 == 0 ? $1 + "\r" : $1 }
        let text = Array(lines.map { $0 + "\n" }.joined().utf8)
        let directory = try TemporaryDirectory()
        let path = directory.path("app.ndjson")
        var options = IngestOptions()
        options.jobs = 2
        options.partitionedInputBytes = partitionedFrom
        options.temporaryDirectory = directory.path("")
        let storePath = directory.path("store.db")
        // Cuts in the middle of lines: each batch leaves its last, unfinished line to the next.
        let cuts = [text.count / 3 + 17, text.count * 2 / 3 + 5, text.count]
        var written = 0
        for (index, cut) in cuts.enumerated() {
            if index == 0 { FileManager.default.createFile(atPath: path, contents: nil) }
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(text[written..<cut]))
            try handle.close()
            written = cut
            options.closeAll = index == cuts.count - 1
            nonisolated(unsafe) var last = ProgressSnapshot()
            let report = try Ingestion.run(store: try StoreFixture.open(storePath), paths: [path], options: options) { last = $0 }
            #expect(report.files.first?.heldBackTail == (index < cuts.count - 1))
            if partitionedFrom == 0 {
                // The fold's progress ends near its whole: the window's bytes, not the file's (the
                // located lines' prefixes and the CRs of CRLF line ends are not counted as read).
                #expect(
                    Double(last.bytes) >= 0.95 * Double(last.totalBytes), "batch \(index + 1): \(last.bytes) of \(last.totalBytes) bytes")
            }
        }
        let result = try StoreFixture.compare(store: storePath, with: [path])
        #expect(result.storedFindings == result.auditedFindings)
        #expect(result.storedRecords == result.auditedRecords)
        #expect(!result.audited.findings.isEmpty)
    }

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

        let result = try StoreFixture.compare(store: storePath, with: files)
        #expect(result.storedFindings == result.auditedFindings, "seed \(seed)")
        #expect(result.audited.findings.contains { ($0.location?.file ?? 0) > 0 }, "findings in files past the first")
        #expect(result.storedRecords == result.auditedRecords, "seed \(seed): session records")
    }
}

/// The lines a batch keeps go to the store a flush at a time: with a flush of a few kilobytes,
/// each session's lines of one batch take several chunks, read back in order when the next
/// batch folds the session again.
@Suite struct ChunkFlushTests {
    @Test func linesKeptInManyFlushesFoldLikeTheAudit() throws {
        let lines = StoreCorpus.lines(seed: 7, sessions: 12)
        let directory = try TemporaryDirectory()
        let first = try directory.write("a.ndjson", lines[..<(lines.count / 2)].map { $0 + "\n" }.joined())
        let second = try directory.write("b.ndjson", lines[(lines.count / 2)...].map { $0 + "\n" }.joined())
        var options = IngestOptions()
        options.chunkFlushBytes = 2048
        options.temporaryDirectory = directory.path("")
        let storePath = directory.path("store.db")
        _ = try Ingestion.run(store: try StoreFixture.open(storePath), paths: [first], options: options)
        options.closeAll = true
        _ = try Ingestion.run(store: try StoreFixture.open(storePath), paths: [second], options: options)

        let reader = try EventStore.openForReading(path: storePath, toolVersion: StoreFixture.version)
        let chunksPerBatch = try reader.database.integer(
            "SELECT max(n) FROM (SELECT count(*) AS n FROM event_chunks GROUP BY session, batch)")
        #expect(chunksPerBatch > 1, "a session's lines of one batch in several chunks")
        let result = try StoreFixture.compare(store: storePath, with: [first, second])
        #expect(result.storedFindings == result.auditedFindings)
        #expect(result.storedRecords == result.auditedRecords)
    }
}
