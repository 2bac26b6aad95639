import Foundation
import NavTestSupport
import Testing

/// A run's own outputs never write over the store or a log it has ingested, and the store is
/// never read as a log: each is refused with exit status 2, naming the flag, and nothing changes
/// (issue 46, item 1).
@Suite struct StoreGuardTests {
    /// A store with one batch of `log.ndjson` in it, and the bytes of both.
    struct Fixture {
        let scratch: TemporaryDirectory
        let store: String
        let log: String

        init() throws {
            scratch = try TemporaryDirectory()
            log = try scratch.write("log.ndjson", Lines.clean)
            store = scratch.path("s.db")
            let made = try navreplay(["ingest", "--store", store, "--quiet", log])
            #expect(made.status == 0, "\(made.stderr)")
        }

        var contents: [String: Data?] {
            Dictionary(uniqueKeysWithValues: [store, log].map { ($0, FileManager.default.contents(atPath: $0)) })
        }
    }

    @Test(arguments: ["--output", "--summary", "--quarantine"])
    func anIngestsOutputThatIsTheStoreIsRefused(_ option: String) throws {
        let fixture = try Fixture()
        let before = fixture.contents
        let other = try fixture.scratch.write("night2.ndjson", Lines.clean.replacingOccurrences(of: "\"s\"", with: "\"t\""))
        // Named through another directory and back: only the file's identity can match.
        let spelled = fixture.scratch.path("sub/../s.db")
        try FileManager.default.createDirectory(atPath: fixture.scratch.path("sub"), withIntermediateDirectories: true)
        let result = try navreplay(["ingest", "--store", fixture.store, option, spelled, other])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("\(option) \(spelled) is a file this run reads (the store, --store)"), "\(result.stderr)")
        #expect(fixture.contents == before, "ingest \(option) changed the store")
    }

    @Test func anIngestsOutputThatIsANewStoreIsRefused() throws {
        let scratch = try TemporaryDirectory()
        let log = try scratch.write("log.ndjson", Lines.clean)
        let store = scratch.path("new.db")
        let result = try navreplay(["ingest", "--store", store, "--output", store, log])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("--output \(store) is a file this run reads (the store, --store)"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: store))
    }

    @Test(arguments: [["audit"], ["report"], ["sessions"], ["audit", "--format", "json"]])
    func aStoreReadersOutputThatIsTheStoreIsRefused(_ command: [String]) throws {
        let fixture = try Fixture()
        let before = fixture.contents
        for option in ["--output", "--summary"] {
            let result = try navreplay(command + ["--store", fixture.store, option, fixture.store])
            #expect(result.status == 2, "\(command) \(option): \(result.stderr)")
            #expect(result.stderr.contains("\(option) \(fixture.store) is a file this run reads (the store, --store)"), "\(result.stderr)")
            #expect(fixture.contents == before, "\(command) \(option) changed the store")
        }
    }

    @Test func theStoreGivenAsALogIsRefused() throws {
        let fixture = try Fixture()
        let before = fixture.contents
        let named = try navreplay(["ingest", "--store", fixture.store, fixture.store])
        #expect(named.status == 2, "\(named.stderr)")
        #expect(named.stderr.contains("is the store (--store \(fixture.store)), given as a log to ingest"), "\(named.stderr)")
        #expect(fixture.contents == before, "the store was read as a log")
        let audit = try navreplay(["audit", "--store", fixture.store, "--format", "ndjson"])
        #expect(!audit.stdout.contains("schema.invalid"), "\(audit.stdout)")
    }

    @Test func anIngestsOutputThatIsALogAnEarlierBatchIngestedIsRefused() throws {
        let fixture = try Fixture()
        let before = fixture.contents
        let other = try fixture.scratch.write("night2.ndjson", Lines.clean.replacingOccurrences(of: "\"s\"", with: "\"t\""))
        for option in ["--output", "--summary", "--quarantine"] {
            let result = try navreplay(["ingest", "--store", fixture.store, option, fixture.log, other])
            #expect(result.status == 2, "\(option): \(result.stderr)")
            #expect(
                result.stderr.contains("\(option) \(fixture.log) is a file this run reads (a log the store has ingested)"),
                "\(option): \(result.stderr)")
            #expect(fixture.contents == before, "ingest \(option) overwrote an ingested log")
        }
    }

    /// A batch directory's model.json that is not the store's model is refused as an explicit
    /// other `--model` is, and the store is left as it was; the same model is taken (item 8).
    @Test func aBatchDirectorysOtherModelIsRefused() throws {
        let scratch = try TemporaryDirectory()
        let model = try String(contentsOfFile: Repository.path("SampleLogs/poc-app/model.json"), encoding: .utf8)
        let violations = try String(contentsOfFile: Repository.path("SampleLogs/poc-app/violations.ndjson"), encoding: .utf8)
        for night in ["night1", "same", "other"] {
            try FileManager.default.createDirectory(atPath: scratch.path(night), withIntermediateDirectories: true)
            _ = try scratch.write(
                "\(night)/model.json", night == "other" ? model.replacingOccurrences(of: "\"poc-app\"", with: "\"poc-app-2\"") : model)
        }
        _ = try scratch.write("night1/a.ndjson", Lines.clean)
        _ = try scratch.write("same/b.ndjson", violations)
        _ = try scratch.write("other/c.ndjson", violations)
        let store = scratch.path("s.db")
        let first = try navreplay(["ingest", "--store", store, "--quiet", "--fail-on", "never", scratch.path("night1")])
        #expect(first.status == 0, "\(first.stderr)")
        let before = FileManager.default.contents(atPath: store)
        let refused = try navreplay(["ingest", "--store", store, scratch.path("other")])
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(
            refused.stderr.contains("was made with another navigation model than \(scratch.path("other/model.json"))"), "\(refused.stderr)")
        #expect(FileManager.default.contents(atPath: store) == before)
        let same = try navreplay(["ingest", "--store", store, "--fail-on", "never", scratch.path("same")])
        #expect(same.status == 0, "\(same.stderr)")
    }
}
