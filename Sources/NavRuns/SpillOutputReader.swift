#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import NavInput
import SystemPackage

/// Reads the records of one run file (`RunRecord`'s framing), in order, through a buffer.
package final class SpillOutputReader {
    private let path: String
    private var descriptor: FileDescriptor?
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0

    package init(path: String, bufferBytes: Int) throws {
        self.path = path
        descriptor = try FileDescriptor.opening(path)
        buffer = [UInt8](repeating: 0, count: bufferBytes)
    }

    /// Makes at least `count` bytes available from `start`; false at the end of the file.
    private func fill(_ count: Int) throws -> Bool {
        if end - start >= count { return true }
        if start > 0 {
            buffer.withUnsafeMutableBufferPointer { raw in
                _ = memmove(raw.baseAddress!, raw.baseAddress! + start, end - start)
            }
            end -= start
            start = 0
        }
        guard let descriptor else { return false }
        while end < count {
            // Grown as bytes come (at most doubled), not to the length a record claims: a
            // corrupt length claims up to 4 GB of a file of a few bytes.
            if end == buffer.count { buffer += [UInt8](repeating: 0, count: min(count - end, max(buffer.count, 4096))) }
            let read = try buffer.withUnsafeMutableBytes { raw in
                try descriptor.readOrThrow(into: UnsafeMutableRawBufferPointer(rebasing: raw[end...]), path: path)
            }
            if read == 0 { return false }
            end += read
        }
        return true
    }

    package func next() throws -> (key: RunKey, output: [UInt8])? {
        guard try fill(4) else {
            // The end of the file, or of a length cut short.
            if end > start { throw truncated() }
            return nil
        }
        let idLength = Int(buffer.withUnsafeBufferPointer { $0.load(UInt32.self, at: start) })
        guard try fill(4 + idLength + 8) else { throw truncated() }
        let (id, model, outputLength) = buffer.withUnsafeBufferPointer { raw in
            (
                String(decoding: UnsafeBufferPointer(rebasing: raw[(start + 4)..<(start + 4 + idLength)]), as: UTF8.self),
                Int(raw.load(Int32.self, at: start + 4 + idLength)), Int(raw.load(UInt32.self, at: start + 8 + idLength))
            )
        }
        start += 12 + idLength
        guard try fill(outputLength) else { throw truncated() }
        let output = Array(buffer[start..<(start + outputLength)])
        start += outputLength
        return (RunKey(group: model, label: id), output)
    }

    private func truncated() -> InputError {
        InputError(code: .unreadable, path: path, message: "a spill output file is truncated")
    }

    package func close() {
        try? descriptor?.close()
        descriptor = nil
    }

    /// A k-way merge of sorted record files over a binary heap, smallest key first; equal keys
    /// in the order of their files.
    package static func merge(_ readers: [SpillOutputReader], _ deliver: (RunKey, [UInt8]) throws -> Void) throws {
        var heads: [(key: RunKey, output: [UInt8])?] = []
        for reader in readers { heads.append(try reader.next()) }
        // The heap holds the files whose next record is pending.
        var heap = MinHeap<Int> { heads[$0]!.key != heads[$1]!.key ? heads[$0]!.key < heads[$1]!.key : $0 < $1 }
        for index in readers.indices where heads[index] != nil { heap.push(index) }
        while let index = heap.pop() {
            let head = heads[index]!
            try deliver(head.key, head.output)
            heads[index] = try readers[index].next()
            if heads[index] != nil { heap.push(index) }
        }
    }
}
