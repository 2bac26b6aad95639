/// The first `count` elements under an order, of any number added one at a time: the report's
/// worst sessions (`--worst N`).
///
/// A heap whose root is the leader that ranks last: an element joins when there is room or when
/// it ranks before the root, which it then replaces. Adding n elements costs O(n log count)
/// comparisons, whatever `count` is (a list kept sorted by insertion cost O(n × count)). Among
/// equal elements, the first to come ranks first.
struct Leaders<Element> {
    private let count: Int
    private let precedes: (Element, Element) -> Bool
    private var heap: [(element: Element, arrival: Int)] = []
    private var arrivals = 0

    /// - Parameters:
    ///   - count: how many leaders to keep (none when 0 or less).
    ///   - precedes: whether the first element ranks before the second.
    init(keeping count: Int, by precedes: @escaping (Element, Element) -> Bool) {
        self.count = max(0, count)
        self.precedes = precedes
    }

    mutating func add(_ element: Element) {
        let entry = (element: element, arrival: arrivals)
        arrivals += 1
        if heap.count < count {
            heap.append(entry)
            siftUp(heap.count - 1)
        } else if let root = heap.first, ranksBefore(entry, root) {
            heap[0] = entry
            siftDown(0)
        }
    }

    /// Removes the leaders that match, in O(count): called for the rare session folded again.
    mutating func removeAll(where shouldRemove: (Element) -> Bool) {
        let before = heap.count
        heap.removeAll { shouldRemove($0.element) }
        guard heap.count != before else { return }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
    }

    /// The leaders, first first.
    var ranked: [Element] { heap.sorted(by: ranksBefore).map(\.element) }

    private func ranksBefore(_ a: (element: Element, arrival: Int), _ b: (element: Element, arrival: Int)) -> Bool {
        if precedes(a.element, b.element) { return true }
        if precedes(b.element, a.element) { return false }
        return a.arrival < b.arrival
    }

    /// The root ranks last: a parent never ranks before its children.
    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard ranksBefore(heap[parent], heap[child]) else { break }
            heap.swapAt(parent, child)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var last = parent
            if left < heap.count, ranksBefore(heap[last], heap[left]) { last = left }
            if right < heap.count, ranksBefore(heap[last], heap[right]) { last = right }
            if last == parent { return }
            heap.swapAt(parent, last)
            parent = last
        }
    }
}
