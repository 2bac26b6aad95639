#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import NavTestSupport
import Testing

/// `navreplay ingest` as a nightly job runs it: exit statuses, a busy store, a run killed at
/// random moments, and the README's workflow.
@Suite(.serialized) struct IngestCommandTests {
    /// The whole store as SQL text: two stores are the same when their dumps are.
    static func dump(_ store: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sqlite3", store, ".dump"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    static var sqlite3Available: Bool {
        ["/usr/bin/sqlite3", "/usr/local/bin/sqlite3"].contains { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// A log of `megabytes` written by `navreplay-loggen` (beside the navreplay binary).
    static func generatedLog(_ directory: TemporaryDirectory, _ name: String, megabytes: Int, seed: Int) throws -> String {
        guard let binary = Repository.binary else { throw BinaryMissing() }
        let loggen = URL(fileURLWithPath: binary).deletingLastPathComponent().appendingPathComponent("navreplay-loggen").path
        let path = directory.path(name)
        let child = try ChildProcess(loggen, ["--bytes", "\(megabytes)M", "--sessions", "200", "--seed", "\(seed)", "--output", path])
        #expect(child.wait().exitStatus == 0)
        return path
    }

    @Test func exitsOneForNewErrorsZeroWhenNothingIsNewAndTwoForAMissingFile() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path("nav.db")
        let broken = Repository.path("SampleLogs/violations")
        let first = try navreplay(["ingest", "--store", store, "--format", "ndjson", broken])
        #expect(first.status == 1, "\(first.stderr)")
        #expect(first.stdout.split(separator: "\n").allSatisfy { $0.hasPrefix("{\"change\":\"new\",\"rule\":") })
        let again = try navreplay(["ingest", "--store", store, broken])
        #expect(again.status == 0)
        #expect(again.stdout == "nothing new: every file was ingested already\n")
        #expect(again.stderr.contains("already ingested, nothing new"))
        let missing = try navreplay(["ingest", "--store", store, directory.path("absent.ndjson")])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("absent.ndjson"))
        let closed = try navreplay(["ingest", "--store", store, "--close-all", "--fail-on", "never"])
        #expect(closed.status == 0)
        let stored = try navreplay(["audit", "--store", store, "--format", "ndjson"])
        let direct = try navreplay(["audit", "--format", "ndjson", broken])
        #expect(stored.stdout == direct.stdout)
        #expect(stored.status == direct.status)
    }

    /// A first batch closed at once reports as new every finding an audit of its files gives,
    /// in the audit's order, read back from the store; the JSON document holds the same.
    @Test func aClosedFirstBatchPrintsTheAuditsFindingsInItsOrder() throws {
        let directory = try TemporaryDirectory()
        let broken = Repository.path("SampleLogs/violations")
        let direct = try navreplay(["audit", "--format", "ndjson", broken])
        let ndjson = try navreplay(["ingest", "--store", directory.path("a.db"), "--close-all", "--format", "ndjson", broken])
        let lines = ndjson.stdout.split(separator: "\n").map { "{" + $0.dropFirst(#"{"change":"new","#.count) }
        #expect(!lines.isEmpty && lines == direct.stdout.split(separator: "\n").map(String.init))
        let json = try navreplay(["ingest", "--store", directory.path("b.db"), "--close-all", "--format", "json", broken])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect((document["new"] as? [Any])?.count == lines.count)
        #expect((document["withdrawn"] as? [Any])?.isEmpty == true)
        #expect((document["summary"] as? [String: Any])?["new_findings"] as? Int == lines.count)
        let text = try navreplay(["ingest", "--store", directory.path("c.db"), "--close-all", broken])
        #expect(text.stdout.hasPrefix("new findings (\(lines.count)):\n"))
    }

    @Test(.enabled(if: IngestCommandTests.sqlite3Available, "no sqlite3 shell (scripts/install-test-deps installs it)"))
    func aSecondIngestWaitsForTheFirstThenGivesUp() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path("nav.db")
        let clean = Repository.path("SampleLogs/clean")
        #expect(try navreplay(["ingest", "--store", store, clean]).status == 0)
        // Another writer holds the store for three seconds.
        let script = try directory.write(
            "hold.sql", "BEGIN IMMEDIATE;\nINSERT INTO meta VALUES ('held', '1');\n.shell sleep 3\nROLLBACK;\n")
        let holder = try ChildProcess("/usr/bin/env", ["sqlite3", store], stdinPath: script)
        usleep(700_000)
        let refused = try navreplay(["ingest", "--store", store, "--lock-wait", "0.2", Repository.path("SampleLogs/violations")])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("busy: it is locked by another process"), "\(refused.stderr)")
        let waited = try navreplay([
            "ingest", "--store", store, "--lock-wait", "30", "--fail-on", "never", Repository.path("SampleLogs/violations"),
        ])
        #expect(waited.status == 0, "\(waited.stderr)")
        _ = holder.wait()
    }

    @Test(.enabled(if: IngestCommandTests.sqlite3Available, "no sqlite3 shell (scripts/install-test-deps installs it)"))
    func aStoreOfAnotherVersionOrModelIsRefusedWithTheReason() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path("nav.db")
        #expect(try navreplay(["ingest", "--store", store, Repository.path("SampleLogs/clean")]).status == 0)
        let otherModel = try navreplay([
            "ingest", "--store", store, "--model", Repository.path("SampleLogs/space-hub/model.json"),
            Repository.path("SampleLogs/violations"),
        ])
        #expect(otherModel.status == 2)
        #expect(otherModel.stderr.contains("was made with another navigation model"), "\(otherModel.stderr)")
        let update = Process()
        update.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        update.arguments = ["sqlite3", store, "UPDATE meta SET value = 'navreplay 0.0.1' WHERE key = 'written_by'"]
        try update.run()
        update.waitUntilExit()
        // A sqlite3 shell writes no page checksum: its edit is the store's damage (a store of
        // another version, written whole, is refused by version: StoreDamageTests).
        for arguments in [["audit", "--store", store], ["ingest", "--store", store, Repository.path("SampleLogs/violations")]] {
            let refused = try navreplay(arguments)
            #expect(refused.status == 2)
            #expect(refused.stderr.contains("The store \(store) is damaged: page "), "\(refused.stderr)")
        }
        let notAStore = try directory.write("notes.txt", "not a database\n")
        let wrong = try navreplay(["sessions", "--store", notAStore])
        #expect(wrong.status == 2)
        #expect(wrong.stderr.contains("is not a NavReplay store"), "\(wrong.stderr)")
    }

    /// Killed at random moments of two batches, then run again: the store of an uninterrupted run.
    @Test(
        .enabled(if: IngestCommandTests.sqlite3Available, "no sqlite3 shell (scripts/install-test-deps installs it)"),
        .timeLimit(.minutes(10)))
    func aKilledIngestRunAgainGivesTheStoreOfAnUninterruptedRun() throws {
        guard let binary = Repository.binary else { throw BinaryMissing() }
        let directory = try TemporaryDirectory()
        let nights = [
            try Self.generatedLog(directory, "night1.ndjson", megabytes: 1, seed: 11),
            try Self.generatedLog(directory, "night2.ndjson", megabytes: 1, seed: 12),
        ]
        func arguments(_ store: String, _ night: String) -> [String] {
            ["ingest", "--store", store, "--quiet", "--fail-on", "never", "--close-after", "1m", "--temp-dir", directory.path(""), night]
        }
        let reference = directory.path("reference.db")
        var durations: [Double] = []
        for night in nights {
            let start = Date()
            #expect(try ChildProcess(binary, arguments(reference, night)).wait().exitStatus == 0)
            durations.append(Date().timeIntervalSince(start))
        }
        let expected = try Self.dump(reference)
        #expect(expected.contains("INSERT INTO batches VALUES(2,"))
        var random = SeededRandom(seed: 2026)
        var killedMidway = 0
        let trials = Repository.trials(10, underSanitizer: 4)
        for trial in 0..<trials {
            let store = directory.path("trial\(trial).db")
            for (index, night) in nights.enumerated() {
                let child = try ChildProcess(binary, arguments(store, night))
                usleep(useconds_t(Double(random.next() % 1000) / 1000 * durations[index] * 1_000_000))
                child.send(SIGKILL)
                if child.wait().signal == SIGKILL { killedMidway += 1 }
                let rerun = try ChildProcess(binary, arguments(store, night)).wait()
                #expect(rerun.exitStatus == 0, "trial \(trial): \(rerun.stderrText)")
            }
            #expect(try Self.dump(store) == expected, "trial \(trial)")
        }
        #expect(killedMidway >= trials, "most kills (of \(2 * trials)) land while the ingest runs")
    }
}
