import Foundation
import NavEvents
import NavModel
import NavReplay
import NavResults
import NavSQLite
@testable import NavStore
import NavTestSupport
import Testing

/// What a store keeps of a batch's options and files (issue 46, item 9).
@Suite struct StoreSemanticsTests {
    /// A session whose events from seq 3 on reuse seq 2's event id: one `event_id.conflict`
    /// each.
    static func conflicting(_ id: String) -> [NavigationEvent] {
        var events = IngestTests.session(id, pushes: 4)
        for index in 3..<events.count { events[index].eventID = events[2].eventID }
        return events
    }

    @Test func theCapOfFindingsPerSessionIsTheStoresForEveryLaterBatch() throws {
        let bench = try StoreBench()
        bench.options.maxFindingsPerSession = 1
        let events = Self.conflicting("s1")
        try bench.ingest([try bench.write("a.ndjson", Array(events.prefix(5)))])
        bench.options.maxFindingsPerSession = nil
        let closing = try bench.ingest([try bench.write("b.ndjson", Array(events.dropFirst(5)))], closeAll: true)
        #expect(closing.batch == 2)
        #expect(try bench.findings().filter { $0.sessionID == "s1" }.count == 1, "the end of data refolded uncapped")
        let run = try StoredRun.audit(try EventStore.openForReading(path: bench.path, toolVersion: StoreFixture.version))
        #expect(run.counts.findingsByRule[.eventIDConflict] == events.count - 3, "the findings past the cap are counted")
        bench.options.maxFindingsPerSession = 5
        let error = #expect(throws: StoreError.self) { try bench.ingest([try bench.write("c.ndjson", IngestTests.session("s2"))]) }
        #expect(error?.description.contains("keeps at most 1 findings per session") == true, "\(error.map { "\($0)" } ?? "")")
    }

    /// `h.ndjson`, `./h.ndjson`, `dir/../h.ndjson` and a link to it are one file: its lines
    /// are ingested once, and the file keeps the one name it was first given.
    @Test func aFileGivenByTwoPathsIsOneFile() throws {
        let bench = try StoreBench()
        let events = IngestTests.session("s1")
        let path = try bench.write("h.ndjson", events)
        try FileManager.default.createDirectory(atPath: bench.directory.path("sub"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: bench.directory.path("link.ndjson"), withDestinationPath: path)
        let first = try bench.ingest([path, bench.directory.path("./h.ndjson")])
        #expect(first.eventLines == Int64(events.count), "one batch read the file twice")
        for other in [bench.directory.path("sub/../h.ndjson"), bench.directory.path("link.ndjson")] {
            let again = try bench.ingest([other])
            #expect(again.batch == nil, "\(other) was read as another file")
            #expect(again.files.first?.alreadyIngested == true)
        }
        let run = try StoredRun.audit(try EventStore.openForReading(path: bench.path, toolVersion: StoreFixture.version))
        #expect(run.files.count == 1 && run.files.allSatisfy { $0.hasSuffix("h.ndjson") }, "\(run.files)")
        #expect(run.counts.events == Int64(events.count))
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        #expect(run.fileReports.map(\.bytes) == [Int64(size ?? -1)], "summary.inputs[].bytes is the file's")
    }
}
