import Foundation
import NavEvents
import NavLog
import NavModel
import NavReplay
import NavReport
import NavResults
import NavSQLite
@testable import NavStore
import NavTestSupport
import Testing

/// One store in a temporary directory, with helpers to ingest files and read the store back.
final class StoreBench {
    let directory: TemporaryDirectory
    let path: String
    var options = IngestOptions()

    init() throws {
        directory = try TemporaryDirectory()
        path = directory.path("store.db")
        options.temporaryDirectory = directory.path("")
    }

    func write(_ name: String, _ events: [NavigationEvent], extra: [String] = []) throws -> String {
        try directory.write(name, (events.map(\.canonicalJSON) + extra).map { $0 + "\n" }.joined())
    }

    @discardableResult
    func ingest(_ paths: [String], closeAll: Bool = false) throws -> IngestReport {
        var options = options
        options.closeAll = closeAll
        return try Ingestion.run(store: try StoreFixture.open(path, model: .poc), paths: paths, options: options)
    }

    /// The batch's changed findings of one kind, as `ingest` prints them.
    func changes(_ report: IngestReport, _ change: StoredChanges.Change) throws -> [Finding] {
        guard let batch = report.batch else { return [] }
        let store = try EventStore.openForReading(path: path, toolVersion: StoreFixture.version)
        return try StoredChanges.findings(store, batch: batch, change: change, files: report.paths)
    }

    func findings() throws -> [Finding] {
        try StoredRun.audit(try EventStore.openForReading(path: path, toolVersion: StoreFixture.version)).findings
    }

    func rules() throws -> [String] { try findings().map { "\($0.rule.rawValue)@\($0.sessionID ?? "-"):\($0.seq ?? -1)" } }
}

@Suite struct IngestTests {
    /// A clean session of the PoC model: start, a command to the authorized flow, pushes.
    static func session(_ id: String, start: Int64 = EventBuilder.defaultStart, pushes: Int = 4) -> [NavigationEvent] {
        var builder = EventBuilder(sessionID: id, startMilliseconds: start)
        var events = [builder.start()]
        events += builder.group([
            .commandApplied(command: "goAuthorizedTab1Root", fromFlow: "onboarding", toFlow: "authorized"),
            .flowSwitch(from: "onboarding", to: "authorized"),
        ])
        var top: String?
        for index in 0..<pushes {
            let route = index % 2 == 0 ? "list" : "detail"
            events.append(builder.make(.routePush(stack: "tab1", from: top, to: route, params: nil)))
            top = route
        }
        return events
    }

    @Test func aFileIngestedAgainChangesNothing() throws {
        let bench = try StoreBench()
        let file = try bench.write("a.ndjson", Self.session("s1"))
        let first = try bench.ingest([file])
        #expect(first.batch == 1)
        #expect(first.eventLines == 7)
        let again = try bench.ingest([file])
        #expect(again.batch == nil)
        #expect(again.files.first?.alreadyIngested == true)
        #expect(try bench.ingest([file]).batch == nil)
    }

    @Test func anAppendedFileGivesOnlyItsNewLinesNumberedOn() throws {
        let bench = try StoreBench()
        let events = Self.session("s1", pushes: 2)
        let file = try bench.write("a.ndjson", Array(events.prefix(3)))
        try bench.ingest([file])
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        handle.seekToEndOfFile()
        handle.write(Data((events.dropFirst(3).map(\.canonicalJSON) + ["not json"]).map { $0 + "\n" }.joined().utf8))
        try handle.close()
        let report = try bench.ingest([file])
        #expect(report.files.first?.newLines == 3)
        let invalid = try bench.findings().filter { $0.rule == .schemaInvalid }
        #expect(invalid.map { $0.location?.line } == [6])
    }

    @Test func aRewrittenFileIsRefusedAndNothingOfItIsRead() throws {
        let bench = try StoreBench()
        let file = try bench.write("a.ndjson", Self.session("s1"))
        try bench.ingest([file])
        _ = try bench.write("a.ndjson", Self.session("s2") + Self.session("s3"))
        let report = try bench.ingest([file])
        #expect(report.files.first?.error?.contains("changed since it was ingested") == true)
        #expect(report.batch == nil)
    }

    @Test func aLastLineWithoutItsEndWaitsForTheNextBatchOrTheEndOfData() throws {
        let bench = try StoreBench()
        let events = Self.session("s1", pushes: 1)
        let text = events.map(\.canonicalJSON).joined(separator: "\n")  // no line end after the last
        let file = try bench.directory.write("a.ndjson", text)
        let report = try bench.ingest([file])
        #expect(report.files.first?.heldBackTail == true)
        #expect(report.files.first?.newLines == Int64(events.count - 1))
        let closing = try bench.ingest([file], closeAll: true)
        #expect(closing.files.first?.newLines == 1)
        #expect(try bench.findings().isEmpty)
    }

    /// The nightly split of the issue: each clean session cut at half its seqs; neither night
    /// alone may flag anything.
    @Test func sessionsCutAtMidnightGiveNoFalseFindings() throws {
        let bench = try StoreBench()
        var first: [NavigationEvent] = []
        var second: [NavigationEvent] = []
        for id in ["s1", "s2", "s3"] {
            let events = Self.session(id, pushes: 6)
            first += events.prefix(events.count / 2)
            second += events.dropFirst(events.count / 2)
        }
        let night1 = try bench.write("night1.ndjson", first)
        let night2 = try bench.write("night2.ndjson", second)
        #expect(try bench.ingest([night1]).newFindings == 0)
        #expect(try bench.ingest([night2]).newFindings == 0)
        #expect(try bench.ingest([], closeAll: true).newFindings == 0)
        #expect(try bench.findings().isEmpty)
    }

    /// A command's group cut by the batch's end is not judged while the session is open.
    @Test func anOpenSessionsLastGroupIsNotJudgedYet() throws {
        let bench = try StoreBench()
        let events = Self.session("s1", pushes: 0)
        let cut = try bench.write("a.ndjson", Array(events.prefix(2)))  // start, command_applied
        #expect(try bench.ingest([cut]).newFindings == 0)
        // The end of data: the group never switched flows.
        let closing = try bench.ingest([], closeAll: true)
        #expect(try bench.changes(closing, .new).map(\.rule).contains(.commandPostcondition))
        #expect(closing.newFindings == (try bench.changes(closing, .new).count))
    }

    @Test func aFilledGapWithdrawsItsFinding() throws {
        let bench = try StoreBench()
        let events = Self.session("s1")
        let first = try bench.write("a.ndjson", events.filter { $0.seq != 3 })
        let report = try bench.ingest([first])
        #expect(try bench.changes(report, .new).contains { $0.rule == .seqGap })
        let late = try bench.write("b.ndjson", events.filter { $0.seq == 3 })
        let filled = try bench.ingest([late])
        let withdrawn = try bench.changes(filled, .withdrawn)
        // The gap, and the state the missing push left wrong.
        #expect(withdrawn.map(\.rule) == [.seqGap, .stateMismatch], "\(withdrawn)")
        #expect(filled.withdrawnFindings == 2 && filled.newFindings == 0)
        #expect(try bench.findings().isEmpty)
    }

    @Test func aBatchPrintsItsChangesInSessionOrderWhetherTheStoreHeldTheSessionOrNot() throws {
        let bench = try StoreBench()
        let held = Self.session("s2")
        try bench.ingest([try bench.write("a.ndjson", Array(held.prefix(3)))])
        // s1 and s3 are new to the store, s2 is not: each gets a seq gap in this batch.
        let batch = Self.session("s1").filter { $0.seq != 3 } + held.dropFirst(4) + Self.session("s3").filter { $0.seq != 3 }
        let report = try bench.ingest([try bench.write("b.ndjson", batch)])
        let new = try bench.changes(report, .new)
        #expect(new.filter { $0.rule == .seqGap }.map(\.sessionID) == ["s1", "s2", "s3"], "\(new)")
        #expect(report.newFindings == new.count)
        #expect(Set(new.map(\.sessionID)) == ["s1", "s2", "s3"])
    }

    @Test func aLateEventOpensAClosedSessionAgain() throws {
        let bench = try StoreBench()
        bench.options.closeAfterMilliseconds = 60_000
        let early = Self.session("s1")
        let later = Self.session("s2", start: EventBuilder.defaultStart + 3_600_000)
        try bench.ingest([try bench.write("a.ndjson", Array(early.dropLast()))])
        let closing = try bench.ingest([try bench.write("b.ndjson", later)])
        #expect(closing.sessionsClosed == 1)
        let reopened = try bench.ingest([try bench.write("c.ndjson", [early.last!])])
        #expect(reopened.sessionsReopened == 1)
        #expect(try bench.findings().isEmpty)
    }

    /// A store whose session `s1` came without its last event, and was pruned by a batch two
    /// hours on: the store, that last event, and the pruning batch's report.
    private static func prunedSession() throws -> (bench: StoreBench, lastEvent: NavigationEvent, pruning: IngestReport) {
        let bench = try StoreBench()
        bench.options.closeAfterMilliseconds = 60_000
        bench.options.retainMilliseconds = 60_000
        let early = session("s1")
        try bench.ingest([try bench.write("a.ndjson", Array(early.dropLast()))])
        let pruning = try bench.ingest([try bench.write("b.ndjson", session("s2", start: EventBuilder.defaultStart + 7_200_000))])
        return (bench, early.last!, pruning)
    }

    @Test func aLateEventForAPrunedSessionIsKeptAndReportedNotFolded() throws {
        let (bench, lastEvent, pruning) = try Self.prunedSession()
        #expect(pruning.sessionsPruned == 1)
        let late = try bench.ingest([try bench.write("c.ndjson", [lastEvent])])
        #expect(late.lateEvents.map(\.sessionID) == ["s1"])
        #expect(late.lateEvents.first?.line == 1)
        #expect(late.eventLines == 0)
        var records: [String] = []
        try StoredRun.sessionRecords(try EventStore.openForReading(path: bench.path, toolVersion: StoreFixture.version)) {
            records.append($0)
        }
        #expect(records.count == 2, "the pruned session keeps its record")
    }

    /// A batch's plain files are folded in place; a file holding a pruned session's late line
    /// is copied for the fold without it, and its other lines keep their places.
    @Test func aLateEventForAPrunedSessionLeavesTheRestOfItsFileFolded() throws {
        let (bench, lastEvent, _) = try Self.prunedSession()
        var third = Self.session("s3", start: EventBuilder.defaultStart + 7_200_000)
        // Folded, the late line would conflict with this one.
        third[2].eventID = lastEvent.eventID
        let path = try bench.write("c.ndjson", [lastEvent] + third, extra: ["{not json"])
        func findingsOfTheLateSession() throws -> [String] {
            try bench.findings().filter { $0.sessionID == "s1" }.map { "\($0.rule.rawValue) \($0.message)" }
        }
        let prunedFindings = try findingsOfTheLateSession()
        let late = try bench.ingest([path])
        #expect(try findingsOfTheLateSession() == prunedFindings, "the late line is not folded")
        #expect(late.lateEvents.map(\.line) == [1])
        #expect(late.eventLines == Int64(third.count))
        let invalid = try bench.changes(late, .new).filter { $0.rule == .schemaInvalid }
        #expect(invalid.map { $0.location?.line } == [Int64(third.count + 2)], "the invalid line keeps its place in the file")
        #expect(try bench.findings().filter { $0.sessionID == "s3" }.isEmpty, "the session after the late line folds whole")
    }

    /// The fold reads a batch's plain files again: a file shortened, or replaced by another of
    /// its name, since the batch read it ends the batch with an error naming it, and nothing of
    /// the batch is stored: the same command ingests the file whole once it is back.
    @Test(arguments: ["shortened", "replaced"])
    func aFileChangedBeforeTheFoldEndsTheBatchAndStoresNothing(_ change: String) throws {
        let bench = try StoreBench()
        let events = Self.session("s1") + Self.session("s2")
        let path = try bench.write("a.ndjson", events)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        bench.options.beforeTheFold = {
            if change == "shortened" {
                _ = truncate(path, off_t(original.count / 2))
            } else {
                _ = rename(path, path + ".1")
                try original.write(to: URL(fileURLWithPath: path))
            }
        }
        let error = #expect(throws: StoreError.self) { try bench.ingest([path]) }
        #expect(error?.description.hasPrefix("\(path): changed while it was read: ") == true, "\(error.map { "\($0)" } ?? "")")
        func count(_ query: String) throws -> Int64 { try SQLiteDatabase(path: bench.path, existing: true).integer(query) }
        #expect(try count("SELECT count(*) FROM batches") == 0)
        #expect(try count("SELECT count(*) FROM files") == 0)
        bench.options.beforeTheFold = nil
        try original.write(to: URL(fileURLWithPath: path))
        let report = try bench.ingest([path])
        #expect(report.files.first?.newLines == Int64(events.count))
        #expect(try count("SELECT count(*) FROM batches") == 1)
    }

    /// gzip files cannot be read in place: their new lines reach the fold through a copy.
    @Test func gzipBatchesFoldLikeTheirPlainLines() throws {
        let bench = try StoreBench()
        let first = Self.session("s1")
        var second = Self.session("s2")
        second[1].eventID = first[1].eventID
        let plain = try bench.write("a.ndjson", Array(first.prefix(3)), extra: ["{not json"])
        let gzip = try bench.directory.write(
            "a.ndjson.gz", bytes: try Gzip.compress(Array(try Data(contentsOf: URL(fileURLWithPath: plain)))))
        try bench.ingest([gzip])
        try bench.ingest([try bench.write("b.ndjson", Array(first.dropFirst(3)) + second)], closeAll: true)
        let result = try StoreFixture.compare(
            store: bench.path, with: [plain, bench.directory.path("b.ndjson")], model: .poc)
        #expect(result.storedFindings.replacingOccurrences(of: "a.ndjson.gz", with: "a.ndjson") == result.auditedFindings)
        #expect(result.audited.findings.contains { $0.rule == .eventIDConflict })
        #expect(result.audited.findings.contains { $0.rule == .schemaInvalid })
    }

    @Test func pruningDropsTheSessionsEventIDsAndTheIDsTheyShared() throws {
        let bench = try StoreBench()
        bench.options.closeAfterMilliseconds = 60_000
        bench.options.retainMilliseconds = 60_000
        let first = Self.session("s1")
        var second = Self.session("s2")
        second[2].eventID = first[2].eventID
        try bench.ingest([try bench.write("a.ndjson", first + second)])
        func count(_ query: String) throws -> Int64 { try SQLiteDatabase(path: bench.path, existing: true).integer(query) }
        let entries = "SELECT coalesce(sum(length(entries)), 0) / 16 FROM event_ids"
        #expect(try count(entries) == Int64(first.count + second.count))
        #expect(try count("SELECT count(*) FROM shared_ids") == 2)
        let later = Self.session("s3", start: EventBuilder.defaultStart + 7_200_000)
        let pruning = try bench.ingest([try bench.write("b.ndjson", later)])
        #expect(pruning.sessionsPruned == 2)
        #expect(try count(entries) == Int64(later.count), "only the retained session's ids are read by later batches")
        #expect(try count("SELECT count(*) FROM event_ids") == 1, "a part of pruned sessions only is gone")
        #expect(try count("SELECT count(*) FROM shared_ids") == 0)
        var reusing = Self.session("s4", start: EventBuilder.defaultStart + 7_200_000)
        reusing[2].eventID = first[2].eventID
        let report = try bench.ingest([try bench.write("c.ndjson", reusing)])
        #expect(try bench.changes(report, .new).isEmpty, "the pruned session's events are gone: nothing to conflict with")
    }

    @Test func aBatchLooksUpItsUnreadableLinesByPlaceNotThroughEveryOneStored() throws {
        let bench = try StoreBench()
        try bench.ingest([try bench.write("a.ndjson", Self.session("s1"), extra: ["{not json", "[]"])])
        // A store written before the index existed gets it from its next ingest.
        try SQLiteDatabase(path: bench.path, existing: true).execute("DROP INDEX findings_unreadable")
        try bench.ingest([try bench.write("b.ndjson", [], extra: ["{not json"])])
        let database = try SQLiteDatabase(path: bench.path, existing: true)
        var plan: [String] = []
        try database.prepare("EXPLAIN QUERY PLAN SELECT 1 FROM findings WHERE session IS NULL AND file IS ? AND line IS ?")
            .forEachRow([.text("a.ndjson"), .integer(1)]) { plan.append($0.text(3)) }
        #expect(plan.contains { $0.contains("findings_unreadable") }, "\(plan)")
        #expect(try database.integer("SELECT count(*) FROM findings WHERE session IS NULL") == 3)
    }

    /// A session's chunk of lines fits a page or two of a new store, not a chain of small ones;
    /// the ingest's temporary tables keep small pages, which hold less of SQLite's memory.
    @Test func aNewStoreHasPagesOfSixtyFourKilobytesInWriteAheadMode() throws {
        let bench = try StoreBench()
        try bench.ingest([try bench.write("a.ndjson", Self.session("s1"))])
        let writing = try StoreFixture.open(bench.path, model: .poc)
        #expect(try writing.database.integer("PRAGMA temp.page_size") == 4096)
        let database = try SQLiteDatabase(path: bench.path, existing: true)
        #expect(try database.integer("PRAGMA page_size") == 65_536)
        var mode = ""
        try database.prepare("PRAGMA journal_mode").forEachRow([]) { mode = $0.text(0) }
        #expect(mode == "wal")
    }

    /// Two sessions that reuse one event id, their ids in different parts of the batch's ids (a
    /// part of one id each): the pair is noted across the parts, so that when a later batch
    /// touches the second (closed by then), the first folds with it again, and the conflict
    /// stays where one audit of both files puts it.
    @Test func sessionsSharingAnIdAcrossPartsFoldTogetherWhenOneIsTouchedAgain() throws {
        let bench = try StoreBench()
        bench.options.idPartEntries = 1
        let first = Self.session("s1")
        var second = Self.session("s2", start: EventBuilder.defaultStart + 60_000)
        second[3].eventID = first[3].eventID
        let later = Self.session("s3", start: EventBuilder.defaultStart + 45 * 60_000)
        let night1 = try bench.write("a.ndjson", first + second + later)
        try bench.ingest([night1])
        // A redelivered line of s2: the batch touches s2 alone.
        let night2 = try bench.write("b.ndjson", [second[1]])
        try bench.ingest([night2], closeAll: true)
        let database = try SQLiteDatabase(path: bench.path, existing: true)
        #expect(try database.integer("SELECT count(*) FROM event_ids WHERE batch = 1") > 1, "the ids in parts of one")
        #expect(try bench.rules().contains("event_id.conflict@s2:\(second[3].seq)"))
        let result = try StoreFixture.compare(store: bench.path, with: [night1, night2], model: .poc)
        #expect(result.storedFindings == result.auditedFindings, "the store against one audit")
    }

    /// A commit leaves the batch's pages in the write-ahead log; the checkpoint that follows it,
    /// on a thread of its own, copies them into the database file, which then holds every page.
    /// (The store stays open: the last connection to close would copy them too.)
    @Test func aCommittedBatchIsCopiedIntoTheDatabaseFile() throws {
        let bench = try StoreBench()
        let file = try bench.write("a.ndjson", (1...40).flatMap { Self.session("s\($0)", pushes: 30) })
        let store = try StoreFixture.open(bench.path, model: .poc)
        _ = try Ingestion.run(store: store, paths: [file], options: bench.options)
        try store.waitForCheckpoint()
        let bytes = try store.database.integer("PRAGMA page_count") * store.database.integer("PRAGMA page_size")
        let size = try FileManager.default.attributesOfItem(atPath: bench.path)[.size] as? Int64
        #expect(size == bytes)
    }

    /// The fold writes its rows into unindexed tables; the rows are read back by session through
    /// indexes made once the fold is done (and an ingest makes them).
    @Test func theFoldedSessionsAreReadBackThroughIndexesMadeAfterTheFold() throws {
        let bench = try StoreBench()
        let store = try StoreFixture.open(bench.path, model: .poc)
        func indexes() throws -> [String] {
            var names: [String] = []
            try store.database.prepare("SELECT name FROM temp.sqlite_master WHERE type = 'index' ORDER BY name").forEachRow([]) {
                names.append($0.text(0))
            }
            return names
        }
        _ = try Ingestion.run(store: store, paths: [try bench.write("a.ndjson", Self.session("s1"))], options: bench.options)
        #expect(try indexes() == ["folded_findings_id", "folded_sessions_id"])
        let folding = try FoldedSessions(database: store.database)
        #expect(try indexes() == [], "the fold's tables are indexed while it writes")
        try folding.indexForReading()
        #expect(try indexes() == ["folded_findings_id", "folded_sessions_id"])
        var plan: [String] = []
        try store.database.prepare("EXPLAIN QUERY PLAN SELECT record FROM temp.folded_sessions WHERE session_id = ? ORDER BY generation")
            .forEachRow([.text("s1")]) { plan.append($0.text(3)) }
        #expect(plan.contains { $0.contains("folded_sessions_id") }, "\(plan)")
    }

    @Test func anEventIDReusedInALaterBatchIsAConflictAndARepeatIsARedelivery() throws {
        let bench = try StoreBench()
        let first = Self.session("s1")
        try bench.ingest([try bench.write("a.ndjson", first)])
        var reused = Self.session("s2")
        reused[2].eventID = first[2].eventID
        let report = try bench.ingest([try bench.write("b.ndjson", reused + [first[4]])])
        #expect(try bench.changes(report, .new).map(\.rule) == [.eventIDConflict])
        #expect(report.newBySeverity[.error] == 1)
        let run = try StoredRun.audit(try EventStore.openForReading(path: bench.path, toolVersion: StoreFixture.version))
        #expect(run.counts.redeliveries == 1)
    }

    @Test func aStoreOfAnotherVersionOrModelIsRefused() throws {
        let bench = try StoreBench()
        try bench.ingest([try bench.write("a.ndjson", Self.session("s1"))])
        #expect {
            _ = try EventStore.openForReading(path: bench.path, toolVersion: "9.9.9")
        } throws: { "\($0)".contains("written by navreplay test") }
        #expect {
            _ = try StoreFixture.open(bench.path, model: .pocWithDeepLinks)
        } throws: { "\($0)".contains("another navigation model") }
        let notAStore = try bench.directory.write("notes.db", "hello\n")
        #expect {
            _ = try EventStore.openForReading(path: notAStore, toolVersion: StoreFixture.version)
        } throws: { "\($0)".contains("not a NavReplay store") }
    }
}

@Suite struct TrendsTests {
    /// Sessions of two app versions, in numeric order; the batch named by its day.
    @Test func versionsAreInReleaseOrderAndABatchIsNamedByItsDate() throws {
        let bench = try StoreBench()
        var events: [NavigationEvent] = []
        for (index, version) in ["1.9.0", "1.10.0", "1.10.0"].enumerated() {
            var session = IngestTests.session("s\(index)")
            for position in session.indices { session[position].appVersion = version }
            if version == "1.10.0" { session.removeAll { $0.seq == 4 } }  // a lost event: seq.gap and a mismatch
            events += session
        }
        try bench.ingest([try bench.write("a.ndjson", events)], closeAll: true)
        let store = try EventStore.openForReading(path: bench.path, toolVersion: StoreFixture.version)
        let trends = try StoredRun.trends(store)
        #expect(trends.versions.map(\.label) == ["1.9.0", "1.10.0"], "numeric order, not text order")
        let day = String(
            try #require(events.map(\.timestamp.epochMilliseconds).max().map { Timestamp(epochMilliseconds: $0).text.prefix(10) }))
        #expect(trends.batches.map(\.label) == [day])
        #expect(trends.batches.first?.sessions == 3)
        #expect(try StoredRun.sessionBatches(store) == ["s0": 1, "s1": 1, "s2": 1])
    }

    @Test func batchesOfOneDayAreToldApartByTheirTime() {
        let labels = StoredRun.batchLabels([
            (1, "2026-11-20T23:10:00.000Z"), (2, "2026-11-21T08:00:00.000Z"), (3, "2026-11-21T20:30:05.000Z"),
        ])
        #expect(labels == [1: "2026-11-20", 2: "2026-11-21 08:00", 3: "2026-11-21 20:30"])
    }
}
