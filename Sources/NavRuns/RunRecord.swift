/// The one record framing of run files, little-endian: `[u32 label length][label][i32 group]
/// [u32 payload length][payload]`, a `RunKey` and its payload. Every sorted run file (partition
/// outputs, quarantine records, held sessions, counts) is a sequence of these, read back by
/// `SpillOutputReader` and merged by key.
package enum RunRecord {
    /// Appends one record whose payload `body` writes into the buffer after the key (its length
    /// is set afterwards).
    @inline(__always)
    package static func append(key: RunKey, to buffer: ByteBuffer, payload body: (ByteBuffer) throws -> Void) rethrows {
        var label = key.label
        label.withUTF8 { bytes in
            buffer.append(UInt32(bytes.count))
            buffer.append(UnsafeRawBufferPointer(bytes))
        }
        buffer.append(Int32(truncatingIfNeeded: key.group))
        let lengthAt = buffer.count
        buffer.append(UInt32(0))
        try body(buffer)
        buffer.patch(UInt32(buffer.count - lengthAt - 4), at: lengthAt)
    }

    /// Appends one record with `payload` as it is.
    package static func append(key: RunKey, payload: [UInt8], to buffer: ByteBuffer) {
        append(key: key, to: buffer) { $0.append(payload) }
    }
}

/// A record that travels through run files: its key, and its payload in bytes.
package protocol RunRecordCodable {
    var runKey: RunKey { get }
    /// Writes the payload (the key is written apart).
    func encodePayload(into buffer: ByteBuffer)
    /// The record `encodePayload` wrote; throws when the bytes do not decode.
    init(runKey: RunKey, payload: [UInt8]) throws
}
