#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import NavTestSupport
import Testing

/// `audit --format ndjson|text` and `sessions --format ndjson|csv` write their output while the
/// audit runs. What they write, the summary and the exit status are those of a collected run.
@Suite struct StreamedOutputTests {
    /// The sample logs, copied under other session ids, so that a small --memory-limit spills.
    static func replicated(_ scratch: TemporaryDirectory, copies: Int) throws -> String {
        let sample = try String(contentsOfFile: Repository.path("SampleLogs/violations/app-2026-11-20-broken.ndjson"), encoding: .utf8)
        var text = ""
        for copy in 0..<copies { text += sample.replacingOccurrences(of: "\"session_id\":\"s-", with: "\"session_id\":\"c\(copy)-s-") }
        return try scratch.write("big.ndjson", text + "not json\n")
    }

    /// Runs `command` (which writes `--output`) on the replicated log in memory, then spilled on
    /// two jobs; returns the two output files, each checked to have exited as the findings say.
    /// A run with errors among its findings and no --fail-on: 1, but 0 for the data exports.
    static func exitStatusWithFindings(_ command: [String]) -> Int32 {
        ["sessions", "report"].contains(command.first ?? "") ? 0 : 1
    }

    static func writtenInMemoryAndSpilled(_ command: [String], _ scratch: TemporaryDirectory, extension: String) throws -> [String] {
        let log = try replicated(scratch, copies: 150)
        var outputs: [String] = []
        for (name, options) in [("memory", [String]()), ("spilled", ["--memory-limit", "1M", "--jobs", "2"])] {
            let path = scratch.path(name + "." + `extension`)
            let result = try navreplay(command + ["--output", path] + options + [log])
            #expect(result.status == Self.exitStatusWithFindings(command), "\(result.stderr)")
            outputs.append(path)
        }
        return outputs
    }

    @Test(
        arguments: Repository.cases(
            [
                ["audit", "--format", "ndjson"], ["audit", "--format", "ndjson", "--explain"], ["audit", "--format", "text"],
                ["sessions", "--format", "ndjson"], ["sessions", "--format", "csv"],
            ], underSanitizer: 2))
    func spilledOutputIsTheInMemoryOutput(_ command: [String]) throws {
        let scratch = try TemporaryDirectory()
        let log = try Self.replicated(scratch, copies: 150)
        let inMemory = try navreplay(command + ["--summary", scratch.path("a.json"), log])
        let spilled = try navreplay(command + ["--memory-limit", "1M", "--jobs", "2", "--summary", scratch.path("b.json"), log])
        #expect(inMemory.status == Self.exitStatusWithFindings(command), "\(inMemory.stderr)")
        #expect(spilled.status == inMemory.status, "\(spilled.stderr)")
        #expect(!inMemory.stdout.isEmpty)
        #expect(spilled.stdout == inMemory.stdout)
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: scratch.path("a.json")))
                == Data(contentsOf: URL(fileURLWithPath: scratch.path("b.json"))))
    }

    @Test func theExitStatusFollowsTheWrittenFindingsSeverities() throws {
        // The clean sample has no finding; a seq gap alone is a warning.
        let scratch = try TemporaryDirectory()
        let clean = try String(contentsOfFile: Repository.path("SampleLogs/clean/app-2026-11-20-upload1.ndjson"), encoding: .utf8)
        var lines = clean.split(separator: "\n").map(String.init)
        let gapAt = try #require(lines.firstIndex { $0.contains("\"seq\":3,") })
        lines.remove(at: gapAt)
        let log = try scratch.write("gap.ndjson", lines.joined(separator: "\n") + "\n")
        let failOnError = try navreplay(["audit", "--format", "ndjson", "-q", log])
        #expect(failOnError.stdout.contains("\"severity\":\"warning\""), "\(failOnError.stdout)")
        #expect(!failOnError.stdout.contains("\"severity\":\"error\""), "\(failOnError.stdout)")
        #expect(failOnError.status == 0)
        #expect(try navreplay(["audit", "--format", "ndjson", "-q", "--fail-on", "warning", log]).status == 1)
        let none = try navreplay(["audit", "--format", "text", "-q", Repository.path("SampleLogs/clean")])
        #expect(none.status == 0)
        #expect(none.stdout == "no findings\n")
    }

    @Test func anOutputFileAppearsOnlyWhenComplete() throws {
        let scratch = try TemporaryDirectory()
        let log = try Self.replicated(scratch, copies: 20)
        let output = scratch.path("findings.ndjson")
        let written = try navreplay(["audit", "--format", "ndjson", "-q", "--output", output, log])
        #expect(written.status == 1)
        let text = try String(contentsOfFile: output, encoding: .utf8)
        #expect(text == (try navreplay(["audit", "--format", "ndjson", "-q", log])).stdout)
        // A run that fails (its spill directory does not exist) leaves neither the file nor a part of it.
        let failedOutput = scratch.path("failed.ndjson")
        let failed = try navreplay(
            [
                "audit", "--format", "ndjson", "-q", "--memory-limit", "1K", "--temp-dir", scratch.path("missing"), "--output",
                failedOutput, log,
            ])
        #expect(failed.status == 2, "\(failed.stderr)")
        #expect(failed.stderr.contains("spill"), "\(failed.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).sorted() == ["big.ndjson", "findings.ndjson"])
    }
}

/// `--output` to something other than a regular file is written through, never replaced.
@Suite struct OutputTargetTests {
    @Test func aSymbolicLinkStaysALinkAndItsTargetGetsTheOutput() throws {
        let scratch = try TemporaryDirectory()
        let target = try scratch.write("target.ndjson", "STALE-MARKER\n")
        let link = scratch.path("link.ndjson")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let result = try navreplay(["audit", "--format", "ndjson", "-q", "--output", link, Repository.path("SampleLogs/violations")])
        #expect(result.status == 1, "\(result.stderr)")
        let attributes = try FileManager.default.attributesOfItem(atPath: link)
        #expect(attributes[.type] as? FileAttributeType == .typeSymbolicLink)
        let written = try String(contentsOfFile: target, encoding: .utf8)
        #expect(written.hasPrefix("{\"rule\":"), "\(written.prefix(80))")
        #expect(!written.contains("STALE-MARKER"))
        // Output written at once (not streamed) and the summary go the same way.
        let summaryLink = scratch.path("summary-link.json")
        let summaryTarget = try scratch.write("summary.json", "")
        try FileManager.default.createSymbolicLink(atPath: summaryLink, withDestinationPath: summaryTarget)
        let document = try navreplay(
            ["sessions", "--format", "json", "-q", "--output", link, "--summary", summaryLink, Repository.path("SampleLogs/clean")])
        #expect(document.status == 0, "\(document.stderr)")
        #expect(try FileManager.default.attributesOfItem(atPath: link)[.type] as? FileAttributeType == .typeSymbolicLink)
        #expect(try FileManager.default.attributesOfItem(atPath: summaryLink)[.type] as? FileAttributeType == .typeSymbolicLink)
        #expect(try String(contentsOfFile: target, encoding: .utf8).hasPrefix("[{"))
        #expect(try String(contentsOfFile: summaryTarget, encoding: .utf8).hasPrefix("{\"files\""))
    }

    @Test func aFIFOStaysAFIFOAndItsReaderGetsTheOutput() throws {
        let scratch = try TemporaryDirectory()
        let fifo = scratch.path("out.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        // Read the FIFO on another thread while navreplay writes to it.
        nonisolated(unsafe) var received = Data()
        let reader = Thread {
            if let handle = FileHandle(forReadingAtPath: fifo) { received = handle.readDataToEndOfFile() }
        }
        reader.start()
        let result = try navreplay(["sessions", "--format", "csv", "-q", "--output", fifo, Repository.path("SampleLogs/clean")])
        while !reader.isFinished { usleep(1000) }
        #expect(result.status == 0, "\(result.stderr)")
        var status = stat()
        #expect(lstat(fifo, &status) == 0 && (status.st_mode & S_IFMT) == S_IFIFO, "the FIFO was replaced")
        #expect(String(decoding: received, as: UTF8.self).hasPrefix("session_id,events,"))
        #expect(!FileManager.default.fileExists(atPath: fifo + ".navreplay-partial"))
    }
}
