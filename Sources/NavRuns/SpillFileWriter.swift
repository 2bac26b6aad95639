#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import CNavSupport
import NavInput
import SystemPackage

/// An append-only temporary file written through a buffer; or, for a partition that is kept
/// in memory, its full buffers kept in order instead of written.
package final class SpillFileWriter {
    package let path: String
    package private(set) var buffer: ByteBuffer
    private var descriptor: FileDescriptor?
    private let bufferBytes: Int
    /// Full buffers kept in memory instead of written, in order; each ends at a record's end.
    package private(set) var kept: [ByteBuffer] = []

    /// Creates the file now, or (`createNow` false, for a partition that may stay in memory)
    /// when something is first written to it.
    package init(path: String, bufferBytes: Int, createNow: Bool = true) throws {
        self.path = path
        self.bufferBytes = bufferBytes
        buffer = ByteBuffer(capacity: bufferBytes + 1024)
        if createNow { try create() }
    }

    private func create() throws {
        descriptor = try ScratchDirectory.createFile(path, what: "a spill file")
    }

    package var isFull: Bool { buffer.count >= bufferBytes }

    @inline(__always) package func flushIfFull() throws {
        if isFull { try flush() }
    }

    /// Keeps the buffer in memory, as it is, and starts a new one; returns the bytes kept.
    package func keepBuffer() -> Int {
        let size = buffer.capacity
        kept.append(buffer)
        buffer = ByteBuffer(capacity: bufferBytes + 1024)
        return size
    }

    /// Keeps `records` (whole records) after everything written to this writer so far;
    /// returns the bytes kept.
    package func keep(_ records: ByteBuffer) -> Int {
        var size = records.capacity
        if buffer.count > 0 { size += keepBuffer() }
        kept.append(records)
        return size
    }

    /// Writes `records` (whole records) after everything written to this writer so far.
    package func write(records: ByteBuffer) throws {
        if buffer.count > 0 { try flush() }
        try write(records.bytes)
    }

    /// Writes the kept buffers to the file (created even if there are none), in order, and
    /// lets them go.
    package func writeKept() throws {
        if descriptor == nil { try create() }
        for chunk in kept { try write(chunk.bytes) }
        kept = []
    }

    /// The kept buffers and what is buffered, in order; the writer is empty afterwards.
    package func takeAll() -> [ByteBuffer] {
        var all = kept
        if buffer.count > 0 { all.append(buffer) }
        kept = []
        buffer = ByteBuffer(capacity: 16)
        return all
    }

    package func flush() throws {
        try write(buffer.bytes)
        buffer.removeAll()
    }

    private func write(_ raw: UnsafeRawBufferPointer) throws {
        guard raw.count > 0 else { return }
        if descriptor == nil { try create() }
        try descriptor!.writeAll(raw, path: path, what: "a spill file")
    }

    package func close() throws {
        defer { discard() }
        try flush()
    }

    /// Closes without writing what is buffered or kept.
    package func discard() {
        try? descriptor?.close()
        descriptor = nil
        buffer.removeAll()
        kept = []
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// A little-endian integer at a byte offset, whatever its alignment. `@inlinable`: read per
    /// record field from other modules, where a generic call instantiated metadata each time.
    @inlinable @inline(__always) package func load<T: FixedWidthInteger>(_ type: T.Type, at offset: Int) -> T {
        T(littleEndian: UnsafeRawPointer(baseAddress! + offset).loadUnaligned(as: T.self))
    }
}
