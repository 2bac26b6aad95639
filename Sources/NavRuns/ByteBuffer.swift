#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A growable byte buffer written through raw stores: appending an integer or a string's bytes
/// to an `Array` went through a generic path that cost about a hundred instructions a call.
/// Its appends are `@inlinable`: the engine calls them from another module, per line, and an
/// unspecialised generic call there instantiated metadata each time (a third of an audit's time).
package final class ByteBuffer {
    // Unchecked exclusivity: a buffer is used by one thread at a time, and the dynamic checks
    // of these properties, which the appends inlined into other modules cannot prove away, cost
    // about 3% of a spilling audit.
    @exclusivity(unchecked) @usableFromInline package internal(set) var base: UnsafeMutableRawPointer
    @exclusivity(unchecked) @usableFromInline package internal(set) var count = 0
    @exclusivity(unchecked) @usableFromInline package internal(set) var capacity: Int

    package init(capacity: Int) {
        self.capacity = max(16, capacity)
        base = ByteBuffer.allocate(self.capacity)
    }

    deinit { free(base) }

    /// Buffers of 2 MiB or more are aligned to, and backed by, huge pages where the system
    /// offers them: a 1 GB log's lines kept in memory took 335,000 page faults in 4 KiB pages,
    /// 33,000 in huge pages.
    private static let hugePage = 2 << 20

    private static func allocate(_ bytes: Int) -> UnsafeMutableRawPointer {
        var memory: UnsafeMutableRawPointer?
        let alignment = bytes >= hugePage ? hugePage : 16
        guard posix_memalign(&memory, alignment, bytes) == 0, let memory else { fatalError("out of memory") }
        #if os(Linux)
            if alignment == hugePage { _ = madvise(memory, bytes, MADV_HUGEPAGE) }
        #endif
        return memory
    }

    @inlinable @inline(__always) func reserve(_ extra: Int) {
        if count + extra > capacity { grow(to: count + extra) }
    }

    @usableFromInline func grow(to needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let newBase = ByteBuffer.allocate(newCapacity)
        newBase.copyMemory(from: base, byteCount: count)
        free(base)
        base = newBase
        capacity = newCapacity
    }

    // An append for each integer type the records use, not one generic `append`: called from
    // another module, a generic one ran unspecialised there despite `@inlinable` (about 50
    // instructions a field; 2.2% of an audit's instructions in the partition references alone).
    @inlinable @inline(__always) package func append(_ value: UInt8) { appendInteger(value) }
    @inlinable @inline(__always) package func append(_ value: UInt16) { appendInteger(value) }
    @inlinable @inline(__always) package func append(_ value: UInt32) { appendInteger(value) }
    @inlinable @inline(__always) package func append(_ value: Int32) { appendInteger(value) }
    @inlinable @inline(__always) package func append(_ value: UInt64) { appendInteger(value) }
    @inlinable @inline(__always) package func append(_ value: Int64) { appendInteger(value) }

    @inlinable @inline(__always) func appendInteger<T: FixedWidthInteger>(_ value: T) {
        reserve(MemoryLayout<T>.size)
        base.storeBytes(of: value.littleEndian, toByteOffset: count, as: T.self)
        count += MemoryLayout<T>.size
    }

    /// Overwrites an integer written earlier (a length known only afterwards).
    @inlinable package func patch<T: FixedWidthInteger>(_ value: T, at offset: Int) {
        precondition(offset + MemoryLayout<T>.size <= count)
        base.storeBytes(of: value.littleEndian, toByteOffset: offset, as: T.self)
    }

    @inlinable package func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        reserve(bytes.count)
        (base + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    package func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// Lets `write` fill up to `maximum` bytes at the end and keeps the count it returns
    /// (nothing when it returns `nil`).
    package func append(upTo maximum: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int?) -> Int? {
        reserve(maximum)
        guard let written = write((base + count).assumingMemoryBound(to: UInt8.self)) else { return nil }
        precondition(written <= maximum)
        count += written
        return written
    }

    package func truncate(to length: Int) { count = min(count, length) }
    package func removeAll() { count = 0 }

    package var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// The bytes, for a parser of `UInt8`s (the memory holds nothing else).
    package var byteBuffer: UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: count)
    }
}
