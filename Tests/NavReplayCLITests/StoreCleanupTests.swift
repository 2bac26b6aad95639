#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import NavTestSupport
import Testing

/// What a store's commands leave behind, and what they say (issue 46, item 10).
@Suite(.serialized) struct StoreCleanupTests {
    /// The host part of a spill directory's name, as `ScratchDirectory` makes it.
    static var host: String {
        var bytes = [CChar](repeating: 0, count: 256)
        guard gethostname(&bytes, bytes.count - 1) == 0 else { return "host" }
        let name = String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let kept = name.unicodeScalars.filter { $0.isASCII && CharacterSet.alphanumerics.contains($0) }
        return kept.isEmpty ? "host" : String(String.UnicodeScalarView(kept.prefix(24)))
    }

    /// A spill directory left by a process killed with SIGKILL is removed by the next run that
    /// makes one in the same place; a live process's, and one of an unknown name, are left.
    @Test func aDeadProcesssSpillDirectoryIsRemovedAtTheNextStart() throws {
        let scratch = try TemporaryDirectory()
        let base = scratch.path("tmp")
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        let finished = Process()
        finished.executableURL = URL(fileURLWithPath: "/bin/true")
        try finished.run()
        finished.waitUntilExit()
        let dead = base + "/navreplay-spill-\(Self.host)-\(finished.processIdentifier)-abc"
        let live = base + "/navreplay-spill-\(Self.host)-\(getpid())-def"
        let unknown = base + "/navreplay-spill-xyz"
        for directory in [dead, live, unknown] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            _ = try scratch.write(String(directory.dropFirst(scratch.path("").count)) + "/part-0", String(repeating: "x", count: 4096))
        }
        let log = try scratch.write("night.ndjson", Lines.clean)
        let result = try navreplay(["ingest", "--store", scratch.path("s.db"), "--temp-dir", base, "--quiet", log])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dead), "the dead process's spill directory is left")
        #expect(FileManager.default.fileExists(atPath: live + "/part-0"))
        #expect(FileManager.default.fileExists(atPath: unknown + "/part-0"))
        let left = try FileManager.default.contentsOfDirectory(atPath: base).sorted()
        #expect(left == [live, unknown].map { ($0 as NSString).lastPathComponent }.sorted(), "\(left)")
    }

    /// `audit --store` on a full file system reads the store (it needs no `-shm` then) and
    /// leaves no file beside it.
    @Test(.enabled(if: SmallFileSystem.unavailable == nil, "mounting a small file system needs root"))
    func aStoreOnAFullFileSystemIsReadAndNothingIsLeft() throws {
        let disk = try SmallFileSystem(bytes: 16 << 20)
        let store = disk.path + "/nav.db"
        let log = Repository.path("SampleLogs/violations")
        #expect(try navreplay(["ingest", "-q", "--store", store, "--fail-on", "never", log]).status == 0)
        let before = try StoreFileSystemFaultTests.contents(store)
        disk.fill()
        let audit = try navreplay(["audit", "--store", store, "--format", "ndjson"])
        #expect(!audit.stderr.contains("disk I/O error"), "\(audit.stderr)")
        #expect(try StoreFileSystemFaultTests.contents(store) == before)
        #expect(disk.entries() == ["nav.db"], "left \(disk.entries())")
    }
}
