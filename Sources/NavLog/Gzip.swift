import CZlib

/// gzip compression through the system zlib, for writing `.ndjson.gz` logs.
///
/// The header carries no file name and a zero modification time, so the same text always
/// compresses to the same bytes (sample logs and benchmarks stay reproducible).
public enum Gzip {
    public struct CompressionError: Error, Sendable, CustomStringConvertible {
        public var status: Int32
        public var description: String { "zlib deflate failed with status \(status)" }
    }

    public static func compress(_ input: [UInt8], level: Int32 = 6) throws -> [UInt8] {
        // zlib keeps a pointer back to the stream: it lives in allocated memory, never moved.
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deallocate() }
        var status = deflateInit2_(
            stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { throw CompressionError(status: status) }
        defer { deflateEnd(stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(stream, uLong(input.count))) + 64)
        status = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.pointee.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
                stream.pointee.avail_in = uInt(source.count)
                stream.pointee.next_out = target.baseAddress
                stream.pointee.avail_out = uInt(target.count)
                return deflate(stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { throw CompressionError(status: status) }
        return Array(output[0..<Int(stream.pointee.total_out)])
    }
}
