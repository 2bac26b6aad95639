import Foundation
#if canImport(Glibc)
    import Glibc
#endif
@testable import NavInput
import Testing

/// `LineReader.readWholeFile` reads a partition (or a `/proc` file) into one buffer, sized by
/// `fstat`, and reads on in pieces when the file holds more than its size said.
@Suite struct ReadWholeFileTests {
    /// A folder of its own, removed by the caller.
    static func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("navreplay-read-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test(arguments: [0, 1, 4095, 4096, 4097, 1 << 20])
    func aFileComesBackByteForByte(size: Int) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let content = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
        let path = folder + "/f"
        try Data(content).write(to: URL(fileURLWithPath: path))
        var bytes: [UInt8] = Array(repeating: 7, count: 100)  // a previous file's bytes go
        try LineReader.readWholeFile(path, into: &bytes)
        #expect(bytes == content)
    }

    /// A FIFO has no size: everything written to it comes back, past the first 4 KiB.
    @Test func aFileLargerThanItsSizeIsReadToItsEnd() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/fifo"
        try #require(mkfifo(path, 0o600) == 0)
        let content = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 % 251) }
        let writer = Thread {
            let descriptor = open(path, O_WRONLY)
            guard descriptor >= 0 else { return }
            content.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let count = write(descriptor, bytes.baseAddress! + offset, min(10_000, bytes.count - offset))
                    if count <= 0 { break }
                    offset += count
                }
            }
            close(descriptor)
        }
        writer.start()
        var bytes: [UInt8] = []
        try LineReader.readWholeFile(path, into: &bytes)
        #expect(bytes == content)
    }

    @Test func aMissingFileIsNamed() throws {
        var bytes: [UInt8] = []
        #expect(throws: InputError.self) { try LineReader.readWholeFile("/nonexistent/navreplay-test", into: &bytes) }
    }
}
