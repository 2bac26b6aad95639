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
    static func largeLog(in scratch: TemporaryDirectory) throws -> String {
        let sample = try String(contentsOfFile: Repository.path("SampleLogs/clean/app-2026-11-20-upload1.ndjson"), encoding: .utf8)
        let path = scratch.path("large.ndjson")
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        var written = 0
        var copy = 0
        var chunk = ""
        while written < 40 << 20 {
            // Event ids too: a copy that kept them would be a conflict (docs/events-and-rules.md).
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

    /// `validate` maps a plain file too, one at a time, and drops its pages as it goes.
    @Test(arguments: ["audit", "validate"])
    func aMappedFileThatShrinksEndsTheRunWithStatusTwo(_ command: String) throws {
        let scratch = try TemporaryDirectory()
        let log = try Self.largeLog(in: scratch)
        let spill = scratch.path("spill")
        try FileManager.default.createDirectory(atPath: spill, withIntermediateDirectories: true)
        let child = try ChildProcess(try Executables.navreplay(), [command, "-q", "--format", "ndjson", "--temp-dir", spill, log])
        // Once the file is mapped (it shows in the child's memory map), and the audit's spill
        // directory exists, cut it short, as `copytruncate` log rotation would. (The handler
        // removed nothing in the optimized build, where its registry was another copy than the
        // one the directory was registered in: a cut before the directory existed missed it.)
        var mapped = false
        for _ in 0..<5000 {
            let spilling = command == "validate" || !((try? FileManager.default.contentsOfDirectory(atPath: spill)) ?? []).isEmpty
            if spilling, Self.memoryMap(of: child.pid).contains(log) {
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

    /// `/proc/PID/maps`, read to its end with `read(2)` (its size shows as 0).
    static func memoryMap(of pid: pid_t) -> String {
        let descriptor = open("/proc/\(pid)/maps", O_RDONLY)
        guard descriptor >= 0 else { return "" }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func aFileBeyondTheShrinkRegistryIsReadNotMapped() throws {
        // A mapped file's shrinking is reported through a registry of 64 slots (a SIGBUS handler
        // in C). A 65th mapped file had no slot: cut short while it waited to be read, it killed
        // the run with SIGBUS. Such files are now read, not mapped. 66 files of 0.5 MB each
        // (33 MB: partitioned, and within the memory limit, so mapped); the last is cut short.
        let scratch = try TemporaryDirectory()
        let sample = try String(contentsOfFile: Repository.path("SampleLogs/clean/app-2026-11-20-upload1.ndjson"), encoding: .utf8)
        var paths: [String] = []
        var copy = 0
        for file in 0..<66 {
            var text = ""
            while text.utf8.count < 512 << 10 {
                text += sample.replacingOccurrences(of: "\"session_id\":\"s-", with: "\"session_id\":\"c\(copy)-s-")
                    .replacingOccurrences(of: "\"event_id\":\"", with: "\"event_id\":\"c\(copy)-")
                copy += 1
            }
            paths.append(try scratch.write(String(format: "f%02d.ndjson", file), text))
        }
        let child = try ChildProcess(try Executables.navreplay(), ["audit", "-q", "--format", "ndjson"] + paths)
        var mapped = false
        var maps = ""
        for _ in 0..<10_000 {
            maps = Self.memoryMap(of: child.pid)
            if maps.contains(paths[0]) {
                mapped = true
                break
            }
            usleep(1000)
        }
        #expect(truncate(paths[65], 4096) == 0)
        let outcome = child.wait()
        try #require(mapped, "the files were never mapped: \(outcome.exitStatus.map(String.init) ?? "signal") \(outcome.stderrText)")
        #expect(!maps.contains(paths[65]) && !maps.contains(paths[64]), "at most 64 files are mapped")
        #expect(outcome.signal == nil, "ended by signal \(outcome.signal ?? 0): \(outcome.stderrText)")
        #expect(outcome.exitStatus == 1, "a torn line in the file cut short: \(outcome.stderrText)")
    }

    @Test func withoutMmapTheFileIsReadNotMapped() throws {
        let scratch = try TemporaryDirectory()
        let log = try Self.largeLog(in: scratch)
        let child = try ChildProcess(try Executables.navreplay(), ["audit", "-q", "--no-mmap", "--format", "ndjson", log])
        var mapped = false
        var looks = 0
        while ChildProcess.highWaterBytes(of: child.pid) != nil {
            let maps = Self.memoryMap(of: child.pid)
            if !maps.isEmpty {
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
