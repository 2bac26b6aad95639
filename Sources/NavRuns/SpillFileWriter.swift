#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import CNavSupport
import NavInput
import SystemPackage

/// An append-only temporary file written through a buffer.
package final class SpillFileWriter {
    package let path: String
    package private(set) var buffer: ByteBuffer
    private var descriptor: FileDescriptor?
    private let bufferBytes: Int
    /// Creates the file.
    package init(path: String, bufferBytes: Int) throws {
        self.path = path
        self.bufferBytes = bufferBytes
        buffer = ByteBuffer(capacity: bufferBytes + 1024)
        descriptor = try ScratchDirectory.createFile(path, what: "a spill file")
    }

    package var isFull: Bool { buffer.count >= bufferBytes }

    @inline(__always) package func flushIfFull() throws {
        if isFull { try flush() }
    }

    /// Writes `records` (whole records) after everything written to this writer so far.
    package func write(records: ByteBuffer) throws {
        if buffer.count > 0 { try flush() }
        try write(records.bytes)
    }

    package func flush() throws {
        try write(buffer.bytes)
        buffer.removeAll()
    }

    private func write(_ raw: UnsafeRawBufferPointer) throws {
        guard raw.count > 0 else { return }
        try descriptor!.writeAll(raw, path: path, what: "a spill file")
    }

    package func close() throws {
        defer { discard() }
        try flush()
    }

    /// Closes without writing what is buffered.
    package func discard() {
        try? descriptor?.close()
        descriptor = nil
        buffer.removeAll()
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// A little-endian integer at a byte offset, whatever its alignment. `@inlinable`: read per
    /// record field from other modules, where a generic call instantiated metadata each time.
    @inlinable @inline(__always) package func load<T: FixedWidthInteger>(_ type: T.Type, at offset: Int) -> T {
        T(littleEndian: UnsafeRawPointer(baseAddress! + offset).loadUnaligned(as: T.self))
    }
}
