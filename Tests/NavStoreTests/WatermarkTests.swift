import Foundation
import NavEvents
import NavModel
import NavResults
import NavReplay
import NavSQLite
@testable import NavStore
import NavTestSupport
import Testing

/// One bad clock moves the watermark for no session but its own (issue 46, item 3).
@Suite struct WatermarkTests {
    static let hour: Int64 = 3_600_000
    static let day: Int64 = 86_400_000
    static let farFuture: Int64 = 4_070_908_800_000  // 2099-01-01

    @Test func aBatchsOutliersDoNotMoveItsHigh() {
        let start = EventBuilder.defaultStart
        #expect(Watermark.batchHigh([]) == .min)
        #expect(Watermark.batchHigh([start]) == start)
        #expect(Watermark.batchHigh([start, start + Self.hour, Self.farFuture]) == start + Self.hour)
        #expect(Watermark.batchHigh([start, Self.farFuture]) == start)
        let night = (0..<200).map { start + Int64($0) * Self.day / 200 }
        #expect(Watermark.batchHigh(night + [Self.farFuture, Self.farFuture + 1]) == night.last)
        // A backfill of four weeks, spread evenly: its newest session moves it.
        let backfill = (0..<200).map { start + Int64($0) * 28 * Self.day / 200 }
        #expect(Watermark.batchHigh(backfill) == backfill.last)
    }

    /// A session dated 2099 and an invalid line dated 2099 in the first night: with
    /// `--retain 30d`, the second night's session is neither closed and pruned by the
    /// third, nor its last lines sent to `late_events`; the store equals one audit.
    @Test(arguments: [false, true])
    func aFarFutureTimestampDoesNotCloseAndPruneEveryLaterSession(invalidLineOnly: Bool) throws {
        let bench = try StoreBench()
        bench.options.closeAfterMilliseconds = 30 * 60_000
        bench.options.retainMilliseconds = 30 * Self.day
        var first = (0..<6).flatMap { IngestTests.session("n\($0)", start: EventBuilder.defaultStart + Int64($0) * 60_000) }
        var extra: [String] = []
        if invalidLineOnly {
            extra.append(
                #"{"schema_version":1,"event_id":"x","event_name":"no_such_event","session_id":"n3","seq":99,"timestamp":"2099-01-01T00:00:00Z","correlation_id":"c"}"#
            )
        } else {
            first += IngestTests.session("bad-clock", start: Self.farFuture)
        }
        let night1 = try bench.write("night1.ndjson", first, extra: extra)
        try bench.ingest([night1])
        let watermark = try SQLiteDatabase(path: bench.path, existing: true).integer(
            "SELECT value FROM meta WHERE key = 'watermark_ms'")
        #expect(watermark < EventBuilder.defaultStart + Self.day, "the far-future time moved the watermark")
        let second = IngestTests.session("s2", start: EventBuilder.defaultStart + 2 * Self.hour, pushes: 6)
        let night2 = try bench.write("night2.ndjson", Array(second.prefix(4)))
        let night3 = try bench.write("night3.ndjson", Array(second.dropFirst(4)))
        #expect(try bench.ingest([night2]).openSessions >= 1, "the second night's session was closed at once")
        #expect(try bench.ingest([night3]).lateEvents.isEmpty, "a live session's lines went to late_events")
        try bench.ingest([], closeAll: true)
        let late = try SQLiteDatabase(path: bench.path, existing: true).integer("SELECT count(*) FROM late_events")
        #expect(late == 0, "a live session's lines went to late_events")
        let result = try StoreFixture.compare(store: bench.path, with: [night1, night2, night3], model: .poc)
        #expect(result.storedFindings == result.auditedFindings)
    }
}
