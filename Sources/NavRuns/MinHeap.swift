/// A binary min-heap under a given order.
package struct MinHeap<Element> {
    private var elements: [Element] = []
    private let precedes: (Element, Element) -> Bool

    package init(by precedes: @escaping (Element, Element) -> Bool) { self.precedes = precedes }

    package var count: Int { elements.count }

    /// The smallest element, left in place.
    package var top: Element? { elements.first }

    /// Every element, in no particular order.
    package var unordered: [Element] { elements }

    package mutating func push(_ element: Element) {
        elements.append(element)
        var child = elements.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(elements[child], elements[parent]) else { break }
            elements.swapAt(child, parent)
            child = parent
        }
    }

    package mutating func pop() -> Element? {
        guard !elements.isEmpty else { return nil }
        elements.swapAt(0, elements.count - 1)
        let top = elements.removeLast()
        siftDown(0)
        return top
    }

    /// Puts `element` in the top's place: a pop and a push in one pass.
    package mutating func replaceTop(with element: Element) {
        guard !elements.isEmpty else { return push(element) }
        elements[0] = element
        siftDown(0)
    }

    /// Removes the elements that match, in O(count).
    package mutating func removeAll(where shouldRemove: (Element) throws -> Bool) rethrows {
        let before = elements.count
        try elements.removeAll(where: shouldRemove)
        guard elements.count != before else { return }
        for index in stride(from: elements.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < elements.count, precedes(elements[left], elements[smallest]) { smallest = left }
            if right < elements.count, precedes(elements[right], elements[smallest]) { smallest = right }
            if smallest == parent { break }
            elements.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
