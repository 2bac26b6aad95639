#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import NavTestSupport
import Testing

/// `navreplay` writing to a file system that is full or read-only: every output (`--output`,
/// `--summary`, `--quarantine`, `--write-baseline`, the sessions database, the report) and the
/// spill files of `--temp-dir` end the run with exit status 2 and an error naming the path, and
/// leave no partial file behind. The file systems are small `tmpfs` mounts (or loop-mounted ext4
/// images) made by the tests, which needs root: elsewhere the full file system is skipped, and
/// the read-only one is a directory without write permission.
@Suite struct FileSystemFaultTests {
    /// Every output of every command that writes one, given `path` (in the faulty file system).
    static func outputs(_ log: String) -> [(name: String, arguments: (String) -> [String])] {
        [
            ("audit --output (text)", { ["audit", "-q", "-o", $0, log] }),
            ("audit --output (json)", { ["audit", "-q", "--format", "json", "-o", $0, log] }),
            ("audit --output (sarif)", { ["audit", "-q", "--format", "sarif", "-o", $0, log] }),
            ("validate --output (ndjson)", { ["validate", "-q", "--format", "ndjson", "-o", $0, log] }),
            ("sessions --output (csv)", { ["sessions", "-q", "--format", "csv", "-o", $0, log] }),
            ("sessions --format sqlite", { ["sessions", "-q", "--format", "sqlite", "-o", $0, log] }),
            ("report --output", { ["report", "-q", "-o", $0, log] }),
            ("audit --summary", { ["audit", "-q", "--format", "ndjson", "--summary", $0, log] }),
            ("audit --quarantine", { ["audit", "-q", "--format", "ndjson", "--quarantine", $0, log] }),
            ("audit --write-baseline", { ["audit", "-q", "--format", "ndjson", "--write-baseline", $0, log] }),
        ]
    }

    /// A log whose every output is far larger than the full file system's room: thousands of
    /// sessions, each with findings and an invalid line.
    static func largeLog(_ scratch: TemporaryDirectory) throws -> String {
        var text = ""
        for session in 0..<3000 {
            text += Lines.start.replacingOccurrences(of: #""session_id":"s""#, with: #""session_id":"s\#(session)""#) + "\n"
            text +=
                Lines.push(seq: 2, route: "nowhere").replacingOccurrences(of: #""session_id":"s""#, with: #""session_id":"s\#(session)""#)
                + "\n"
            text += #"{"schema_version":1,"event_id":"broken-\#(session)""# + "\n"
        }
        return try scratch.write("large.ndjson", text)
    }

    @Test(.enabled(if: SmallFileSystem.unavailable == nil, "mounting a small file system needs root"))
    func anOutputOnAFullFileSystemIsAnErrorAndLeavesNothing() throws {
        let scratch = try TemporaryDirectory()
        let log = try Self.largeLog(scratch)
        for output in Self.outputs(log) {
            let full = try SmallFileSystem(bytes: 64 << 10)
            full.fill()
            let path = full.path + "/out"
            let result = try navreplay(output.arguments(path))
            #expect(result.status == 2, "\(output.name): exit \(result.status), \(result.stderr.suffix(300))")
            #expect(result.stderr.contains(path), "\(output.name): the error names no path: \(result.stderr.suffix(300))")
            // SQLite says it its own way.
            let saysFull = result.stderr.contains("No space left on device") || result.stderr.contains("database or disk is full")
            #expect(saysFull, "\(output.name): \(result.stderr.suffix(300))")
            #expect(full.entries() == [], "\(output.name): left \(full.entries())")
        }
    }

    @Test(.enabled(if: SmallFileSystem.unavailable == nil, "mounting a small file system needs root"))
    func spillFilesOnAFullFileSystemAreAnErrorAndLeaveNothing() throws {
        let scratch = try TemporaryDirectory()
        let log = try SpillCleanupTests.manySessions(scratch)
        let full = try SmallFileSystem(bytes: 256 << 10)
        let result = try navreplay(["audit", "-q", "--format", "ndjson", "--memory-limit", "1M", "--temp-dir", full.path, log])
        #expect(result.status == 2, "exit \(result.status), \(result.stderr.suffix(300))")
        #expect(result.stderr.contains(full.path), "the error names no path: \(result.stderr.suffix(300))")
        #expect(result.stderr.contains("No space left on device"), "\(result.stderr.suffix(300))")
        #expect(full.entries() == [], "left \(full.entries())")
    }

    @Test func anOutputOnAReadOnlyFileSystemIsAnError() throws {
        let scratch = try TemporaryDirectory()
        let log = try scratch.write("clean.ndjson", Lines.clean + #"{"broken"# + "\n")
        let readOnly = try ReadOnlyDirectory(scratch)
        for output in Self.outputs(log) {
            let path = readOnly.path + "/out"
            let result = try navreplay(output.arguments(path))
            #expect(result.status == 2, "\(output.name): exit \(result.status), \(result.stderr.suffix(300))")
            #expect(result.stderr.contains(path), "\(output.name): the error names no path: \(result.stderr.suffix(300))")
            #expect(readOnly.entries() == [], "\(output.name): left \(readOnly.entries())")
        }
        let spill = try navreplay([
            "audit", "-q", "--memory-limit", "1M", "--temp-dir", readOnly.path, try SpillCleanupTests.manySessions(scratch),
        ])
        #expect(spill.status == 2, "--temp-dir: exit \(spill.status), \(spill.stderr.suffix(300))")
        #expect(spill.stderr.contains(readOnly.path), "--temp-dir: the error names no path: \(spill.stderr.suffix(300))")
    }
}

/// `navreplay ingest` with its store or its temporary files on a full or read-only file
/// system: exit status 2, an error naming the path, and the store as the last batch left it.
@Suite struct StoreFileSystemFaultTests {
    /// What a store holds, as `audit --store` and `sessions --store` write it.
    static func contents(_ store: String) throws -> String {
        let audit = try navreplay(["audit", "--store", store, "--format", "ndjson"])
        let sessions = try navreplay(["sessions", "--store", store, "--format", "ndjson"])
        return "\(audit.status)\n\(audit.stdout)\(sessions.status)\n\(sessions.stdout)"
    }

    @Test(.enabled(if: SmallFileSystem.unavailable == nil, "mounting a small file system needs root"))
    func aBatchOnAFullFileSystemIsAnErrorAndTheStoreKeepsTheBatchBefore() throws {
        let scratch = try TemporaryDirectory()
        let first = try scratch.write("night1.ndjson", Lines.clean)
        let large = try FileSystemFaultTests.largeLog(scratch)
        let disk = try SmallFileSystem(bytes: 16 << 20)
        let store = disk.path + "/nav.db"
        #expect(try navreplay(["ingest", "-q", "--store", store, first]).status == 0)
        let before = try Self.contents(store)
        disk.fill()
        let result = try navreplay(["ingest", "-q", "--store", store, large])
        #expect(result.status == 2, "exit \(result.status), \(result.stderr.suffix(300))")
        #expect(result.stderr.contains(store), "the error names no store: \(result.stderr.suffix(300))")
        // SQLite says it its own way, or gives the system's reason.
        let saysFull = result.stderr.contains("database or disk is full") || result.stderr.contains("No space left on device")
        #expect(saysFull, "\(result.stderr.suffix(300))")
        disk.empty()
        #expect(try Self.contents(store) == before, "the failed batch changed the store")
        // The batch's temporary files on the full file system, the store elsewhere.
        let elsewhere = scratch.path("nav.db")
        #expect(try navreplay(["ingest", "-q", "--store", elsewhere, first]).status == 0)
        disk.fill()
        let spilled = try navreplay(["ingest", "-q", "--store", elsewhere, "--memory-limit", "1M", "--temp-dir", disk.path, large])
        #expect(spilled.status == 2, "--temp-dir: exit \(spilled.status), \(spilled.stderr.suffix(300))")
        #expect(spilled.stderr.contains(disk.path), "--temp-dir: the error names no path: \(spilled.stderr.suffix(300))")
        #expect(spilled.stderr.contains("No space left on device"), "--temp-dir: \(spilled.stderr.suffix(300))")
        #expect(disk.entries().filter { !$0.hasPrefix("nav.db") } == [], "left \(disk.entries())")
        #expect(try Self.contents(elsewhere) == before)
    }

    @Test func aStoreOnAReadOnlyPathIsAnError() throws {
        let scratch = try TemporaryDirectory()
        let log = try scratch.write("night1.ndjson", Lines.clean)
        let readOnly = try ReadOnlyDirectory(scratch)
        let store = readOnly.path + "/nav.db"
        let result = try navreplay(["ingest", "-q", "--store", store, log])
        #expect(result.status == 2, "exit \(result.status), \(result.stderr.suffix(300))")
        #expect(result.stderr.contains(store), "the error names no store: \(result.stderr.suffix(300))")
        #expect(readOnly.entries() == [], "left \(readOnly.entries())")
    }

    /// A store on a file system remounted read-only is read as it is, and refuses a batch.
    @Test(.enabled(if: SmallFileSystem.unavailable == nil, "mounting a small file system needs root"))
    func aStoreOnAReadOnlyFileSystemIsReadAndNotWritten() throws {
        let scratch = try TemporaryDirectory()
        let disk = try SmallFileSystem(bytes: 16 << 20)
        let store = disk.path + "/nav.db"
        #expect(try navreplay(["ingest", "-q", "--store", store, try scratch.write("night1.ndjson", Lines.clean)]).status == 0)
        let before = try Self.contents(store)
        #expect(disk.remountReadOnly())
        #expect(try Self.contents(store) == before)
        let result = try navreplay(["ingest", "-q", "--store", store, try scratch.write("night2.ndjson", Lines.clean)])
        #expect(result.status == 2, "exit \(result.status), \(result.stderr.suffix(300))")
        #expect(result.stderr.contains("The store \(store) cannot be written"), "\(result.stderr.suffix(300))")
        #expect(disk.entries() == ["nav.db"])
    }

    /// A store whose last batch is still in its write-ahead log (its writer killed before the
    /// log was copied into it) cannot be read in place on a read-only file system: the error
    /// says what to do.
    @Test(
        .enabled(if: SmallFileSystem.unavailable == nil, "mounting a small file system needs root"),
        .enabled(if: IngestCommandTests.sqlite3Available, "no sqlite3 shell (scripts/install-test-deps installs it)"))
    func aStoreWithABatchInItsLogOnAReadOnlyFileSystemIsAClearError() throws {
        let scratch = try TemporaryDirectory()
        let disk = try SmallFileSystem(bytes: 16 << 20)
        let store = disk.path + "/nav.db"
        #expect(try navreplay(["ingest", "-q", "--store", store, try scratch.write("night1.ndjson", Lines.clean)]).status == 0)
        // A writer killed after its commit, before the log was copied into the store.
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        writer.arguments = ["sqlite3", store]
        let input = Pipe()
        writer.standardInput = input
        writer.standardOutput = FileHandle.nullDevice
        try writer.run()
        input.fileHandleForWriting.write(
            Data("PRAGMA wal_autocheckpoint = 0;\nINSERT INTO meta (key, value) VALUES ('test', 'a batch');\n".utf8))
        let deadline = Date().addingTimeInterval(10)
        while ((try? FileManager.default.attributesOfItem(atPath: store + "-wal")[.size] as? Int) ?? 0) == 0, Date() < deadline {
            usleep(20_000)
        }
        kill(writer.processIdentifier, SIGKILL)
        writer.waitUntilExit()
        #expect(disk.remountReadOnly())
        let result = try navreplay(["audit", "--store", store])
        #expect(result.status == 2, "exit \(result.status), \(result.stderr.suffix(300))")
        #expect(result.stderr.contains("its last batch is still in \(store)-wal"), "\(result.stderr.suffix(300))")
    }
}

/// A small file system mounted for a test (a `tmpfs`, else an ext4 image on a loop device),
/// unmounted when the value goes.
final class SmallFileSystem {
    let path: String
    private let image: String?

    /// Why no file system can be mounted here, or `nil` when one can (tried once).
    static let unavailable: String? = {
        guard geteuid() == 0 else { return "not root" }
        do {
            _ = try SmallFileSystem(bytes: 64 << 10)
            return nil
        } catch {
            return "\(error)"
        }
    }()

    struct MountFailed: Error, CustomStringConvertible {
        var description: String
    }

    init(bytes: Int, readOnly: Bool = false) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("navreplay-fs-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        let options = "size=\(bytes)" + (readOnly ? ",ro" : "")
        if Self.run("/bin/mount", ["-t", "tmpfs", "-o", options, "tmpfs", path]) {
            image = nil
            return
        }
        // No tmpfs here (a container may refuse it): an ext4 image on a loop device.
        let file = path + ".img"
        guard Self.run("/usr/bin/truncate", ["-s", "\(max(bytes, 1 << 20))", file]), Self.run("/sbin/mkfs.ext4", ["-q", "-F", file]),
            Self.run("/bin/mount", ["-o", "loop" + (readOnly ? ",ro" : ""), file, path])
        else {
            unlink(file)
            rmdir(path)
            throw MountFailed(description: "neither a tmpfs nor a loop device could be mounted on \(path)")
        }
        image = file
    }

    deinit {
        _ = Self.run("/bin/umount", [path])
        rmdir(path)
        if let image { unlink(image) }
    }

    /// What the file system holds (`lost+found` of an ext4 image and `fill`'s file aside).
    func entries() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { $0 != "lost+found" && $0 != "filler" }.sorted()
    }

    /// Fills the file system: no byte more can be written.
    func fill() {
        let descriptor = open(path + "/filler", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let block = [UInt8](repeating: 0x20, count: 4096)
        while block.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0 {}
        var byte: UInt8 = 0x20
        while write(descriptor, &byte, 1) > 0 {}
    }

    /// Mounts the file system again, read-only.
    func remountReadOnly() -> Bool { Self.run("/bin/mount", ["-o", "remount,ro", path]) }

    /// Removes what `fill` wrote.
    func empty() { unlink(path + "/filler") }

    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}

/// A directory nothing can be written in: a read-only `tmpfs` where one can be mounted (root
/// writes through permissions), else a directory without write permission.
final class ReadOnlyDirectory {
    private let mounted: SmallFileSystem?
    private let plain: String?

    init(_ scratch: TemporaryDirectory) throws {
        if SmallFileSystem.unavailable == nil {
            mounted = try SmallFileSystem(bytes: 64 << 10, readOnly: true)
            plain = nil
        } else {
            let path = scratch.path("read-only")
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            chmod(path, 0o555)
            mounted = nil
            plain = path
        }
    }

    deinit { if let plain { chmod(plain, 0o755) } }

    var path: String { mounted?.path ?? plain! }

    func entries() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
}
