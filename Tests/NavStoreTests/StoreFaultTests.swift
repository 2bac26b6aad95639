#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import NavModel
@testable import NavStore
import NavTestSupport
import Testing

/// A store on a file system that fills up (issue 46, item 10).
@Suite struct StoreFaultTests {
    /// A `tmpfs` of `bytes`, mounted for the test (root only), unmounted when it goes.
    final class Disk: Sendable {
        let path: String

        static let mountable: Bool = {
            guard geteuid() == 0, let disk = try? Disk(bytes: 64 << 10) else { return false }
            return FileManager.default.fileExists(atPath: disk.path)
        }()

        struct Unmountable: Error {}

        init(bytes: Int) throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("navreplay-disk-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            guard Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(bytes)", "tmpfs", path]) else {
                rmdir(path)
                throw Unmountable()
            }
        }

        deinit {
            _ = Self.run("/bin/umount", [path])
            rmdir(path)
        }

        /// Writes until no byte more fits.
        func fill() {
            let descriptor = open(path + "/filler", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            guard descriptor >= 0 else { return }
            defer { close(descriptor) }
            let block = [UInt8](repeating: 0x20, count: 4096)
            while block.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0 {}
            var byte: UInt8 = 0x20
            while write(descriptor, &byte, 1) > 0 {}
        }

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

    /// The batch commits, then the file system fills before its pages are copied from the
    /// write-ahead log: the failed copy is reported, naming the store, not passed over.
    @Test(.enabled(if: Disk.mountable, "mounting a tmpfs needs root"))
    func aCheckpointThatFailsOnAFullDiskIsReported() throws {
        let disk = try Disk(bytes: 24 << 20)
        let bench = try StoreBench()
        let path = disk.path + "/nav.db"
        let file = try bench.write("a.ndjson", (1...60).flatMap { IngestTests.session("s\($0)", pushes: 30) })
        var options = bench.options
        options.afterTheCommit = { disk.fill() }
        let store = try StoreFixture.open(path, model: .poc)
        let report = try Ingestion.run(store: store, paths: [file], options: options)
        #expect(report.batch == 1, "the batch commits")
        let error = #expect(throws: StoreError.self) { try store.waitForCheckpoint() }
        #expect(error?.description.contains("could not be copied from \(path)-wal") == true, "\(error.map { "\($0)" } ?? "")")
    }
}
