import NavTestSupport
import Testing

@testable import NavReport

/// `Leaders` keeps the first N of any number of elements: the report's `--worst N`.
@Suite struct LeadersTests {
    /// The reference: every element sorted (stably), then the first `count`.
    static func reference(_ elements: [(key: Int, tag: Int)], count: Int) -> [(key: Int, tag: Int)] {
        Array(
            elements.enumerated().sorted { ($0.element.key, $0.offset) < ($1.element.key, $1.offset) }.map(\.element).prefix(max(0, count)))
    }

    @Test(arguments: 0..<20)
    func keepsTheFirstNInOrderAndTiesByArrival(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let elements = (0..<Int.random(in: 0...300, using: &random)).map { tag in (key: Int.random(in: 0...20, using: &random), tag: tag) }
        for count in [0, 1, 3, 50, 1_000, Int.max] {
            var leaders = Leaders<(key: Int, tag: Int)>(keeping: count) { $0.key < $1.key }
            for element in elements { leaders.add(element) }
            let expected = Self.reference(elements, count: count)
            #expect(leaders.ranked.map(\.tag) == expected.map(\.tag), "seed \(seed), count \(count)")
        }
    }

    @Test func aRemovedLeaderLeavesItsPlaceToTheNextElement() {
        var leaders = Leaders<Int>(keeping: 3, by: <)
        for value in [5, 1, 4, 2, 3] { leaders.add(value) }
        leaders.removeAll { $0 == 1 }
        #expect(leaders.ranked == [2, 3])
        leaders.add(9)
        #expect(leaders.ranked == [2, 3, 9])
        leaders.add(0)
        #expect(leaders.ranked == [0, 2, 3])
    }

    /// Keeping a large N costs O(n log n) comparisons, not O(n × N): 20,000 sessions with
    /// `--worst 1000000` made about 2 × 10^8 comparisons in a list kept sorted by insertion.
    @Test func manyLeadersCostNLogNComparisons() {
        var comparisons = 0
        var leaders = Leaders<Int>(keeping: 1_000_000) { a, b in
            comparisons += 1
            return a > b
        }
        let n = 20_000
        var random = SeededRandom(seed: 7)
        for _ in 0..<n { leaders.add(Int.random(in: 0...1_000, using: &random)) }
        #expect(leaders.ranked.count == n)
        // A sort makes about n log2 n comparisons (log2 20,000 ≈ 14.3), each up to two calls.
        #expect(comparisons < 4 * n * 15, "\(comparisons) comparisons for \(n) elements")
    }
}
