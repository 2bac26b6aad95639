import Foundation
import NavTestSupport
import Testing

/// Help, the version and usage errors: written as every output is, and saying what is wrong
/// (issue 33, defects 7 and 8).
@Suite struct UsageOutputTests {
    /// Runs navreplay through /bin/sh with standard output on /dev/full: its status and what it
    /// wrote to standard error.
    private func runToAFullDisk(_ arguments: [String]) throws -> (status: Int32, stderr: String)? {
        guard let binary = Repository.binary, FileManager.default.isWritableFile(atPath: "/dev/full") else { return nil }
        let scratch = try TemporaryDirectory()
        let errors = scratch.path("stderr")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "'\(binary)' \(arguments.joined(separator: " ")) >/dev/full 2>'\(errors)'"]
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")
    }

    @Test(arguments: [["--help"], ["audit", "--help"], ["report", "-h"], ["help", "sessions"], ["--version"]])
    func helpOrAVersionThatCannotBeWrittenExitsTwo(_ arguments: [String]) throws {
        guard let (status, stderr) = try runToAFullDisk(arguments) else { return }
        #expect(status == 2, "\(arguments): \(stderr)")
        #expect(stderr.contains("No space left on device"), "\(arguments): \(stderr)")
    }
}
