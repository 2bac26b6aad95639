#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import NavInput
import NavPartitions

/// A session's stored lines (`event_chunks.data`): one record a line, `[u8 form][u16 prefix
/// length][u32 text length][prefix][text]`, little-endian. The prefix is the line's located
/// prefix (`FILE<TAB>LINE<TAB>`, `FILE` a `files.file`); the text is the line's bytes (form 0)
/// or their `LineShorthand` (form 1: each key of the event schema in two bytes, UUIDs and
/// timestamps packed), which expands to exactly the original bytes.
///
/// The shorthand, not zlib: on the benchmark's lines it keeps 41% of the bytes at a small part
/// of the time deflate takes (deflate at level 1 cost an ingest more than the fold itself,
/// `BENCHMARKS.md`).
package enum ChunkCodec {
    static let raw: UInt8 = 0
    static let shorthand: UInt8 = 1

    /// Appends the record of a line given as its located prefix (`LocatedLine.appendPrefix`)
    /// and its bytes; returns the bytes appended.
    @discardableResult
    package static func append(prefix: UnsafeBufferPointer<UInt8>, text: UnsafeBufferPointer<UInt8>, to buffer: inout [UInt8]) -> Int {
        let headerAt = buffer.count
        buffer.append(raw)
        appendInteger(UInt16(prefix.count), to: &buffer)
        appendInteger(UInt32(text.count), to: &buffer)
        buffer.append(contentsOf: prefix)
        let textAt = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: text.count))
        let shortened = buffer.withUnsafeMutableBufferPointer { out in
            LineShorthand.shorten(text, into: out.baseAddress! + textAt)
        }
        if let shortened {
            buffer[headerAt] = shorthand
            buffer.removeSubrange((textAt + shortened)...)
            withUnsafeBytes(of: UInt32(shortened).littleEndian) { bytes in
                for (offset, byte) in bytes.enumerated() { buffer[headerAt + 3 + offset] = byte }
            }
        } else {
            buffer.withUnsafeMutableBufferPointer { out in
                _ = UnsafeMutableBufferPointer(rebasing: out[textAt...]).initialize(from: text)
            }
        }
        return buffer.count - headerAt
    }

    /// The chunk's lines as located input (`FILE<TAB>LINE<TAB>line`, one a line), or `nil` when
    /// the chunk is damaged: its records cut or unknown, or a line the fold would not read as
    /// located input of a store of `files` files (a prefix naming another file, a line end
    /// inside a line). Each line is checked as it is written, while it is in the cache.
    package static func locatedLines(_ data: [UInt8], files: Int, maxLineBytes: Int, lines: Int? = nil) -> [UInt8]? {
        locatedLines(data, lines: lines) { line in
            if let start = line.baseAddress, memchr(start, 0x0A, line.count) != nil { return false }
            var located = RawLine(kept: line, number: 0, ending: .newline, overlongLength: nil)
            if case .success = LocatedLine.split(&located, files: files, maxLineBytes: maxLineBytes) { return true }
            return false
        }
    }

    /// The chunk's lines as located input, or `nil` when its records are cut or of an unknown
    /// form, or `accepts` refuses a line (given without its line end), or it holds another
    /// number of lines than `lines` (its row's count, when given).
    package static func locatedLines(
        _ data: [UInt8], lines: Int? = nil, accepts: (UnsafeBufferPointer<UInt8>) -> Bool = { _ in true }
    ) -> [UInt8]? {
        var records = 0
        var output: [UInt8] = []
        output.reserveCapacity(data.count * 2)
        var index = 0
        while index < data.count {
            guard index + 7 <= data.count else { return nil }
            let form = data[index]
            let prefixCount = Int(integer(data, at: index + 1, as: UInt16.self))
            let textCount = Int(integer(data, at: index + 3, as: UInt32.self))
            let prefixAt = index + 7
            let textAt = prefixAt + prefixCount
            guard form <= shorthand, textAt + textCount <= data.count else { return nil }
            let recordAt = output.count
            output.append(contentsOf: data[prefixAt..<textAt])
            let lineAt = output.count
            if form == raw {
                output.append(contentsOf: data[textAt..<(textAt + textCount)])
            } else {
                let start = output.count
                let room = LineShorthand.expandedCapacity(textCount)
                output.append(contentsOf: repeatElement(0, count: room))
                let expanded = data.withUnsafeBufferPointer { input in
                    output.withUnsafeMutableBufferPointer { out in
                        LineShorthand.expand(
                            UnsafeBufferPointer(rebasing: input[textAt..<(textAt + textCount)]), into: out.baseAddress! + start)
                    }
                }
                guard let expanded else { return nil }
                output.removeSubrange((start + expanded)...)
            }
            // As `LocatedLine.append` ends a line: reading removes one `\r` before the `\n`.
            if output.count > lineAt, output.last == 0x0D { output.append(0x0D) }
            guard output.withUnsafeBufferPointer({ accepts(UnsafeBufferPointer(rebasing: $0[recordAt...])) }) else { return nil }
            output.append(0x0A)
            records += 1
            index = textAt + textCount
        }
        if let lines, lines != records { return nil }
        return output
    }

    private static func appendInteger<T: FixedWidthInteger>(_ value: T, to buffer: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { buffer.append(contentsOf: $0) }
    }

    private static func integer<T: FixedWidthInteger>(_ data: [UInt8], at offset: Int, as type: T.Type) -> T {
        var value: T = 0
        for byte in 0..<MemoryLayout<T>.size { value |= T(data[offset + byte]) << (8 * byte) }
        return value
    }
}
