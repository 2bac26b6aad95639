#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import NavInput
import SystemPackage

/// Records in an order of their own (a comparison of their bytes, not a key's), held in memory
/// up to a budget and past it written as sorted runs, then merged back in order: an external
/// merge sort. Equal records come back in the order they came.
///
/// A record is bytes its owner encodes (`append`) and decodes (`drain`); the order compares two
/// records' bytes in place, so that nothing is decoded, copied or counted to sort them. Its run
/// files are numbered files of a scratch set its owner gives (`files`, the numbers in `numbers`):
/// at most `numbers.count - 1` runs at once, merged into one past that (the last number is the
/// spare the merge writes to). A run is `[u32 length][record]...`, little-endian.
package final class SortedRecords {
    /// Whether a record comes before another.
    package typealias Precedes = (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Bool

    /// How many runs a sorter keeps with the usual `numbers` (`keptRuns + 1` of them): few
    /// enough that a merge of them all holds a buffer each.
    package static var keptRuns: Int { 64 }

    private let files: ScratchFileSet
    private let numbers: Range<Int>
    private let kind: String
    private let budget: Int
    private let precedes: Precedes
    /// The held records, back to back, and where each starts (and, last, the end).
    private let held = ByteBuffer(capacity: 4096)
    // Unchecked exclusivity: a sorter is used by one thread at a time, and the dynamic checks of
    // these properties, touched per record, cost more than the sort's comparisons.
    @exclusivity(unchecked) private var starts: [Int] = [0]
    private var runs = 0
    /// How many records were appended.
    @exclusivity(unchecked) package private(set) var count = 0

    package init(files: ScratchFileSet, kind: String = "part-", numbers: Range<Int>, budget: Int, precedes: @escaping Precedes) {
        precondition(numbers.count >= 3, "a sorter needs two runs and a spare")
        self.files = files
        self.kind = kind
        self.numbers = numbers
        self.budget = budget
        self.precedes = precedes
    }

    deinit { removeRuns() }

    /// How many runs are on disk.
    package var runCount: Int { runs }

    /// Appends one record, which `encode` writes at the end of the buffer it is given.
    package func append(_ encode: (ByteBuffer) -> Void) throws {
        encode(held)
        starts.append(held.count)
        count += 1
        if held.count + 8 * starts.count > budget { try spill() }
    }

    private func record(_ index: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: held.base.assumingMemoryBound(to: UInt8.self) + starts[index], count: starts[index + 1] - starts[index])
    }

    /// The held records' indices in order, equal ones in the order they came.
    private func sortedHeld() -> [Int] {
        var order = Array(0..<(starts.count - 1))
        let precedes = self.precedes
        order.withUnsafeMutableBufferPointer { order in
            order.sort { left, right in
                let a = record(left)
                let b = record(right)
                if precedes(a, b) { return true }
                return !precedes(b, a) && left < right
            }
        }
        return order
    }

    /// Writes what is held as a run.
    private func spill() throws {
        guard starts.count > 1 else { return }
        if runs == numbers.count - 1 { try compact() }
        let order = sortedHeld()
        try write(path(runs)) { write in
            for index in order { try write(record(index)) }
        }
        held.removeAll()
        starts = [0]
        runs += 1
    }

    private func path(_ run: Int) -> String { files.path(kind, numbers.lowerBound + run) }

    private func write(_ path: String, _ body: ((UnsafeBufferPointer<UInt8>) throws -> Void) throws -> Void) throws {
        let writer = try SpillFileWriter(path: path, bufferBytes: 1 << 16)
        defer { writer.discard() }
        let buffer = writer.buffer
        try body { record in
            buffer.append(UInt32(record.count))
            buffer.append(UnsafeRawBufferPointer(record))
            try writer.flushIfFull()
        }
        try writer.close()
    }

    /// Merges every run into one, written to the spare number and renamed to the first.
    private func compact() throws {
        let spare = path(numbers.count - 1)
        try write(spare) { write in try merge(runs: 0..<runs) { try write($0) } }
        for run in 0..<runs { unlink(path(run)) }
        guard rename(spare, path(0)) == 0 else {
            throw InputError(code: .unreadable, path: path(0), message: "cannot rename a spill file: \(String(cString: strerror(errno)))")
        }
        runs = 1
    }

    /// Every record in order, equal ones in the order they came, each valid during its call;
    /// the sorter is empty after (its runs removed). Runs that give back fewer records than were
    /// appended (a file cut at a record's end) are an error.
    package func drain(_ deliver: (UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        defer { removeRuns() }
        if runs == 0 {
            for index in sortedHeld() { try deliver(record(index)) }
            return
        }
        // The held records go to a run of their own first: the merge then holds one record a run.
        try spill()
        var delivered = 0
        try merge(runs: 0..<runs) { record in
            delivered += 1
            try deliver(record)
        }
        guard delivered == count else {
            throw InputError(code: .unreadable, path: path(0), message: "a spill file lost records: \(delivered) of \(count) read back")
        }
    }

    private func merge(runs range: Range<Int>, _ deliver: (UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        var readers: [FramedRecordReader] = []
        defer { for reader in readers { reader.close() } }
        for run in range {
            let reader = try FramedRecordReader(path: path(run), bufferBytes: 1 << 16)
            readers.append(reader)
        }
        let precedes = self.precedes
        // Equal records: the earlier run's first (runs are in the order their records came).
        var heap = MinHeap<Int> { left, right in
            let a = readers[left].current
            let b = readers[right].current
            if precedes(a, b) { return true }
            return !precedes(b, a) && left < right
        }
        for index in readers.indices where try readers[index].advance() { heap.push(index) }
        while let index = heap.top {
            try deliver(readers[index].current)
            if try readers[index].advance() {
                heap.replaceTop(with: index)
            } else {
                _ = heap.pop()
            }
        }
    }

    /// Removes the run files (the scratch set is its owner's).
    package func removeRuns() {
        for run in 0..<numbers.count { unlink(path(run)) }
        runs = 0
        held.removeAll()
        starts = [0]
    }
}

/// Reads `[u32 length][record]` frames of a file in order, through a buffer of its own.
package final class FramedRecordReader {
    private let path: String
    private var descriptor: FileDescriptor?
    // Unchecked exclusivity: a reader is used by one thread at a time, a record at a time.
    @exclusivity(unchecked) private var buffer: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private var capacity: Int
    @exclusivity(unchecked) private var start = 0
    @exclusivity(unchecked) private var end = 0
    /// The record `advance` moved to, with its length field when `framed`: valid until the next
    /// `advance`.
    @exclusivity(unchecked) package private(set) var current = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
    private let framed: Bool

    package init(path: String, bufferBytes: Int, framed: Bool = false) throws {
        self.path = path
        self.framed = framed
        descriptor = try FileDescriptor.opening(path)
        capacity = max(16, bufferBytes)
        buffer = .allocate(capacity: capacity)
    }

    deinit {
        close()
        buffer.deallocate()
    }

    /// Moves to the next record; false at the end of the file.
    package func advance() throws -> Bool {
        guard try fill(4) else {
            if end > start { throw truncated() }
            current = UnsafeBufferPointer(start: nil, count: 0)
            return false
        }
        let length = Int(UnsafeBufferPointer(start: buffer + start, count: 4).load(UInt32.self, at: 0))
        guard try fill(4 + length) else { throw truncated() }
        current = UnsafeBufferPointer(start: buffer + start + (framed ? 0 : 4), count: framed ? 4 + length : length)
        start += 4 + length
        return true
    }

    /// Hands the next record to `body`; `nil` at the end of the file.
    package func next<Value>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Value) throws -> Value? {
        try advance() ? try body(current) : nil
    }

    /// Makes `count` bytes available from `start`; false at the end of the file.
    private func fill(_ count: Int) throws -> Bool {
        if end - start >= count { return true }
        if start > 0 {
            memmove(buffer, buffer + start, end - start)
            end -= start
            start = 0
        }
        guard let descriptor else { return false }
        while end < count {
            // Grown as bytes come (at most doubled), not to the length a record claims.
            if end == capacity {
                let grown = capacity + min(count - end, max(capacity, 4096))
                let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
                larger.update(from: buffer, count: end)
                buffer.deallocate()
                buffer = larger
                capacity = grown
            }
            let read = try descriptor.readOrThrow(
                into: UnsafeMutableRawBufferPointer(start: buffer + end, count: capacity - end), path: path)
            if read == 0 { return false }
            end += read
        }
        return true
    }

    /// What a file that ends inside a record is reported as.
    package static let truncatedMessage = "a spill file is truncated"

    private func truncated() -> InputError {
        InputError(code: .unreadable, path: path, message: Self.truncatedMessage)
    }

    package func close() {
        try? descriptor?.close()
        descriptor = nil
    }
}
