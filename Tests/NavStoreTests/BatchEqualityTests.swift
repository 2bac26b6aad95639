import Foundation
import NavEngine
import NavEvents
import NavJSON
import NavModel
import NavReplay
import NavReport
import NavResults
import NavStore
import NavTestSupport
import Testing

/// The store's invariant: after any sequence of batches and a closing ingest, the store's
/// findings and sessions are those of one audit over every batch's files.
@Suite struct BatchEqualityTests {
    enum Cut: String, CaseIterable { case byLine, byEventTime }

    @Test(arguments: Repository.cases(Array(1...12) as [UInt64], underSanitizer: 2), Cut.allCases)
    func batchesFoldLikeOneAudit(seed: UInt64, cut: Cut) throws {
        var random = SeededRandom(seed: seed &* 7919 &+ (cut == .byLine ? 0 : 1))
        var lines = StoreCorpus.lines(seed: seed)
        if cut == .byEventTime { lines = Self.sortedByEventTime(lines) }
        let batchCount = 2 + Int(random.next() % 7)
        var cuts = Set<Int>()
        while cuts.count < batchCount - 1 { cuts.insert(1 + Int(random.next() % UInt64(lines.count - 1))) }
        let bounds = [0] + cuts.sorted() + [lines.count]
        let directory = try TemporaryDirectory()
        var batches: [String] = []
        for index in 0..<(bounds.count - 1) {
            let text = lines[bounds[index]..<bounds[index + 1]].map { $0 + "\n" }.joined()
            // Named so that path order is the reverse of ingestion order.
            batches.append(try directory.write("night-\(bounds.count - index).ndjson", text))
        }
        var options = IngestOptions()
        options.closeAfterMilliseconds = [0, 60_000, IngestOptions.defaultCloseAfter][Int(random.next() % 3)]
        options.jobs = Int(random.next() % 2) + 1
        if random.chance(0.3) { options.memoryLimit = 1 << 20 }
        options.temporaryDirectory = directory.path("")
        let storePath = directory.path("store.db")
        for batch in batches {
            let store = try StoreFixture.open(storePath)
            _ = try Ingestion.run(store: store, paths: [batch], options: options)
        }
        options.closeAll = true
        _ = try Ingestion.run(store: try StoreFixture.open(storePath), paths: [], options: options)

        let result = try StoreFixture.compare(store: storePath, with: batches)
        #expect(result.storedFindings == result.auditedFindings, "seed \(seed), \(cut), \(batchCount) batches")
        if result.storedFindings != result.auditedFindings {
            try? result.storedFindings.write(
                toFile: "/tmp/navreplay-batch-equality-\(seed)-\(cut)-store.ndjson", atomically: true, encoding: .utf8)
            try? result.auditedFindings.write(
                toFile: "/tmp/navreplay-batch-equality-\(seed)-\(cut)-audit.ndjson", atomically: true, encoding: .utf8)
        }
        #expect(result.stored.counts.events == result.audited.counts.events)
        #expect(result.stored.counts.redeliveries == result.audited.counts.redeliveries)
        let same = result.storedRecords == result.auditedRecords
        #expect(same, "seed \(seed), \(cut): session records")
        if !same {
            let kept = "/tmp/navreplay-batch-equality-\(seed)-\(cut)"
            try? FileManager.default.removeItem(atPath: kept)
            try? FileManager.default.copyItem(atPath: directory.path(""), toPath: kept)
            try? result.storedRecords.write(toFile: kept + "/store-records.ndjson", atomically: true, encoding: .utf8)
            try? result.auditedRecords.write(toFile: kept + "/audit-records.ndjson", atomically: true, encoding: .utf8)
        }
    }

    /// Lines in timestamp order (stable); a line that is not an event keeps the time of the line
    /// before it.
    static func sortedByEventTime(_ lines: [String]) -> [String] {
        var time = ""
        let keyed = lines.enumerated().map { index, line -> (String, Int, String) in
            if case .success(let decoded) = EventDecoder().decode(line) { time = decoded.event.timestamp.text }
            return (time, index, line)
        }
        return keyed.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map(\.2)
    }
}

/// Opening stores and auditing files the way the command line does.
enum StoreFixture {
    static let version = "test"

    static func open(_ path: String, model: NavigationModel = .pocWithDeepLinks) throws -> EventStore {
        try EventStore.openForWriting(
            path: path, model: model,
            modelText: model == .pocWithDeepLinks ? NavigationModel.pocWithDeepLinksJSON : NavigationModel.pocJSON,
            toolVersion: version, lockWait: 5)
    }

    /// A store read back beside one audit of `files`: the findings as `audit --format ndjson`
    /// writes them and the session records as `sessions --format ndjson` does, for each.
    struct Comparison {
        var stored: AuditRun
        var audited: AuditRun
        var storedRecords: String
        var auditedRecords: String
        var storedFindings: String { String(decoding: FindingWriter.ndjson(stored), as: UTF8.self) }
        var auditedFindings: String { String(decoding: FindingWriter.ndjson(audited), as: UTF8.self) }
    }

    static func compare(store path: String, with files: [String], model: NavigationModel = .pocWithDeepLinks) throws -> Comparison {
        let reader = try EventStore.openForReading(path: path, toolVersion: version)
        let stored = try StoredRun.audit(reader)
        var records: [String] = []
        try StoredRun.sessionRecords(reader) { records.append($0 + "\n") }
        let whole = try audit(files, model: model)
        return Comparison(stored: stored, audited: whole.findings, storedRecords: records.joined(), auditedRecords: whole.records)
    }

    /// One audit of every file: its findings (as `audit` keeps them) and its session records.
    static func audit(_ paths: [String], model: NavigationModel = .pocWithDeepLinks) throws -> (findings: AuditRun, records: String) {
        let configuration = AuditConfiguration(model: model, sessionOptions: SessionAuditOptions(maxFindings: 10_000, keepStates: false))
        let run = try AuditEngine(configuration: configuration).run(paths: paths)
        let records = run.sessions.map { String(decoding: SessionWriter.ndjsonLine($0), as: UTF8.self) }.joined()
        return (run, records)
    }
}
