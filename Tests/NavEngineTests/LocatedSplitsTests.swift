import Foundation
@testable import NavEngine
import NavInput
import NavReport
import NavResults
import NavTestSupport
import Testing

/// Located input as a distributed run makes it: several original files, each cut in splits
/// whose lines are numbered within the split (`locatedLineOffsets` gives each split's place),
/// shuffled into several physical inputs. Held in memory, partitioned (its inputs mapped, read
/// in chunks on every core or on one thread), the partitions spilled or not, it gives the audit
/// of the original files.
@Suite struct LocatedSplitsTests {
    @Test(arguments: ["in memory", "partitioned", "partitioned, one thread"])
    func splitsNumberedWithinThemselvesGiveTheOriginalLines(_ mode: String) throws {
        let directory = try AuditModesTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let originals = try AuditModesTests.replicatedLogs(copies: 4, in: directory) + [try AuditModesTests.trickyLog(in: directory)]
        // Two splits a file: the paths file lists a file once per split.
        var listed: [String] = []
        var offsets: [Int64] = []
        var located: [[String]] = [[], [], []]
        for original in originals {
            let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: original)))
            var lines = data.split(separator: 0x0A, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            let terminated = data.last == 0x0A
            if terminated { lines.removeLast() }
            let half = lines.count / 2
            for (start, end) in [(0, half), (half, lines.count)] {
                let split = listed.count
                listed.append(original)
                offsets.append(Int64(start))
                for number in start..<end {
                    let torn = !terminated && number == lines.count - 1
                    let line = "\(split)\t\(number - start + 1)\(torn ? "u" : "")\t" + lines[number]
                    located[(number * 7 + split) % located.count].append(line)
                }
            }
        }
        var physical: [String] = []
        for (index, lines) in located.enumerated() {
            let path = directory.appendingPathComponent("physical-\(index).ndjson").path
            try Data(lines.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: path))
            physical.append(path)
        }
        let reference = try AuditModesTests.runQuarantined(originals, in: directory) { $0.maxLineBytes = 2048 }
        let result = try AuditModesTests.runQuarantined(physical, in: directory) {
            $0.maxLineBytes = 2048
            $0.locatedPaths = listed
            $0.locatedLineOffsets = offsets
            $0.jobs = 2
            if mode != "in memory" {
                $0.tuning.partitionedInputBytes = 0
                $0.tuning.routingChunkBytes = 4096  // many chunks a file
            }
            if mode == "partitioned, one thread" { $0.tuning.routesInParallel = false }
        }
        // The lines read from shuffled inputs reach the quarantine, and the findings without a
        // session, in the order they were read (a distributed run sorts them): compared as sets.
        func lines(_ text: String) -> [Substring] { text.split(separator: "\n").sorted() }
        let findings = lines(String(decoding: result.findings, as: UTF8.self))
        let expected = lines(String(decoding: reference.findings, as: UTF8.self))
        #expect(findings == expected, "\(mode): \(Set(findings).symmetricDifference(expected).sorted().prefix(2))")
        let quarantine = lines(result.quarantine)
        #expect(quarantine == lines(reference.quarantine), "\(mode): \(quarantine.count) quarantined")
        #expect(result.run.counts.lines == reference.run.counts.lines)
        #expect(result.run.counts.findings == reference.run.counts.findings)
        #expect(result.run.counts.isBalanced)
        // Partitioned, some lines are referenced in their mapped input (an original file's lines
        // in the input first met with them), the others copied.
        let storage = result.run.storage
        #expect(mode == "in memory" || (storage.referencedLines > 0 && storage.referencedLines < storage.routedLines))
    }

    /// A file read in place (`InputWindow`, as `ingest` folds a batch's new lines) beside
    /// located input that holds its first lines: held in memory or partitioned (mapped, read in
    /// chunks on every core or on one thread), it gives the audit of the file. Partitioned, the
    /// window's lines are referenced in its mapping, though the located input is read first.
    @Test(arguments: ["in memory", "partitioned", "partitioned, one thread"])
    func aWindowBesideLocatedInputGivesTheFilesAudit(_ mode: String) throws {
        let directory = try AuditModesTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let original = try AuditModesTests.replicatedLogs(copies: 1, in: directory)[0]
        let tricky = try String(contentsOfFile: try AuditModesTests.trickyLog(in: directory), encoding: .utf8)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: original))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(tricky.utf8))  // CRLF, blank, over-long and torn lines
        try handle.close()
        let linesBefore = 3
        let facts = ReadFacts()
        var earlier = ""
        _ = try LineReader().readLines(of: original, copyingTo: nil, facts: facts) { line in
            if line.number <= linesBefore { earlier += "0\t\(line.number)\t" + String(decoding: line.bytes, as: UTF8.self) + "\n" }
        }
        let identity = try #require(facts.identity)
        // Named to be read before the file.
        let located = directory.appendingPathComponent("0-earlier.ndjson").path
        try Data(earlier.utf8).write(to: URL(fileURLWithPath: located))
        func configure(_ configuration: inout AuditConfiguration) {
            configuration.maxLineBytes = 2048
            configuration.jobs = 2
            if mode != "in memory" { configuration.tuning.partitionedInputBytes = 0 }
            if mode == "partitioned, one thread" { configuration.tuning.routesInParallel = false }
        }
        let reference = try AuditModesTests.runQuarantined([original], in: directory, configure: configure)
        let result = try AuditModesTests.runQuarantined([located, original], in: directory) {
            configure(&$0)
            $0.locatedPaths = [original]
            $0.inputWindows = [
                original: InputWindow(
                    linesBefore: Int64(linesBefore), readBytes: facts.bytes, takesTornTail: true, device: identity.device,
                    inode: identity.inode)
            ]
        }
        #expect(String(decoding: result.findings, as: UTF8.self) == String(decoding: reference.findings, as: UTF8.self), "\(mode)")
        #expect(result.quarantine == reference.quarantine, "\(mode)")
        #expect(result.run.counts.lines == reference.run.counts.lines)
        #expect(result.run.counts.isBalanced)
        if mode != "in memory" {
            let referenced = result.run.storage.referencedLines
            #expect(referenced >= reference.run.storage.referencedLines - Int64(linesBefore), "\(mode): \(referenced) referenced")
        }
    }

    /// A malformed prefix ends its input's reading at that line, read in chunks or on one
    /// thread: the same error, naming the physical line, and the lines before it audited.
    @Test func aMalformedPrefixEndsTheInputAtItsLineInChunksAsOnOneThread() throws {
        let directory = try AuditModesTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let original = try AuditModesTests.replicatedLogs(copies: 2, in: directory)[0]
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: original)))
        let originals = data.split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) }
        let bad = originals.count * 2 / 3
        let lines = originals.enumerated().map { index, line in (index == bad ? "0\tx\t" : "0\t\(index + 1)\t") + line }
        let physical = directory.appendingPathComponent("located.ndjson").path
        try Data(lines.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: physical))
        var outcomes: [(findings: [UInt8], run: AuditRun)] = []
        for parallel in [true, false] {
            let result = try AuditModesTests.run([physical]) {
                $0.locatedPaths = [original]
                $0.jobs = 2
                $0.tuning.partitionedInputBytes = 0
                $0.tuning.routingChunkBytes = 4096
                $0.tuning.routesInParallel = parallel
            }
            outcomes.append((result.findings, result.run))
        }
        let errors = outcomes.map { $0.run.fileReports.compactMap { $0.error?.message } }
        #expect(errors[0] == errors[1])
        #expect(errors[0].first?.contains("line \(bad + 1) is not located input") == true, "\(errors[0])")
        #expect(outcomes[0].findings == outcomes[1].findings)
        #expect(outcomes[0].run.counts.lines == Int64(bad) && outcomes[1].run.counts.lines == Int64(bad))
    }
}
