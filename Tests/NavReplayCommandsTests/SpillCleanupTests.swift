#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import NavTestSupport
import Testing

/// The README says spill partitions are removed when a run is interrupted: interrupt one.
@Suite struct SpillCleanupTests {
    @Test(arguments: [SIGINT, SIGTERM])
    func anInterruptedSpillingAuditRemovesItsPartitions(_ signal: Int32) throws {
        let scratch = try ScratchDirectory()
        let spill = scratch.url.appendingPathComponent("spill")
        try FileManager.default.createDirectory(at: spill, withIntermediateDirectories: true)
        // Enough sessions that the audit is still reading when it starts to spill.
        let sample = try String(contentsOfFile: Repository.path("SampleLogs/clean/app-2026-11-20-upload1.ndjson"), encoding: .utf8)
        var text = ""
        for copy in 0..<400 { text += sample.replacingOccurrences(of: "\"session_id\":\"s-", with: "\"session_id\":\"c\(copy)-s-") }
        let log = try scratch.write("big.ndjson", text)
        let child = try ChildProcess(
            try Executables.navreplay(),
            ["audit", "-q", "--format", "ndjson", "--memory-limit", "1M", "--temp-dir", spill.path, log])
        // Wait until a spill directory exists, then interrupt.
        var spilled = false
        for _ in 0..<2000 {
            if let entries = try? FileManager.default.contentsOfDirectory(atPath: spill.path), !entries.isEmpty {
                spilled = true
                break
            }
            usleep(5000)
        }
        child.send(signal)
        let outcome = child.wait()
        try #require(spilled, "the audit never spilled (exit \(String(describing: outcome.exitStatus)))")
        // The handler removed the partitions and exited with 128 + signal, mid-run.
        #expect(outcome.exitStatus == 128 + signal, "\(outcome)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: spill.path).isEmpty)
    }

    @Test func anAuditWhoseReaderGoesAwayRemovesItsPartitions() throws {
        // `navreplay audit … | head`: output is streamed while partitions exist; when the
        // reader closes the pipe, the run ends (SIGPIPE, or a failed write where SIGPIPE is
        // ignored) and the partitions go.
        let scratch = try ScratchDirectory()
        let spill = scratch.url.appendingPathComponent("spill")
        try FileManager.default.createDirectory(at: spill, withIntermediateDirectories: true)
        let log = try StreamedOutputTests.replicated(scratch, copies: 300)
        let command = "'\(try Executables.navreplay())' audit -q --format ndjson --memory-limit 1M --temp-dir '\(spill.path)' '\(log)' | head -c 100 > /dev/null; echo ${PIPESTATUS:-}"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", "set -o pipefail; " + command + "; exit 0"]
        try process.run()
        process.waitUntilExit()
        #expect(try FileManager.default.contentsOfDirectory(atPath: spill.path).isEmpty, "partitions left behind")
    }
}
