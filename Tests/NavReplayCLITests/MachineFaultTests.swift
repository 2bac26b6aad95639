#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import NavEvents
import NavTestSupport
import Testing

/// Faults of the machine rather than of the input: writer processes killed while others write,
/// a full file system, a read-only one, and inputs that change or go while they are read. The
/// file-system tests mount a small `tmpfs` (or a loop-mounted ext4 image) of their own, which
/// needs root; elsewhere they are skipped, and say why.
@Suite struct MachineFaultTests {
    // MARK: An input that changes or goes during the run

    /// What happens to the input while it is audited.
    enum InputChange: String, CaseIterable, Sendable {
        /// Removed (its name: the audit holds it open).
        case removed
        /// Replaced by another file under its name (`mv new log`).
        case replaced
        /// Cut to half its length (`copytruncate` rotation).
        case truncated
        /// Overwritten in place, a third of it from its middle, with bytes that are not JSON.
        case overwritten
        /// Appended to (the app goes on writing).
        case appended
    }

    /// The input changes at a few moments of the audit (its sessions share event ids, so it is
    /// read twice: the second reading finds the change). The run ends by itself, never by a
    /// signal; with exit status 2 and the input named when it could not read what it read
    /// before, else with its findings' status and a summary that balances; and its spill files
    /// are removed either way.
    @Test(arguments: Repository.cases(InputChange.allCases, underSanitizer: 3))
    func anInputThatChangesDuringTheRunEndsCleanly(_ change: InputChange) throws {
        let scratch = try TemporaryDirectory()
        // Three moments: as soon as the audit spills (it is reading), and a half and three
        // quarters of the time an undisturbed audit of the same log takes (reading, or reading
        // again the sessions that share event ids).
        let undisturbed = Self.undisturbedSeconds
        for (moment, share) in [("spilling", 0.0), ("half way", 0.5), ("three quarters", 0.75)] {
            let log = try Self.sharingLog(scratch)
            let summary = scratch.path("summary.json")
            unlink(summary)
            let spill = scratch.path("spill-\(moment)")
            try FileManager.default.createDirectory(atPath: spill, withIntermediateDirectories: true)
            let started = Date()
            let child = try ChildProcess(
                try Executables.navreplay(),
                ["audit", "-q", "--format", "ndjson", "--memory-limit", "1M", "--temp-dir", spill, "--summary", summary, log])
            if share == 0 {
                for _ in 0..<10_000 where ((try? FileManager.default.contentsOfDirectory(atPath: spill)) ?? []).isEmpty { usleep(1000) }
            } else {
                usleep(UInt32(max(0, undisturbed * share - Date().timeIntervalSince(started)) * 1_000_000))
            }
            try Self.apply(change, to: log, in: scratch)
            let outcome = child.wait(killingAfter: 300)
            let label = "\(change) \(moment)"
            #expect(outcome.signal == nil, "\(label): ended by signal \(outcome.signal ?? 0): \(outcome.stderrText.suffix(300))")
            let status = outcome.exitStatus ?? -1
            #expect([0, 1, 2].contains(status), "\(label): exit \(status): \(outcome.stderrText.suffix(300))")
            if status == 2 {
                #expect(outcome.stderrText.contains(log), "\(label): the error names no input: \(outcome.stderrText.suffix(300))")
            } else {
                #expect(try Summary(path: summary).isBalanced, "\(label): the summary does not balance")
            }
            let left = SpillCleanupTests.files(under: URL(fileURLWithPath: spill))
            #expect(left.isEmpty, "\(label): spill files left: \(left.prefix(10))")
            if ProcessInfo.processInfo.environment["NAVREPLAY_TEST_STATS"] != nil {
                let error =
                    outcome.stderrText.split(separator: "\n").first.map { ": " + $0.replacingOccurrences(of: log, with: "LOG") } ?? ""
                let lines = (try? Summary(path: summary))?["lines"] ?? -1
                print("input \(label) (undisturbed \(Int(undisturbed * 1000)) ms): exit \(status), \(lines) lines\(error.prefix(160))")
            }
        }
    }

    /// A log of 2,400 sessions (about 2 MB) in 80 groups whose sessions share their event ids:
    /// with `--memory-limit 1M` it spills, and its sessions are read twice.
    static func sharingLog(_ scratch: TemporaryDirectory) throws -> String {
        let sample = try String(contentsOfFile: Repository.path("SampleLogs/clean/app-2026-11-20-upload1.ndjson"), encoding: .utf8)
        var text = ""
        for copy in 0..<80 { text += sample.replacingOccurrences(of: "\"session_id\":\"s-", with: "\"session_id\":\"c\(copy)-s-") }
        return try scratch.write("sharing.ndjson", text)
    }

    /// How long an audit of the log takes when nothing happens to it, in seconds (measured once).
    static let undisturbedSeconds: Double = (try? timedAudit()) ?? 2

    static func timedAudit() throws -> Double {
        let scratch = try TemporaryDirectory()
        let log = try Self.sharingLog(scratch)
        let spill = scratch.path("spill-timed")
        try FileManager.default.createDirectory(atPath: spill, withIntermediateDirectories: true)
        let started = Date()
        _ = try ChildProcess(
            try Executables.navreplay(), ["audit", "-q", "--format", "ndjson", "--memory-limit", "1M", "--temp-dir", spill, log]
        ).wait(killingAfter: 300)
        return Date().timeIntervalSince(started)
    }

    static func apply(_ change: InputChange, to log: String, in scratch: TemporaryDirectory) throws {
        switch change {
        case .removed:
            unlink(log)
        case .replaced:
            let other = try scratch.write("other.ndjson", Lines.clean)
            rename(other, log)
        case .truncated:
            var status = stat()
            stat(log, &status)
            truncate(log, status.st_size / 2)
        case .overwritten:
            var status = stat()
            stat(log, &status)
            let descriptor = open(log, O_WRONLY)
            defer { close(descriptor) }
            let garbage = [UInt8](repeating: 0x7B, count: Int(status.st_size) / 3)
            _ = garbage.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, status.st_size / 3) }
        case .appended:
            let descriptor = open(log, O_WRONLY | O_APPEND)
            defer { close(descriptor) }
            let lines = Array((Lines.start + "\n" + #"{"torn"#).utf8)
            _ = lines.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        }
    }

    // MARK: Several writers, killed at random points

    /// Trials of `killedWritersNeverLoseOrGlueALine`: three writers each, all killed.
    static let killTrials = Repository.trials(50, underSanitizer: 10)

    /// Three processes append to one log through `FileEventSink`, each line up to 200 KB, and are
    /// killed with SIGKILL one after another at random moments (0 to 100 ms apart) while the
    /// others go on writing. Every acknowledged event is
    /// in the log, whole; every line that does not decode is one torn piece of a killed writer's
    /// line (never two events glued into one line); each writer's events are 0, 1, 2, … in order.
    @Test func killedWritersNeverLoseOrGlueALine() throws {
        let fixture = try Executables.writerFixture()
        var random = SeededRandom(seed: 31)
        var stats = KillStats()
        let policies = ["none", "every", "interval:5"]
        for trial in 0..<Self.killTrials {
            let scratch = try TemporaryDirectory()
            let log = scratch.path("shared.ndjson")
            let writers = try (0..<3).map { index in
                try ChildProcess(
                    fixture,
                    [
                        "--path", log, "--session", "w\(index)", "--blob-max", "200000", "--seed", "\(trial * 10 + index + 1)",
                        "--sync", policies[(trial + index) % policies.count],
                    ])
            }
            for writer in writers { CrashSafeWriterTests.waitForFirstAcknowledgement(writer) }
            var acknowledged: [String: [Int64]] = [:]
            for (index, writer) in writers.enumerated() {
                usleep(UInt32.random(in: 0...100_000, using: &random))
                writer.send(SIGKILL)
                let outcome = writer.wait()
                #expect(outcome.signal == SIGKILL, "trial \(trial): writer \(index) ended on its own: \(outcome.stderrText)")
                acknowledged["w\(index)"] = CrashSafeWriterTests.acknowledged(outcome.stdout)
            }
            stats.add(try Self.checkSharedLog(log, acknowledged: acknowledged, label: "trial \(trial)"))
        }
        stats.print(trials: Self.killTrials)
        #expect(stats.kills == 3 * Self.killTrials)
    }

    /// Trials of `aWriterKilledInsideItsWriteLeavesAPieceNoLineIsGluedTo` (3 under a sanitizer,
    /// where each took 6 s).
    static let tearTrials = Repository.trials(10, underSanitizer: 3)

    /// A kill at a random moment seldom lands inside `write(2)` (a writer spends its time making
    /// its lines), so here one writer's lines are up to 16 MB and it is killed while the
    /// log grows by one of them: it leaves a torn piece, and the two other writers, which go on,
    /// must not glue their next line to it.
    @Test func aWriterKilledInsideItsWriteLeavesAPieceNoLineIsGluedTo() throws {
        let fixture = try Executables.writerFixture()
        var stats = KillStats()
        for trial in 0..<Self.tearTrials {
            let scratch = try TemporaryDirectory()
            let log = scratch.path("shared.ndjson")
            let others = try (0..<2).map { index in
                // Each line synced, so that they write hundreds of lines, not tens of thousands.
                try ChildProcess(
                    fixture, ["--path", log, "--session", "w\(index)", "--blob-max", "2000", "--seed", "\(trial + 1)", "--sync", "every"])
            }
            for writer in others { CrashSafeWriterTests.waitForFirstAcknowledgement(writer) }
            let big = try ChildProcess(
                fixture, ["--path", log, "--session", "big", "--blob-max", "16000000", "--seed", "\(trial + 7)", "--count", "4"])
            // Killed once the log grows by a megabyte between two looks a millisecond apart:
            // only the big writer's line grows it so fast, so it is inside its `write(2)`.
            var size = Self.fileSize(log)
            for _ in 0..<20_000 {
                usleep(1000)
                let now = Self.fileSize(log)
                if now - size > 1 << 20 { break }
                size = now
            }
            big.send(SIGKILL)
            let bigOutcome = big.wait()
            usleep(50_000)  // the others go on writing after the torn piece
            var acknowledged = ["big": CrashSafeWriterTests.acknowledged(bigOutcome.stdout)]
            for (index, writer) in others.enumerated() {
                writer.send(SIGKILL)
                acknowledged["w\(index)"] = CrashSafeWriterTests.acknowledged(writer.wait().stdout)
            }
            stats.add(try Self.checkSharedLog(log, acknowledged: acknowledged, label: "trial \(trial)"))
        }
        stats.print(trials: Self.tearTrials)
        #expect(stats.torn >= 1, "no kill landed inside a write: the test did not test the torn piece")
    }

    static func fileSize(_ path: String) -> Int {
        var status = stat()
        return stat(path, &status) == 0 ? Int(status.st_size) : 0
    }

    struct KillStats {
        var kills = 0
        var events = 0
        var torn = 0

        mutating func add(_ log: SharedLog) {
            kills += 3
            events += log.events
            torn += log.torn
        }

        func print(trials: Int) {
            guard ProcessInfo.processInfo.environment["NAVREPLAY_TEST_STATS"] != nil else { return }
            Swift.print("killed writers: \(trials) trials, \(kills) kills, \(events) events kept, \(torn) torn lines, 0 glued, 0 lost")
        }
    }

    struct SharedLog {
        var events: Int
        var torn: Int
    }

    static func checkSharedLog(_ path: String, acknowledged: [String: [Int64]], label: String) throws -> SharedLog {
        let content = CrashSafeWriterTests.LogContent([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        let lines = content.complete + (content.tail.map { [$0] } ?? [])
        let decoder = EventDecoder()
        let marker = Array(#""schema_version""#.utf8)
        var seqs: [String: [Int64]] = [:]
        var torn = 0
        for (index, line) in lines.enumerated() {
            if line.isEmpty { continue }
            let starts = occurrences(of: marker, in: line)
            #expect(starts <= 1, "\(label): line \(index + 1) holds \(starts) events glued together")
            switch decoder.decode(line) {
            case .success(let decoded): seqs[decoded.event.sessionID, default: []].append(decoded.event.seq)
            case .failure: torn += 1
            }
        }
        #expect(torn <= acknowledged.count, "\(label): \(torn) lines do not decode, for \(acknowledged.count) kills")
        for (session, acked) in acknowledged {
            let kept = seqs[session] ?? []
            #expect(kept == (0..<Int64(kept.count)).map { $0 }, "\(label): \(session)'s events are not 0, 1, 2, …")
            let lost = Set(acked).subtracting(kept)
            #expect(lost.isEmpty, "\(label): \(session)'s acknowledged events are missing: \(lost.sorted().prefix(10))")
        }
        return SharedLog(events: seqs.values.reduce(0) { $0 + $1.count }, torn: torn)
    }

    static func occurrences(of needle: [UInt8], in haystack: [UInt8]) -> Int {
        let text = Data(haystack)
        let pattern = Data(needle)
        var count = 0
        var from = text.startIndex
        while let found = text.range(of: pattern, in: from..<text.endIndex) {
            count += 1
            from = found.upperBound
        }
        return count
    }
}
