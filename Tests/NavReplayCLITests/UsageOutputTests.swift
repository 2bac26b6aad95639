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

    /// Each negative value reaches its option's own check, which says what is wrong with it,
    /// instead of "Missing value" (ArgumentParser takes `-1M` for an option).
    @Test(arguments: [
        (["audit", "--memory-limit", "-1M"], "The value '-1M' is invalid for '--memory-limit <size>': it must be positive"),
        (["audit", "--memory-limit=-1M"], "The value '-1M' is invalid for '--memory-limit <size>': it must be positive"),
        (["sessions", "--memory-limit", "0"], "it must be positive"),
        (["audit", "--jobs", "-1"], "Please give --jobs a number from 0 to 1024."),
        (["validate", "--max-line-bytes", "-5"], "Please give --max-line-bytes a number from 1 to"),
        (["report", "--worst", "-1"], "Please give --worst a number of 0 or more."),
        (["report", "--timeline-limit", "-2"], "Please give --timeline-limit a positive number."),
        (["audit", "--max-findings-per-session", "-1"], "Please give --max-findings-per-session a number of 0 or more."),
        (["audit", "--max-findings-per-session=-1"], "Please give --max-findings-per-session a number of 0 or more."),
    ])
    func aNegativeValueIsAUsageErrorThatSaysWhy(_ arguments: [String], _ message: String) throws {
        let result = try navreplay(arguments + ["SampleLogs/clean"])
        #expect(result.status == 2, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        #expect(!result.stderr.contains("Missing value"), "\(arguments): \(result.stderr)")
    }
}
