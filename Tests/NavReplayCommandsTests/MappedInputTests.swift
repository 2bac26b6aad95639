#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import NavTestSupport
import Testing

/// Large plain files are mapped into memory (README, "Large inputs"): one that shrinks while it
/// is audited ends the run with exit status 2 and a message naming it, not a crash.
@Suite struct MappedInputTests {
    /// About 40 MB of a sample log under distinct session and event ids: over the 32 MB from which a file
    /// is partitioned, and within the default memory limit, so it is mapped.
    static func largeLog(in scratch: ScratchDirectory) throws -> String {
        let sample = try String(contentsOfFile: Repository.path("SampleLogs/clean/app-2026-11-20-upload1.ndjson"), encoding: .utf8)
        let path = scratch.path("large.ndjson")
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        var written = 0
        var copy = 0
        var chunk = ""
        while written < 40 << 20 {
            // Event ids too: a copy that kept them would be a conflict (CONTRACT §7).
            chunk += sample.replacingOccurrences(of: "\"session_id\":\"s-", with: "\"session_id\":\"c\(copy)-s-")
                .replacingOccurrences(of: "\"event_id\":\"", with: "\"event_id\":\"c\(copy)-")
            copy += 1
            if chunk.utf8.count > 1 << 20 {
                written += chunk.utf8.count
                handle.write(Data(chunk.utf8))
                chunk = ""
            }
        }
        try handle.close()
        return path
    }

    @Test func aMappedFileThatShrinksEndsTheRunWithStatusTwo() throws {
        let scratch = try ScratchDirectory()
        let log = try Self.largeLog(in: scratch)
        let spill = scratch.path("spill")
        try FileManager.default.createDirectory(atPath: spill, withIntermediateDirectories: true)
        let child = try ChildProcess(try Executables.navreplay(), ["audit", "-q", "--format", "ndjson", "--temp-dir", spill, log])
        // Once the file is mapped (it shows in the child's memory map), cut it short, as
        // `copytruncate` log rotation would.
        var mapped = false
        for _ in 0..<5000 {
            if let maps = try? String(contentsOfFile: "/proc/\(child.pid)/maps", encoding: .utf8), maps.contains(log) {
                mapped = true
                break
            }
            usleep(1000)
        }
        #expect(truncate(log, 4096) == 0)
        let outcome = child.wait()
        try #require(mapped, "the file was never mapped: \(outcome.exitStatus.map(String.init) ?? "signal") \(outcome.stderrText)")
        #expect(outcome.signal == nil, "ended by signal \(outcome.signal ?? 0)")
        #expect(outcome.exitStatus == 2, "\(outcome.stderrText)")
        #expect(outcome.stderrText.contains("\(log): the file shrank while it was being audited"), "\(outcome.stderrText)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: spill).isEmpty, "the partitions were removed")
    }

    @Test func withoutMmapTheFileIsReadNotMapped() throws {
        let scratch = try ScratchDirectory()
        let log = try Self.largeLog(in: scratch)
        let child = try ChildProcess(try Executables.navreplay(), ["audit", "-q", "--no-mmap", "--format", "ndjson", log])
        var mapped = false
        var looks = 0
        while ChildProcess.highWaterBytes(of: child.pid) != nil {
            if let maps = try? String(contentsOfFile: "/proc/\(child.pid)/maps", encoding: .utf8) {
                looks += 1
                if maps.contains(log) { mapped = true }
            }
            usleep(2000)
        }
        let outcome = child.wait()
        #expect(outcome.exitStatus == 0, "\(outcome.stderrText)")
        // Looked at while it ran (a run too quick to look at would prove nothing).
        #expect(looks >= 10, "\(looks)")
        #expect(!mapped)
    }
}
