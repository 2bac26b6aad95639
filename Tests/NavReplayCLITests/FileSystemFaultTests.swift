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
