import CZlib

/// A session's stored lines as one zlib stream (`compress2`): the format the `sqlite3` shell's
/// `sqlar_uncompress(data, bytes)` reads, so that a user can see the stored events without
/// NavReplay. Level 1: JSON lines shrink about eight times at the level's speed, and the
/// stronger levels cost far more time than the space they save.
enum ChunkCodec {
    static func compress(_ bytes: [UInt8]) -> [UInt8] {
        var capacity = compressBound(uLong(bytes.count))
        var output = [UInt8](repeating: 0, count: Int(capacity))
        let status = output.withUnsafeMutableBufferPointer { out in
            bytes.withUnsafeBufferPointer { input in
                compress2(out.baseAddress, &capacity, input.baseAddress, uLong(input.count), 1)
            }
        }
        precondition(status == Z_OK, "zlib's compress2 failed with \(status) within its own bound")
        output.removeSubrange(Int(capacity)...)
        return output
    }

    /// The lines of a chunk, or `nil` when the chunk is damaged.
    static func decompress(_ data: [UInt8], size: Int) -> [UInt8]? {
        guard size >= 0 else { return nil }
        var length = uLong(size)
        var output = [UInt8](repeating: 0, count: max(size, 1))
        let status = output.withUnsafeMutableBufferPointer { out in
            data.withUnsafeBufferPointer { input in uncompress(out.baseAddress, &length, input.baseAddress, uLong(input.count)) }
        }
        guard status == Z_OK, Int(length) == size else { return nil }
        if size == 0 { return [] }
        return output
    }
}
