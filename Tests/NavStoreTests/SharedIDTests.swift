import Foundation
import NavEvents
import NavModel
import NavResults
import NavReplay
import NavSQLite
@testable import NavStore
import NavTestSupport
import Testing

/// Event ids that many sessions share: the store keeps what one audit keeps, linear in the
/// events (issue 46, items 2 and 5).
@Suite struct SharedIDTests {
    /// `count` sessions whose seq-1 events all carry one event id (a buggy SDK's).
    static func sharingSessions(_ count: Int, prefix: String = "s", start: Int64 = EventBuilder.defaultStart) -> [NavigationEvent] {
        (0..<count).flatMap { number in
            var events = IngestTests.session("\(prefix)\(1000 + number)", start: start, pushes: 1)
            events[1].eventID = "shared-by-every-session"
            return events
        }
    }

    static func count(_ bench: StoreBench, _ query: String) throws -> Int64 {
        try SQLiteDatabase(path: bench.path, existing: true).integer(query)
    }

    @Test(arguments: [1, 3])
    func sessionsSharingOneIDTakeOneRowEachNotOneAPair(batches: Int) throws {
        let bench = try StoreBench()
        let sessions = 120
        let events = Self.sharingSessions(sessions)
        let perSession = events.count / sessions
        var paths: [String] = []
        for batch in 0..<batches {
            let slice = (batch * sessions / batches)..<((batch + 1) * sessions / batches)
            let path = try bench.write(
                "night\(batch).ndjson", Array(events[(slice.lowerBound * perSession)..<(slice.upperBound * perSession)]))
            paths.append(path)
            try bench.ingest([path], closeAll: batch == batches - 1)
        }
        #expect(try Self.count(bench, "SELECT count(*) FROM shared_ids") == Int64(sessions), "one row a session, not n·(n−1)")
        let result = try StoreFixture.compare(store: bench.path, with: paths, model: .poc)
        #expect(result.storedFindings == result.auditedFindings)
        #expect(result.audited.findings.filter { $0.rule == .eventIDConflict }.count == sessions - 1)
    }

    /// The session that owned a shared id is pruned while the session that reused it goes on:
    /// the live session's `event_id.conflict` stays, through its later batches and the end of
    /// data, as one audit of every file finds it.
    @Test func pruningTheOwnerOfASharedIDKeepsTheLiveSessionsConflict() throws {
        let bench = try StoreBench()
        bench.options.closeAfterMilliseconds = 60_000
        bench.options.retainMilliseconds = 60_000
        let owner = IngestTests.session("a-owner")
        var live = IngestTests.session("b-live", pushes: 6)
        live[2].eventID = owner[2].eventID
        let later = EventBuilder.defaultStart + 7_200_000
        for index in 5..<live.count { live[index].timestamp = Timestamp(epochMilliseconds: later + Int64(index) * 1000) }
        let night1 = try bench.write("night1.ndjson", owner + Array(live.prefix(5)))
        let night2 = try bench.write("night2.ndjson", [live[5]] + IngestTests.session("c-other", start: later))
        let night3 = try bench.write("night3.ndjson", Array(live.dropFirst(6)))
        try bench.ingest([night1])
        let pruning = try bench.ingest([night2])
        #expect(pruning.sessionsPruned == 1, "the owner is pruned")
        let next = try bench.ingest([night3])
        let closing = try bench.ingest([], closeAll: true)
        for report in [next, closing] {
            let withdrawn = try bench.changes(report, .withdrawn).filter { $0.rule == .eventIDConflict }
            #expect(withdrawn.isEmpty, "withdrawn: \(withdrawn.map(\.message))")
        }
        let result = try StoreFixture.compare(store: bench.path, with: [night1, night2, night3], model: .poc)
        #expect(result.storedFindings == result.auditedFindings)
        #expect(result.audited.findings.contains { $0.rule == .eventIDConflict && $0.sessionID == "b-live" })
        // Once the live session is pruned too, nothing of the owner is left.
        bench.options.retainMilliseconds = 0
        try bench.ingest([try bench.write("night4.ndjson", IngestTests.session("d-last", start: later + 7_200_000))])
        #expect(try Self.count(bench, "SELECT count(*) FROM shared_ids") == 0)
        #expect(
            try Self.count(
                bench, "SELECT count(*) FROM event_chunks WHERE session IN (SELECT session FROM sessions WHERE status = 'pruned')") == 0)
    }
}
