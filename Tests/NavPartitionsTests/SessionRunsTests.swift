import Foundation
import NavReplay
import NavTestSupport
import Testing

import NavInput
import NavRuns
import NavResults
import NavPartitions

@Suite("Pre-grouped sessions put back in order")
struct SessionRunsTests {
    /// Records of random sessions (some met twice), each with its own counts and output.
    static func records(seed: UInt64, count: Int) -> [SessionRuns.Record] {
        var random = SeededRandom(seed: seed)
        return (0..<count).map { index in
            var tally = SessionTally()
            tally.sessions = 1
            tally.events = Int64(index)
            tally.findings = index % 3
            if index % 3 > 0 {
                tally.findingsByRule = [Rule.allCases[index % Rule.allCases.count]: index % 3]
                tally.keptBySeverity = [.warning: index % 3]
            }
            let output = index % 4 == 0 ? [] : Array("output of \(index)\n".utf8)
            return SessionRuns.Record(
                key: SessionKey(model: Int(random.next() % 2), id: "s\(random.next() % UInt64(count / 2))"),
                start: LineLocation(file: Int32(index % 3), line: Int64(index)), tally: tally, output: output)
        }
    }

    static func describe(_ record: SessionRuns.Record) -> String {
        "\(record.key.model)/\(record.key.id) \(record.start.file):\(record.start.line) \(record.tally.events) \(record.tally.findings) "
            + "\(record.tally.findingsByRule) \(record.tally.keptBySeverity) \(record.output)"
    }

    @Test(arguments: [1 << 30, 4096, 0])
    func recordsComeBackInSessionOrderWhole(budget: Int) throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("runs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let records = Self.records(seed: UInt64(budget), count: 300)
        let runs = SessionRuns(budgetBytes: budget, temporaryDirectory: scratch.path)
        for record in records { try runs.add(record) }
        // Budget 0 writes a run per record: past 64 runs they are merged into one.
        if budget == 0 { #expect(runs.runCount < SessionRuns.maximumRuns && runs.runCount > 0) }
        if budget == 1 << 30 { #expect(runs.runCount == 0) }
        var drained: [String] = []
        try runs.drain { drained.append(Self.describe($0)) }
        // Session order; a session met twice in the order its records came.
        let expected = records.indices.sorted { records[$0].key != records[$1].key ? records[$0].key < records[$1].key : $0 < $1 }
        #expect(drained == expected.map { Self.describe(records[$0]) })
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).isEmpty, "run files removed")
    }

    @Test func countsComeBackFromTheirBytes() throws {
        for record in Self.records(seed: 7, count: 40) {
            var bytes: [UInt8] = []
            record.tally.encode(into: &bytes)
            var offset = 0
            let decoded = try #require(SessionTally(decoding: bytes, at: &offset))
            #expect(offset == bytes.count)
            #expect(decoded.findingsByRule == record.tally.findingsByRule && decoded.keptBySeverity == record.tally.keptBySeverity)
            #expect(decoded.events == record.tally.events && decoded.findings == record.tally.findings && decoded.sessions == 1)
            for end in 0..<bytes.count {
                var start = 0
                #expect(SessionTally(decoding: Array(bytes[..<end]), at: &start) == nil)
            }
        }
    }
}
