import Foundation
import NavInput
@testable import NavRuns
import NavTestSupport
import Testing

/// `SortedRecords`: an external merge sort by a comparison. Held in memory, in a few runs, or in
/// more runs than it keeps (merged into one on the way), records come back in order, equal ones
/// in the order they came, and nothing is left on disk.
@Suite struct SortedRecordsTests {
    struct Item: Equatable {
        var key: Int64
        var text: String
        /// The order the item came in: equal keys must keep it.
        var arrival: Int
    }

    static func sorter(_ files: ScratchFileSet, budget: Int) -> SortedRecords {
        SortedRecords(files: files, numbers: 0..<(SortedRecords.keptRuns + 1), budget: budget) { a, b in
            a.load(Int64.self, at: 0) < b.load(Int64.self, at: 0)
        }
    }

    static func append(_ item: Item, to sorter: SortedRecords) throws {
        try sorter.append { buffer in
            buffer.append(item.key)
            buffer.append(Int64(item.arrival))
            buffer.append(Array(item.text.utf8))
        }
    }

    static func decode(_ bytes: UnsafeBufferPointer<UInt8>) -> Item {
        Item(
            key: bytes.load(Int64.self, at: 0), text: String(decoding: UnsafeBufferPointer(rebasing: bytes[16...]), as: UTF8.self),
            arrival: Int(bytes.load(Int64.self, at: 8)))
    }

    @Test(arguments: [Int.max, 4_096, 1])
    func recordsComeBackInOrderEqualOnesAsTheyCame(budget: Int) throws {
        var random = SeededRandom(seed: UInt64(budget % 1000))
        let items = (0..<3_000).map { index in
            Item(key: Int64.random(in: -50...50, using: &random), text: String(repeating: "é", count: index % 7), arrival: index)
        }
        let files = try ScratchFileSet(in: nil, count: SortedRecords.keptRuns + 1, kinds: ["part-"])
        defer { files.remove() }
        let sorter = Self.sorter(files, budget: budget)
        for item in items { try Self.append(item, to: sorter) }
        if budget == .max { #expect(sorter.runCount == 0) }
        // A budget of one byte writes a run a record: past the runs it keeps, they are merged.
        if budget == 1 { #expect(sorter.runCount >= 1 && sorter.runCount <= SortedRecords.keptRuns) }
        var sorted: [Item] = []
        try sorter.drain { sorted.append(Self.decode($0)) }
        #expect(sorted == items.sorted { $0.key != $1.key ? $0.key < $1.key : $0.arrival < $1.arrival })
        let left = try FileManager.default.contentsOfDirectory(atPath: files.directory)
        #expect(left.isEmpty, "\(left)")
    }

    @Test func aRunCutShortIsAnError() throws {
        let files = try ScratchFileSet(in: nil, count: SortedRecords.keptRuns + 1, kinds: ["part-"])
        defer { files.remove() }
        let sorter = Self.sorter(files, budget: 1)
        for index in 0..<10 { try Self.append(Item(key: Int64(index), text: "x", arrival: index), to: sorter) }
        let run = files.path("part-", 0)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: run)[.size] as? NSNumber).intValue
        #expect(truncate(run, off_t(size - 1)) == 0)
        #expect(throws: InputError.self) { try sorter.drain { _ in } }
    }

    /// Cut at a record's end, a run gives back fewer records: an error, not a shorter sort.
    @Test func aRunThatLostWholeRecordsIsAnError() throws {
        let files = try ScratchFileSet(in: nil, count: SortedRecords.keptRuns + 1, kinds: ["part-"])
        defer { files.remove() }
        let sorter = Self.sorter(files, budget: 40)
        for index in 0..<10 { try Self.append(Item(key: Int64(index), text: "x", arrival: index), to: sorter) }
        let run = files.path("part-", 0)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: run)[.size] as? NSNumber).intValue
        #expect(size == 2 * (4 + 17))  // two records a run
        #expect(truncate(run, off_t(4 + 17)) == 0)
        #expect(throws: InputError.self) { try sorter.drain { _ in } }
    }
}
