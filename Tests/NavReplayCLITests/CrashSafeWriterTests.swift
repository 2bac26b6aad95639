#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import NavEvents
import NavTestSupport
import Testing

/// `FileEventSink` under crashes and concurrent writers, with real processes: the writer
/// (`navreplay-writer-fixture`) appends events as fast as it can and prints each seq once its
/// `write` has returned; the test kills it with SIGKILL at random moments and checks what is
/// left on disk, then audits it with the built `navreplay`.
///
/// A SIGKILL is a crash of the app, not a power loss: what `write(2)` returned is in the page
/// cache and survives under every sync policy, so every acknowledged event must be there under
/// all three. (The fsync calls themselves are checked by NavRouterTests/FileEventSinkTests.)
@Suite struct CrashSafeWriterTests {
    /// Kills per sync policy: 3 × 17 = 51 kills per test run.
    static let killsPerPolicy = 17

    /// What a log holds: complete lines (ended by `\n`) and, possibly, a last piece without one.
    struct LogContent {
        var complete: [[UInt8]]
        var tail: [UInt8]?

        init(_ bytes: [UInt8]) {
            var pieces = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
            let last = pieces.removeLast()
            complete = pieces
            tail = last.isEmpty ? nil : last
        }
    }

    /// The seqs a writer acknowledged on standard output (complete lines only).
    static func acknowledged(_ stdout: [UInt8]) -> [Int64] {
        LogContent(stdout).complete.compactMap { Int64(String(decoding: $0, as: UTF8.self)) }
    }

    /// Waits (at most 10 s) until the writer has acknowledged its first event.
    static func waitForFirstAcknowledgement(_ child: ChildProcess) {
        for _ in 0..<1000 {
            if child.stdoutSoFar().contains(0x0A) { return }
            usleep(10_000)
        }
    }

    /// Checks one killed writer's log: every complete line is the next event of the session,
    /// at most the last piece is torn, every acknowledged seq is there, and `navreplay
    /// validate` reports the torn piece (and only it) as a torn line, with balanced counts.
    static func checkLog(
        _ path: String, acknowledged: [Int64], session: String, label: String, in scratch: TemporaryDirectory
    ) throws -> (events: Int, torn: Bool) {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let content = LogContent(bytes)
        let decoder = EventDecoder()
        var seqs: [Int64] = []
        for (index, line) in content.complete.enumerated() {
            switch decoder.decode(line) {
            case .success(let decoded):
                #expect(decoded.event.sessionID == session, "\(label): line \(index + 1) is another writer's")
                seqs.append(decoded.event.seq)
            case .failure(let error):
                Issue.record("\(label): line \(index + 1) of \(content.complete.count) is corrupt: \(error)")
            }
        }
        #expect(seqs == (0..<Int64(seqs.count)).map { $0 }, "\(label): the events are not 0, 1, 2, …")
        // A last piece without a line end is either a torn line or a complete event.
        var torn = false
        if let tail = content.tail {
            if case .success(let decoded) = decoder.decode(tail) {
                seqs.append(decoded.event.seq)
            } else {
                torn = true
            }
        }
        let present = Set(seqs)
        let lost = acknowledged.filter { !present.contains($0) }
        #expect(lost.isEmpty, "\(label): acknowledged events missing from the log: \(lost.prefix(10))")

        let summary = scratch.path("summary-\(UInt32.random(in: 0...UInt32.max)).json")
        let result = try navreplay(["validate", "--format", "ndjson", "--summary", summary, path])
        let findings = NDJSONFinding.parse(result.stdout)
        if torn {
            #expect(result.status == 1, "\(label)")
            #expect(findings.count == 1, "\(label): \(result.stdout.prefix(2000))")
            #expect(findings.first?.line == content.complete.count + 1, "\(label)")
            #expect(findings.first?.message.contains("torn line") == true, "\(label): \(findings.first?.message ?? "")")
        } else {
            #expect(result.status == 0 && findings.isEmpty, "\(label): \(result.stdout.prefix(2000))")
        }
        let counts = try Summary(path: summary)
        counts.expectBalanced()
        #expect(counts["lines"] == content.complete.count + (content.tail == nil ? 0 : 1), "\(label): \(counts.counts)")
        return (seqs.count, torn)
    }

    @Test(arguments: ["none", "every", "interval:7"])
    func aKilledWriterLeavesAtMostATornLastLineAndLosesNoAcknowledgedEvent(_ policy: String) throws {
        let fixture = try Executables.writerFixture()
        var generator = SeededRandom(seed: UInt64(policy.utf8.reduce(0) { $0 &* 31 &+ Int($1) }))
        var kills = 0
        var tears = 0
        for run in 0..<Self.killsPerPolicy {
            let scratch = try TemporaryDirectory()
            let log = scratch.path("killed.ndjson")
            let child = try ChildProcess(
                fixture, ["--path", log, "--sync", policy, "--blob-max", "1000000", "--seed", "\(run + 1)"])
            Self.waitForFirstAcknowledgement(child)
            usleep(UInt32.random(in: 0...40_000, using: &generator))
            child.send(SIGKILL)
            let outcome = child.wait()
            #expect(outcome.signal == SIGKILL, "run \(run): the writer ended on its own: \(outcome.stderrText)")
            if outcome.signal == SIGKILL { kills += 1 }
            let acknowledged = Self.acknowledged(outcome.stdout)
            #expect(!acknowledged.isEmpty, "run \(run): nothing was acknowledged")
            let result = try Self.checkLog(
                log, acknowledged: acknowledged, session: "writer", label: "--sync \(policy), run \(run)", in: scratch)
            if result.torn { tears += 1 }
        }
        if ProcessInfo.processInfo.environment["NAVREPLAY_TEST_STATS"] != nil {
            print("--sync \(policy): \(kills) kills, \(tears) torn last lines")
        }
        #expect(kills == Self.killsPerPolicy)
    }

    @Test func aTornLastLineIsReportedAsTorn() throws {
        // A tear made on purpose (the kill test above only sometimes lands inside a write).
        let scratch = try TemporaryDirectory()
        let log = scratch.path("torn.ndjson")
        let child = try ChildProcess(try Executables.writerFixture(), ["--path", log, "--count", "20", "--blob-max", "5000"])
        let acknowledged = Self.acknowledged(child.wait().stdout)
        #expect(acknowledged.count == 20)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: log)))
        let lastLineStart = (bytes.dropLast().lastIndex(of: 0x0A) ?? -1) + 1
        bytes.removeLast((bytes.count - lastLineStart) / 2)
        try Data(bytes).write(to: URL(fileURLWithPath: log))
        let result = try Self.checkLog(
            log, acknowledged: Array(acknowledged.dropLast()), session: "writer", label: "cut", in: scratch)
        #expect(result.torn && result.events == 19)
    }

    @Test func concurrentWriterProcessesNeverInterleaveLines() throws {
        let scratch = try TemporaryDirectory()
        let log = scratch.path("shared.ndjson")
        let fixture = try Executables.writerFixture()
        let writers = 4
        let events = 80
        let children = try (0..<writers).map { index in
            try ChildProcess(
                fixture,
                [
                    "--path", log, "--session", "writer-\(index)", "--count", "\(events)", "--blob-max", "100000",
                    "--sync", index % 2 == 0 ? "none" : "interval:5", "--seed", "\(index + 100)",
                ])
        }
        let outcomes = children.map { $0.wait() }
        for (index, outcome) in outcomes.enumerated() {
            #expect(outcome.exitStatus == 0, "writer \(index): \(outcome.stderrText)")
            #expect(Self.acknowledged(outcome.stdout).count == events)
        }
        let content = LogContent([UInt8](try Data(contentsOf: URL(fileURLWithPath: log))))
        #expect(content.tail == nil, "the log does not end with a line feed")
        // No blank line either: a writer that opens the log while another is in the middle of
        // a line waits for it (`flock`), instead of taking it for a torn one and ending it.
        let lines = content.complete.filter { !$0.isEmpty }
        #expect(content.complete.count == lines.count, "\(content.complete.count - lines.count) blank lines")
        #expect(lines.count == writers * events)
        var perWriter: [String: [Int64]] = [:]
        let decoder = EventDecoder()
        for (index, line) in lines.enumerated() {
            switch decoder.decode(line) {
            case .success(let decoded): perWriter[decoded.event.sessionID, default: []].append(decoded.event.seq)
            case .failure(let error): Issue.record("line \(index + 1) is interleaved or corrupt: \(error)")
            }
        }
        for index in 0..<writers {
            #expect(perWriter["writer-\(index)"] == (0..<Int64(events)).map { $0 }, "writer \(index)'s events")
        }
        let summary = scratch.path("summary.json")
        let result = try navreplay(["validate", "--format", "ndjson", "--summary", summary, log])
        #expect(result.status == 0 && result.stdout.isEmpty)
        let counts = try Summary(path: summary)
        counts.expectBalanced()
        #expect(counts["events"] == writers * events)
    }

    @Test func aWriterReopeningATornLogStartsOnAFreshLine() throws {
        // The app crashed mid-line and is started again on the same log: its first event must
        // not be glued to the torn line (that would corrupt an acknowledged event).
        let scratch = try TemporaryDirectory()
        let log = try scratch.write("reopened.ndjson", Lines.start + "\n" + String(Lines.push().prefix(80)))
        let child = try ChildProcess(
            try Executables.writerFixture(), ["--path", log, "--session", "again", "--count", "3", "--blob-max", "10"])
        let acknowledged = Self.acknowledged(child.wait().stdout)
        #expect(acknowledged == [0, 1, 2])
        let content = LogContent([UInt8](try Data(contentsOf: URL(fileURLWithPath: log))))
        let decoder = EventDecoder()
        let sessions = content.complete.compactMap { line -> String? in
            if case .success(let decoded) = decoder.decode(line) { return decoded.event.sessionID }
            return nil
        }
        #expect(sessions.filter { $0 == "again" }.count == 3, "\(content.complete.map { String(decoding: $0.prefix(120), as: UTF8.self) })")
    }
}
