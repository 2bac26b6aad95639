package import NavInput
package import SystemPackage

/// Located lines as a distributed audit ships them between its steps: in `LineShorthand` (the
/// bench log's lines take 59% fewer bytes), each a record of `[UInt32 length][bytes]`,
/// little-endian, whose length's high bit says the bytes are in shorthand (a line that holds the
/// shorthand's marker byte is kept as it is). `expand` gives back the located lines, exactly.
package enum ShorthandRecords {
    static let shortened: UInt32 = 1 << 31

    /// Appends `line`'s record to `records`; `room` is scratch space of `line.count` bytes at least.
    package static func append(_ line: UnsafeBufferPointer<UInt8>, to records: inout [UInt8], room: UnsafeMutablePointer<UInt8>) {
        if let length = LineShorthand.shorten(line, into: room) {
            withUnsafeBytes(of: (UInt32(length) | shortened).littleEndian) { records.append(contentsOf: $0) }
            records.append(contentsOf: UnsafeBufferPointer(start: room, count: length))
        } else {
            withUnsafeBytes(of: UInt32(line.count).littleEndian) { records.append(contentsOf: $0) }
            records.append(contentsOf: line)
        }
    }

    /// Reads records from `input` and writes their lines, each ended by `\n`, to `output`.
    /// Throws when the input ends inside a record or holds a record that is not shorthand.
    package static func expand(
        from input: FileDescriptor, named inputName: String, to output: FileDescriptor, named outputName: String
    ) throws {
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var lines: [UInt8] = []
        lines.reserveCapacity(1 << 21)
        var room = [UInt8](repeating: 0, count: 1 << 16)
        var offset = 0
        while true {
            let count = try chunk.withUnsafeMutableBytes { try input.readOrThrow(into: $0, path: inputName) }
            if count == 0 { break }
            pending.removeSubrange(0..<offset)
            offset = 0
            pending += chunk[0..<count]
            while offset + 4 <= pending.count {
                let header = pending.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
                let length = Int(header & ~shortened)
                guard offset + 4 + length <= pending.count else { break }
                let start = offset + 4
                if header & shortened == 0 {
                    lines += pending[start..<(start + length)]
                } else {
                    let capacity = LineShorthand.expandedCapacity(length)
                    if room.count < capacity { room = [UInt8](repeating: 0, count: capacity) }
                    let expanded = pending.withUnsafeBufferPointer { bytes in
                        room.withUnsafeMutableBufferPointer {
                            LineShorthand.expand(UnsafeBufferPointer(rebasing: bytes[start..<(start + length)]), into: $0.baseAddress!)
                        }
                    }
                    guard let expanded else {
                        throw InputError(code: .unreadable, path: inputName, message: "a record is not in shorthand")
                    }
                    lines += room[0..<expanded]
                }
                lines.append(0x0A)
                offset = start + length
                if lines.count >= 1 << 20 {
                    try lines.withUnsafeBytes { try output.writeAll($0, path: outputName, what: "the expanded lines") }
                    lines.removeAll(keepingCapacity: true)
                }
            }
        }
        guard offset == pending.count else {
            throw InputError(code: .unreadable, path: inputName, message: "it ends inside a record")
        }
        try lines.withUnsafeBytes { try output.writeAll($0, path: outputName, what: "the expanded lines") }
    }
}
