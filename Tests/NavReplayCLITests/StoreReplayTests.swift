import Foundation
import NavTestSupport
import Testing

/// `replay --store` and `sessions --store` in every format: what the same commands over the
/// logs the store ingested print, while the store holds the events; a clear refusal when it
/// does not.
@Suite struct StoreReplayTests {
    /// One event line of session `session` (a `session_start`, or a push on the onboarding stack).
    static func event(_ session: String, _ seq: Int, _ time: String, push: String? = nil, from: String? = nil) -> String {
        let head =
            "{\"schema_version\":1,\"event_id\":\"\(session)-\(seq)\",\"session_id\":\"\(session)\",\"seq\":\(seq),"
            + "\"timestamp\":\"\(time)\",\"correlation_id\":\"\(session)-c\(seq)\","
        guard let push else { return head + "\"event_name\":\"session_start\",\"app_version\":\"1\"}" }
        let fromRoute = from.map { "\"\($0)\"" } ?? "null"
        return head + "\"event_name\":\"route_push\",\"stack\":\"onboarding\",\"from_route\":\(fromRoute),\"to_route\":\"\(push)\"}"
    }

    /// Writes a file under `scratch`, making its folders.
    static func write(_ scratch: TemporaryDirectory, _ name: String, _ text: String) throws -> String {
        let path = scratch.path(name)
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        return try scratch.write(name, text)
    }

    @Test func replayFromTheStorePrintsWhatReplayOverTheLogsPrinted() throws {
        let scratch = try TemporaryDirectory()
        let store = scratch.path("nav.db")
        let violations = Repository.path("SampleLogs/violations")
        let ingest = try navreplay(["ingest", "--store", store, "--close-all", "--quiet", "--fail-on", "never", violations])
        #expect(ingest.status == 0, "\(ingest.stderr)")
        let sessions = try navreplay(["sessions", "--format", "ndjson", "--quiet", violations]).stdout.split(separator: "\n")
            .compactMap { line -> String? in
                let record = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                return record?["session_id"] as? String
            }
        #expect(sessions.count >= 5)
        for session in sessions {
            for extra in [["--format", "text"], ["--format", "ndjson"], ["--until-seq", "3"]] {
                let logs = try navreplay(["replay", "--session", session] + extra + [violations])
                let stored = try navreplay(["replay", "--store", store, "--session", session] + extra)
                #expect(stored.stdout == logs.stdout, "\(session) \(extra)")
                #expect(stored.status == logs.status, "\(session) \(extra): \(stored.stderr)")
                #expect(stored.stderr.contains("read from the store \(store)"), "\(stored.stderr)")
            }
        }
    }

    /// A session that crosses two nights, in two files ingested apart: each line is named by
    /// the file it was read from, as a replay of both files names it.
    @Test func aSessionOverTwoBatchesIsReplayedWithEachLinesFile() throws {
        let scratch = try TemporaryDirectory()
        let store = scratch.path("nav.db")
        let first = try Self.write(
            scratch, "logs/2026-11-25/app.ndjson",
            [Self.event("s1", 0, "2026-11-25T23:59:00Z"), Self.event("s1", 1, "2026-11-25T23:59:30Z", push: "welcome")]
                .joined(separator: "\n") + "\n")
        let second = try Self.write(
            scratch, "logs/2026-11-26/app.ndjson",
            [
                Self.event("s1", 2, "2026-11-26T00:00:10Z", push: "signup", from: "welcome"),
                Self.event("s1", 3, "2026-11-26T00:00:20Z", push: "permissions", from: "detail"),
            ].joined(separator: "\n") + "\n")
        for night in [first, second] {
            #expect(try navreplay(["ingest", "--store", store, "--quiet", "--fail-on", "never", night]).status == 0)
        }
        let logs = try navreplay(["replay", "--format", "ndjson", "--session", "s1", first, second])
        let stored = try navreplay(["replay", "--format", "ndjson", "--store", store, "--session", "s1"])
        #expect(logs.status == 1 && stored.status == 1, "\(stored.stderr)")
        #expect(stored.stdout == logs.stdout)
        #expect(stored.stdout.contains("\"file\":\"\(second)\",\"line\":2"), "\(stored.stdout)")
        #expect(stored.stdout.contains("\"file\":\"\(first)\",\"line\":1"), "\(stored.stdout)")
    }

    @Test func anUnknownOrPrunedSessionIsRefusedWithTheReason() throws {
        let scratch = try TemporaryDirectory()
        let store = scratch.path("nav.db")
        let old = try Self.write(scratch, "n1/a.ndjson", Self.event("old", 0, "2026-10-01T10:00:00Z") + "\n")
        let new = try Self.write(scratch, "n2/b.ndjson", Self.event("new", 0, "2026-11-20T10:00:00Z") + "\n")
        for night in [old, new] {
            let ingest = try navreplay(["ingest", "--store", store, "--retain", "30d", "--quiet", "--fail-on", "never", night])
            #expect(ingest.status == 0, "\(ingest.stderr)")
        }
        let pruned = try navreplay(["replay", "--store", store, "--session", "old"])
        #expect(pruned.status == 2)
        #expect(pruned.stdout.isEmpty)
        #expect(
            pruned.stderr.contains("no longer holds the events of session \"old\": --retain pruned them at batch 2"), "\(pruned.stderr)")
        let unknown = try navreplay(["replay", "--store", store, "--session", "nobody"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("has no session \"nobody\""), "\(unknown.stderr)")
        let held = try navreplay(["replay", "--store", store, "--session", "new"])
        #expect(held.status == 0, "\(held.stderr)")
        #expect(held.stdout.hasPrefix("session new\n"))
        let both = try navreplay(["replay", "--store", store, "--session", "new", new])
        #expect(both.status == 2)
        #expect(both.stderr.contains("--store is the input"), "\(both.stderr)")
    }

    @Test(arguments: ["csv", "text", "json", "ndjson"])
    func sessionsFromTheStoreWriteEveryFormatAsOverTheLogs(_ format: String) throws {
        let scratch = try TemporaryDirectory()
        let store = scratch.path("nav.db")
        let logs = Repository.path("SampleLogs")
        #expect(
            try navreplay(["ingest", "--store", store, "--close-all", "--quiet", "--fail-on", "never", logs + "/violations"]).status == 0)
        let direct = try navreplay(["sessions", "--format", format, "--quiet", logs + "/violations"])
        let stored = try navreplay(["sessions", "--store", store, "--format", format, "--quiet"])
        #expect(stored.status == 0, "\(stored.stderr)")
        #expect(!stored.stdout.isEmpty)
        #expect(stored.stdout == direct.stdout)
        let empty = scratch.path("empty.db")
        #expect(try navreplay(["ingest", "--store", empty, "--quiet", try scratch.write("none.ndjson", "")]).status == 0)
        let none = try navreplay(["sessions", "--store", empty, "--format", format, "--quiet"])
        let noLogs = try navreplay(["sessions", "--format", format, "--quiet", scratch.path("none.ndjson")])
        #expect(none.stdout == noLogs.stdout, "\(format)")
    }

    @Test func sessionsFromTheStoreRefusesSQLiteWithTheReason() throws {
        let scratch = try TemporaryDirectory()
        let result = try navreplay(["sessions", "--store", scratch.path("nav.db"), "--format", "sqlite", "--output", scratch.path("x.db")])
        #expect(result.status == 2)
        #expect(result.stderr.contains("ndjson, json, csv or text"), "\(result.stderr)")
    }
}
