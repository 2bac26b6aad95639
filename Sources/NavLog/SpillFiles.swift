#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import CNavSupport
import NavReplay

/// An append-only temporary file written through a buffer; or, for a partition that is kept
/// in memory, its full buffers kept in order instead of written.
final class SpillFileWriter {
    let path: String
    private(set) var buffer: ByteBuffer
    private var descriptor: Int32 = -1
    private let bufferBytes: Int
    /// Full buffers kept in memory instead of written, in order; each ends at a record's end.
    private(set) var kept: [ByteBuffer] = []

    /// Creates the file now, or (`createNow` false, for a partition that may stay in memory)
    /// when something is first written to it.
    init(path: String, bufferBytes: Int, createNow: Bool = true) throws {
        self.path = path
        self.bufferBytes = bufferBytes
        buffer = ByteBuffer(capacity: bufferBytes + 1024)
        if createNow { try create() }
    }

    private func create() throws {
        descriptor = try ScratchDirectory.createFile(path, what: "a spill file")
    }

    /// A record keyed by its place, in the output files' format, so that the same merge
    /// orders it: the key is the location as fixed-width digits (file, then line), which sort
    /// as the location does.
    func appendLocated(_ record: [UInt8], at location: LineLocation) throws {
        let key = Array(SpillFileWriter.sortKey(location).utf8)
        buffer.append(UInt32(key.count))
        buffer.append(key)
        buffer.append(Int32(0))
        buffer.append(UInt32(record.count))
        buffer.append(record)
        try flushIfFull()
    }

    static func sortKey(_ location: LineLocation) -> String {
        func digits(_ value: Int64, _ width: Int) -> String {
            let text = String(max(0, value))
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return digits(Int64(location.file), 10) + ":" + digits(location.line, 19)
    }

    var isFull: Bool { buffer.count >= bufferBytes }

    @inline(__always) func flushIfFull() throws {
        if isFull { try flush() }
    }

    /// Keeps the buffer in memory, as it is, and starts a new one; returns the bytes kept.
    func keepBuffer() -> Int {
        let size = buffer.capacity
        kept.append(buffer)
        buffer = ByteBuffer(capacity: bufferBytes + 1024)
        return size
    }

    /// Keeps `records` (whole records) after everything written to this writer so far;
    /// returns the bytes kept.
    func keep(_ records: ByteBuffer) -> Int {
        var size = records.capacity
        if buffer.count > 0 { size += keepBuffer() }
        kept.append(records)
        return size
    }

    /// Writes `records` (whole records) after everything written to this writer so far.
    func write(records: ByteBuffer) throws {
        if buffer.count > 0 { try flush() }
        try write(records.bytes)
    }

    /// Writes the kept buffers to the file (created even if there are none), in order, and
    /// lets them go.
    func writeKept() throws {
        if descriptor < 0 { try create() }
        for chunk in kept { try write(chunk.bytes) }
        kept = []
    }

    /// The kept buffers and what is buffered, in order; the writer is empty afterwards.
    func takeAll() -> [ByteBuffer] {
        var all = kept
        if buffer.count > 0 { all.append(buffer) }
        kept = []
        buffer = ByteBuffer(capacity: 16)
        return all
    }

    func flush() throws {
        try write(buffer.bytes)
        buffer.removeAll()
    }

    private func write(_ raw: UnsafeRawBufferPointer) throws {
        guard raw.count > 0 else { return }
        if descriptor < 0 { try create() }
        try ScratchDirectory.writeAll(raw, to: descriptor, path: path, what: "a spill file")
    }

    func close() throws {
        defer { discard() }
        try flush()
    }

    /// Closes without writing what is buffered or kept.
    func discard() {
        if descriptor >= 0 { systemClose(descriptor) }
        descriptor = -1
        buffer.removeAll()
        kept = []
    }
}

/// Reads the records of one partition's output file, in order, through a buffer.
final class SpillOutputReader {
    private let path: String
    private var descriptor: Int32
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0

    init(path: String, bufferBytes: Int) throws {
        self.path = path
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw InputError.opening(path, errno: errno) }
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
        if buffer.count < count { buffer += [UInt8](repeating: 0, count: count - buffer.count) }
        while end < count {
            let read = buffer.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress! + end, $0.count - end) }
            if read < 0 {
                if errno == EINTR { continue }
                throw InputError.opening(path, errno: errno)
            }
            if read == 0 { return false }
            end += read
        }
        return true
    }

    func next() throws -> (key: SessionKey, output: [UInt8])? {
        guard try fill(4) else { return nil }
        let idLength = Int(buffer.withUnsafeBufferPointer { $0.load(UInt32.self, at: start) })
        guard try fill(4 + idLength + 8) else { throw truncated() }
        let (id, model, outputLength) = buffer.withUnsafeBufferPointer { raw in
            (String(decoding: UnsafeBufferPointer(rebasing: raw[(start + 4)..<(start + 4 + idLength)]), as: UTF8.self),
             Int(raw.load(Int32.self, at: start + 4 + idLength)), Int(raw.load(UInt32.self, at: start + 8 + idLength)))
        }
        start += 12 + idLength
        guard try fill(outputLength) else { throw truncated() }
        let output = Array(buffer[start..<(start + outputLength)])
        start += outputLength
        return (SessionKey(model: model, id: id), output)
    }

    private func truncated() -> InputError {
        InputError(code: .unreadable, path: path, message: "a spill output file is truncated")
    }

    func close() {
        if descriptor >= 0 { systemClose(descriptor) }
        descriptor = -1
    }
}

/// A binary min-heap under a given order.
struct MinHeap<Element> {
    private var elements: [Element] = []
    private let precedes: (Element, Element) -> Bool

    init(by precedes: @escaping (Element, Element) -> Bool) { self.precedes = precedes }

    mutating func push(_ element: Element) {
        elements.append(element)
        var child = elements.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(elements[child], elements[parent]) else { break }
            elements.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> Element? {
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

// File-scope wrappers: inside a type with its own `close()`, the C call would not resolve.
private func systemClose(_ descriptor: Int32) { _ = close(descriptor) }
private func systemRead(_ descriptor: Int32, _ bytes: UnsafeMutableRawPointer, _ count: Int) -> Int { read(descriptor, bytes, count) }

extension UnsafeBufferPointer<UInt8> {
    /// A little-endian integer at a byte offset, whatever its alignment.
    func load<T: FixedWidthInteger>(_ type: T.Type, at offset: Int) -> T {
        T(littleEndian: UnsafeRawPointer(baseAddress! + offset).loadUnaligned(as: T.self))
    }
}

/// Removes spill partitions when the process is interrupted (Ctrl-C, SIGTERM) or its output
/// pipe closes (SIGPIPE). The handler and the registry it reads are in C (`shim.h`): a handler
/// may not allocate nor enter Swift's runtime, since the thread it interrupts may hold a lock.
enum SpillCleanup {
    private static let lock = NSLockLike()
    nonisolated(unsafe) private static var installed = false

    /// Makes a spill directory with `mkdir` (which returns 0 when it made it), registered for
    /// removal before it exists, so that no signal can come in between; returns the result and
    /// the registration (-1 when the registry is full: that run's partitions then survive an
    /// interrupt, as a `kill -9` leaves them).
    static func makeDirectory(_ path: String, partitions: Int, _ mkdir: () -> Int32) -> (result: Int32, slot: Int32) {
        lock.withLock {
            installHandlers()
            var slot: Int32 = -1
            let result = creating {
                slot = navreplay_spill_register(path, partitions)
                let result = mkdir()
                if result != 0 {
                    navreplay_spill_unregister(slot)
                    slot = -1
                }
                return result
            }
            return (result, slot)
        }
    }

    static func unregister(_ slot: Int32) {
        lock.withLock { _ = creating { navreplay_spill_unregister(slot); return 0 } }
    }

    private static func installHandlers() {
        guard !installed else { return }
        installed = true
        signal(SIGINT, navreplay_spill_on_signal)
        signal(SIGTERM, navreplay_spill_on_signal)
        // Output is streamed while partitions exist: a reader that goes away (`| head`) ends
        // the run, and the partitions go with it. An ignored SIGPIPE stays ignored (then the
        // write fails and the run unwinds normally).
        let previous = signal(SIGPIPE, navreplay_spill_on_signal)
        if let previous, unsafeBitCast(previous, to: UnsafeRawPointer.self) == unsafeBitCast(SIG_IGN, to: UnsafeRawPointer.self) {
            signal(SIGPIPE, SIG_IGN)
        }
    }

    /// Creates a spill file or directory, unless the process is exiting: then the calling
    /// thread waits for the exit instead, so that nothing appears after the handler's unlinks.
    static func creating(_ create: () -> Int32) -> Int32 {
        guard navreplay_spill_enter() != 0 else {
            while true { pause() }
        }
        defer { navreplay_spill_leave() }
        return create()
    }
}
