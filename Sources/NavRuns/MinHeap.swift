#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A binary min-heap under a given order.
package struct MinHeap<Element> {
    private var elements: [Element] = []
    private let precedes: (Element, Element) -> Bool

    package init(by precedes: @escaping (Element, Element) -> Bool) { self.precedes = precedes }

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
        var parent = 0
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
        return top
    }
}
