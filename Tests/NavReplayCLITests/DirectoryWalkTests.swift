import Foundation
import NavTestSupport
import Testing

/// What a directory argument stands for: the logs under it, through symbolic links to files and
/// to directories, each directory once; what is named like a log but is no file (a FIFO, a
/// device) is skipped with a warning that names it, since reading it could block or never end
/// (issue 33, defect 3).
@Suite struct DirectoryWalkTests {
    /// Runs navreplay as a child that is killed if it is still running after 30 seconds: a walk
    /// that opens a FIFO or reads /dev/zero never ends on its own.
    private func audit(_ arguments: [String], summary: String) throws -> ChildProcess.Outcome {
        let child = try ChildProcess(try Executables.navreplay(), ["audit", "--format", "ndjson", "--summary", summary] + arguments)
        return child.wait(killingAfter: 30)
    }

    @Test func aFIFOOrADeviceFoundInADirectoryIsSkippedWithAWarningNamingIt() throws {
        let scratch = try TemporaryDirectory()
        let logs = scratch.path("logs")
        try FileManager.default.createDirectory(atPath: logs, withIntermediateDirectories: true)
        _ = try scratch.write("logs/a.ndjson", Lines.clean)
        #expect(mkfifo(logs + "/fifo.ndjson", 0o600) == 0)
        try FileManager.default.createSymbolicLink(atPath: logs + "/zero.ndjson", withDestinationPath: "/dev/zero")
        let summary = scratch.path("summary.json")
        let outcome = try audit([logs], summary: summary)
        #expect(outcome.signal == nil, "the run did not end: \(outcome.stderrText)")
        #expect(outcome.exitStatus == 0, "\(outcome.stderrText)")
        for name in ["fifo.ndjson: skipped: a FIFO", "zero.ndjson: skipped: a character device"] {
            #expect(outcome.stderrText.contains("navreplay: warning: \(logs)/\(name), not a regular file"), "\(outcome.stderrText)")
        }
        let counts = try Summary(path: summary)
        #expect(counts["files"] == 1 && counts["events"] == 2, "\(counts.json)")
        // --quiet drops the warnings, as it drops every warning about inputs.
        let quiet = try ChildProcess(try Executables.navreplay(), ["audit", "-q", logs]).wait(killingAfter: 30)
        #expect(quiet.exitStatus == 0 && quiet.stderrText.isEmpty, "\(quiet.stderrText)")
    }

    @Test func aFIFONamedOnTheCommandLineIsStillRead() throws {
        let scratch = try TemporaryDirectory()
        let fifo = scratch.path("named.ndjson")
        #expect(mkfifo(fifo, 0o600) == 0)
        let child = try ChildProcess(try Executables.navreplay(), ["audit", "--format", "ndjson", fifo])
        let writer = open(fifo, O_WRONLY)
        try #require(writer >= 0)
        _ = Lines.clean.utf8CString.withUnsafeBufferPointer { write(writer, $0.baseAddress!, $0.count - 1) }
        close(writer)
        let outcome = child.wait(killingAfter: 30)
        #expect(outcome.exitStatus == 0, "\(outcome.stderrText)")
        #expect(!outcome.stderrText.contains("skipped"), "\(outcome.stderrText)")
    }

    @Test(arguments: ["", "/"])
    func aDirectoryArgumentThatIsALinkIsWalked(_ suffix: String) throws {
        let scratch = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: scratch.path("real/app"), withIntermediateDirectories: true)
        _ = try scratch.write("real/app/a.ndjson", Lines.clean)
        let link = scratch.path("link")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: scratch.path("real"))
        let summary = scratch.path("summary.json")
        let outcome = try audit([link + suffix], summary: summary)
        #expect(outcome.exitStatus == 0, "\(outcome.stderrText)")
        #expect(try Summary(path: summary)["events"] == 2, "\(outcome.stderrText)")
    }

    @Test func aLinkedSubdirectoryIsWalkedOnceAndALoopEnds() throws {
        let scratch = try TemporaryDirectory()
        let fileManager = FileManager.default
        try fileManager.createDirectory(atPath: scratch.path("elsewhere"), withIntermediateDirectories: true)
        try fileManager.createDirectory(atPath: scratch.path("logs/2026-11-20"), withIntermediateDirectories: true)
        // Each with a line that is not JSON: its finding names the file's path.
        let other = Lines.clean.replacingOccurrences(of: "\"s\"", with: "\"t\"").replacingOccurrences(of: "\"e0\"", with: "\"f0\"")
            .replacingOccurrences(of: "\"e1\"", with: "\"f1\"")
        _ = try scratch.write("elsewhere/b.ndjson", other + "not json\n")
        _ = try scratch.write("logs/2026-11-20/a.ndjson", Lines.clean + "not json\n")
        // A linked folder from elsewhere; a second path to a folder walked already (sorted
        // before it); a link back up the tree.
        try fileManager.createSymbolicLink(atPath: scratch.path("logs/archive"), withDestinationPath: scratch.path("elsewhere"))
        try fileManager.createSymbolicLink(atPath: scratch.path("logs/0-latest"), withDestinationPath: "2026-11-20")
        try fileManager.createSymbolicLink(atPath: scratch.path("logs/2026-11-20/up"), withDestinationPath: "..")
        let summary = scratch.path("summary.json")
        let outcome = try audit([scratch.path("logs")], summary: summary)
        #expect(outcome.signal == nil, "the walk did not end")
        #expect(outcome.exitStatus == 1, "\(outcome.stderrText)")
        let counts = try Summary(path: summary)
        #expect(counts["files"] == 2 && counts["sessions"] == 2 && counts["events"] == 4, "\(counts.json)")
        #expect(counts["findings"] == 2, "only the two lines that are not JSON: \(outcome.stdoutText)")
        // Each file under the directory's own path, not a second link's.
        for path in ["logs/2026-11-20/a.ndjson", "logs/archive/b.ndjson"] {
            #expect(outcome.stdoutText.contains(#""file":"\#(scratch.path(path))""#), "\(outcome.stdoutText)")
        }
        for skipped in ["logs/0-latest", "logs/2026-11-20/up"] {
            #expect(
                outcome.stderrText.contains("\(scratch.path(skipped)): skipped: a directory that is read already"), "\(outcome.stderrText)")
        }
    }
}
