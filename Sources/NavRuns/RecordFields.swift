#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
package import NavInput

/// Reads the fields of one binary record, each checked against its end: bytes past it throw
/// `corrupt`, never read or allocated.
package struct FieldReader {
    package let corrupt: InputError
    @usableFromInline let bytes: UnsafeBufferPointer<UInt8>
    @usableFromInline var offset = 0

    package init(_ bytes: UnsafeBufferPointer<UInt8>, corrupt: InputError) {
        self.bytes = bytes
        self.corrupt = corrupt
    }

    @inlinable package var remaining: Int { bytes.count - offset }
    @inlinable package var isAtEnd: Bool { offset == bytes.count }

    @inlinable package mutating func int<T: FixedWidthInteger>(_: T.Type) throws -> T {
        let size = MemoryLayout<T>.size
        guard remaining >= size else { throw corrupt }
        defer { offset += size }
        return bytes.load(T.self, at: offset)
    }

    // The same, not generic: a generic call from another module looked its type's metadata up at
    // each call (a tenth of a long session's audit).
    package mutating func int64() throws -> Int64 { try int(Int64.self) }
    package mutating func uint64() throws -> UInt64 { try int(UInt64.self) }
    package mutating func int32() throws -> Int32 { try int(Int32.self) }
    package mutating func uint32() throws -> UInt32 { try int(UInt32.self) }
    package mutating func uint8() throws -> UInt8 { try int(UInt8.self) }

    @inlinable package mutating func bytes(_ count: Int) throws -> UnsafeBufferPointer<UInt8> {
        guard count >= 0, remaining >= count else { throw corrupt }
        defer { offset += count }
        return UnsafeBufferPointer(rebasing: bytes[offset..<(offset + count)])
    }

    /// A string as `ByteBuffer.appendLengthPrefixed` wrote it.
    package mutating func string() throws -> String {
        String(decoding: try bytes(Int(try uint32())), as: UTF8.self)
    }
}

extension ByteBuffer {
    /// `[u32 length][UTF-8]`.
    package func appendLengthPrefixed(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            append(UInt32(bytes.count))
            append(UnsafeRawBufferPointer(bytes))
        }
    }
}

extension UnsafeBufferPointer<UInt8> {
    // Little-endian integers at a byte offset, not generic (see `FieldReader.int64()`).
    package func int64(at offset: Int) -> Int64 { load(Int64.self, at: offset) }
    package func uint64(at offset: Int) -> UInt64 { load(UInt64.self, at: offset) }
    package func int32(at offset: Int) -> Int32 { load(Int32.self, at: offset) }
    package func uint32(at offset: Int) -> UInt32 { load(UInt32.self, at: offset) }

    package func bytesEqual(_ other: UnsafeBufferPointer<UInt8>) -> Bool {
        count == other.count && (count == 0 || memcmp(baseAddress!, other.baseAddress!, count) == 0)
    }

    /// Byte order, a prefix first (as `String.utf8Precedes`).
    package func bytesPrecede(_ other: UnsafeBufferPointer<UInt8>) -> Bool {
        let common = Swift.min(count, other.count)
        if common > 0 {
            let order = memcmp(baseAddress!, other.baseAddress!, common)
            if order != 0 { return order < 0 }
        }
        return count < other.count
    }
}
