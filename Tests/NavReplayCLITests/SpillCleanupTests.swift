#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import NavTestSupport
import Testing

/// The README says spill partitions are removed when a run is interrupted: interrupt one.
@Suite struct SpillCleanupTests {
    /// Every signal whose default action ends the process and that a handler can catch (SIGPIPE
    /// has a test of its own, through a pipe).
    static var endingSignals: [Int32] {
        var signals = [SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGXCPU, SIGXFSZ, SIGPROF]
        #if os(Linux)
            signals += [SIGIO, SIGPWR, SIGSTKFLT]
        #endif
        return signals
    }

    /// A log of many sessions (about 9 MB): with `--memory-limit 1M` it spills.
    static func manySessions(_ scratch: TemporaryDirectory) throws -> String {
        let sample = try String(contentsOfFile: Repository.path("SampleLogs/clean/app-2026-11-20-upload1.ndjson"), encoding: .utf8)
        var text = ""
        for copy in 0..<400 { text += sample.replacingOccurrences(of: "\"session_id\":\"s-", with: "\"session_id\":\"c\(copy)-s-") }
        return try scratch.write("big.ndjson", text)
    }

    /// The files under `directory`, however deep.
    static func files(under directory: URL) -> [String] {
        FileManager.default.enumerator(atPath: directory.path).map { $0.compactMap { $0 as? String } } ?? []
    }

    @Test(arguments: Repository.cases(SpillCleanupTests.endingSignals + [SIGPIPE], underSanitizer: 4))
    func anInterruptedSpillingAuditRemovesItsPartitions(_ signal: Int32) throws {
        let scratch = try TemporaryDirectory()
        let spill = scratch.url.appendingPathComponent("spill")
        try FileManager.default.createDirectory(at: spill, withIntermediateDirectories: true)
        let log = try Self.manySessions(scratch)
        // The log comes through a FIFO that stays open: once the audit has read it all, it
        // waits for more, so it is surely mid-run, with its partitions on disk, when interrupted.
        let fifo = try HostileInputTests.FIFO(in: scratch)
        defer { fifo.hangUp() }
        let child = try ChildProcess(
            try Executables.navreplay(),
            ["audit", "-q", "--format", "ndjson", "--memory-limit", "1M", "--temp-dir", spill.path, "-"], stdinPath: fifo.path)
        fifo.write(Array(try Data(contentsOf: URL(fileURLWithPath: log))), reader: child.pid)
        fifo.waitUntilBlockedReading(child.pid)
        let partitions = Self.files(under: spill).filter { $0.contains("/part-") }
        child.send(signal)
        let outcome = child.wait(killingAfter: 60)
        #expect(partitions.count > 1, "the audit never spilled to files: \(Self.files(under: spill))")
        // The handler removed the partitions and exited with 128 + signal.
        #expect(outcome.exitStatus == 128 + signal, "\(outcome) \(outcome.stderrText)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: spill.path).isEmpty)
    }

    /// A hangup (a closed terminal, a session ending) while an audit of a file spills: its
    /// directory ends empty, as on Ctrl-C.
    @Test(arguments: [SIGHUP, SIGUSR1, SIGALRM])
    func aSpillingAuditOfAFileEndedByASignalLeavesNothingBehind(_ signal: Int32) throws {
        let scratch = try TemporaryDirectory()
        let spill = scratch.url.appendingPathComponent("spill")
        try FileManager.default.createDirectory(at: spill, withIntermediateDirectories: true)
        let log = try Self.manySessions(scratch)
        let child = try ChildProcess(
            try Executables.navreplay(), ["audit", "-q", "--format", "ndjson", "--memory-limit", "1M", "--temp-dir", spill.path, log])
        // Once a partition file exists (10 s at most).
        var polls = 0
        while !Self.files(under: spill).contains(where: { $0.contains("/part-") }), polls < 5000 {
            usleep(2000)
            polls += 1
        }
        child.send(signal)
        let outcome = child.wait(killingAfter: 60)
        #expect(polls < 5000, "the audit never spilled to files")
        #expect(outcome.exitStatus == 128 + signal || outcome.exitStatus == 0, "\(outcome) \(outcome.stderrText)")
        #expect(Self.files(under: spill).isEmpty, "left behind: \(Self.files(under: spill).prefix(5))")
    }

    /// A signal ignored when the process started (`nohup`, `trap '' HUP`) stays ignored: the
    /// run goes on to its end.
    @Test func aSignalIgnoredAtStartStaysIgnored() throws {
        let scratch = try TemporaryDirectory()
        let log = try String(contentsOfFile: Repository.path("SampleLogs/clean/app-2026-11-20-upload1.ndjson"), encoding: .utf8)
        let fifo = try HostileInputTests.FIFO(in: scratch)
        let command = "trap '' HUP; exec '\(try Executables.navreplay())' validate -q -"
        let child = try ChildProcess("/bin/sh", ["-c", command], stdinPath: fifo.path)
        fifo.write(Array(log.utf8), reader: child.pid)
        fifo.waitUntilBlockedReading(child.pid)
        child.send(SIGHUP)
        usleep(200_000)
        fifo.hangUp()
        let outcome = child.wait(killingAfter: 60)
        #expect(outcome.signal == nil && outcome.exitStatus == 0, "\(outcome) \(outcome.stderrText)")
    }

    /// Interrupted at any moment (reading, folding on every core, writing output files, or
    /// already done), an audit leaves nothing behind. Other threads go on creating partition
    /// and output files while the handler removes them; this is the race it must win.
    @Test(arguments: Repository.cases([0, 100, 250, 400, 550, 700], underSanitizer: 3))
    func anAuditInterruptedAtAnyMomentLeavesNothingBehind(afterMilliseconds delay: Int) throws {
        let scratch = try TemporaryDirectory()
        let spill = scratch.url.appendingPathComponent("spill")
        try FileManager.default.createDirectory(at: spill, withIntermediateDirectories: true)
        let log = try Self.manySessions(scratch)
        let child = try ChildProcess(
            try Executables.navreplay(),
            ["audit", "-q", "--format", "ndjson", "--memory-limit", "1M", "--jobs", "2", "--temp-dir", spill.path, log])
        // From the moment its spill directory exists (10 s at most).
        var polls = 0
        while (try? FileManager.default.contentsOfDirectory(atPath: spill.path))?.isEmpty != false, polls < 5000 {
            usleep(2000)
            polls += 1
        }
        usleep(useconds_t(delay * 1000))
        child.send(SIGTERM)
        let outcome = child.wait(killingAfter: 60)
        // Either the signal ended it (143) or it had finished (0, the log is clean); it did not
        // hang (a handler that allocates can deadlock on malloc's lock).
        #expect(outcome.exitStatus == 128 + SIGTERM || outcome.exitStatus == 0, "\(outcome) \(outcome.stderrText)")
        #expect(Self.files(under: spill).isEmpty, "left behind: \(Self.files(under: spill).prefix(5))")
    }

    @Test func anAuditWhoseReaderGoesAwayRemovesItsPartitions() throws {
        // `navreplay audit … | head`: output is streamed while partitions exist; when the
        // reader closes the pipe, the run ends (SIGPIPE, or a failed write where SIGPIPE is
        // ignored) and the partitions go.
        let scratch = try TemporaryDirectory()
        let spill = scratch.url.appendingPathComponent("spill")
        try FileManager.default.createDirectory(at: spill, withIntermediateDirectories: true)
        let log = try StreamedOutputTests.replicated(scratch, copies: 300)
        let command =
            "'\(try Executables.navreplay())' audit -q --format ndjson --memory-limit 1M --temp-dir '\(spill.path)' '\(log)' | head -c 100 > /dev/null; echo ${PIPESTATUS:-}"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", "set -o pipefail; " + command + "; exit 0"]
        try process.run()
        process.waitUntilExit()
        #expect(try FileManager.default.contentsOfDirectory(atPath: spill.path).isEmpty, "partitions left behind")
    }
}
