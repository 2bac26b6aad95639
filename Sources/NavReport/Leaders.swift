import NavRuns

/// The first `count` elements under an order, of any number added one at a time: the report's
/// worst sessions (`--worst N`).
///
/// A heap whose top is the leader that ranks last: an element joins when there is room or when
/// it ranks before the top, which it then replaces. Adding n elements costs O(n log count)
/// comparisons, whatever `count` is (a list kept sorted by insertion cost O(n × count)). Among
/// equal elements, the first to come ranks first.
struct Leaders<Element> {
    private typealias Entry = (element: Element, arrival: Int)
    private let count: Int
    private let precedes: (Element, Element) -> Bool
    private var heap: MinHeap<Entry>
    private var arrivals = 0

    /// - Parameters:
    ///   - count: how many leaders to keep (none when 0 or less).
    ///   - precedes: whether the first element ranks before the second.
    init(keeping count: Int, by precedes: @escaping (Element, Element) -> Bool) {
        self.count = max(0, count)
        self.precedes = precedes
        heap = MinHeap { a, b in Self.ranksBefore(b, a, precedes) }  // the top ranks last
    }

    mutating func add(_ element: Element) {
        let entry = (element: element, arrival: arrivals)
        arrivals += 1
        if heap.count < count {
            heap.push(entry)
        } else if let top = heap.top, Self.ranksBefore(entry, top, precedes) {
            heap.replaceTop(with: entry)
        }
    }

    /// Removes the leaders that match, in O(count): called for the rare session folded again.
    mutating func removeAll(where shouldRemove: (Element) -> Bool) {
        heap.removeAll { shouldRemove($0.element) }
    }

    /// The leaders, first first.
    var ranked: [Element] {
        heap.unordered.sorted { Self.ranksBefore($0, $1, precedes) }.map(\.element)
    }

    private static func ranksBefore(_ a: Entry, _ b: Entry, _ precedes: (Element, Element) -> Bool) -> Bool {
        if precedes(a.element, b.element) { return true }
        if precedes(b.element, a.element) { return false }
        return a.arrival < b.arrival
    }
}
