import Foundation
@testable import NavEngine
import NavReport
import NavResults
import NavTestSupport
import Testing

/// Located input as a distributed run makes it: several original files, each cut in splits
/// whose lines are numbered within the split (`locatedLineOffsets` gives each split's place),
/// shuffled into several physical inputs. Held in memory, partitioned (its inputs mapped), the
/// partitions spilled or not, it gives the audit of the original files.
@Suite struct LocatedSplitsTests {
    @Test(arguments: ["in memory", "partitioned", "partitioned, spilled"])
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
            if mode != "in memory" { $0.tuning.partitionedInputBytes = 0 }
            if mode == "partitioned, spilled" { $0.tuning.partitionMemory = 64 << 10 }
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
}
