#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import NavJSON
import NavInput

/// Writes each invalid line as one NDJSON record so it can be fixed and fed again:
/// `{"file","line","field","reason","raw","raw_base64"}`. `raw` is the line as text when it is
/// valid UTF-8 (else `null`); `raw_base64` always holds the exact bytes, invalid UTF-8 included.
/// For an over-long line only its first `--max-line-bytes` bytes are kept.
///
/// A regular file appears only when complete (`finish`): it is written beside its path and
/// renamed, so that a run that fails (a full disk) leaves no half quarantine. A device or a FIFO
/// is written through.
public final class QuarantineWriter {
    private let handle: UnsafeMutablePointer<FILE>
    public let path: String
    /// Where a regular file is written until `finish` renames it to `path`.
    private let partialPath: String?
    /// The `errno` of the first write that failed (a full disk): `finish` reports it, since the
    /// lines it held would otherwise be lost without a word.
    private var failure: Int32 = 0
    private var closed = false

    public init(path: String) throws {
        var status = stat()
        let special = lstat(path, &status) == 0 && (status.st_mode & S_IFMT) != S_IFREG
        let target = special ? path : path + ".navreplay-partial"
        guard let handle = fopen(target, "w") else {
            throw InputError(
                code: .unreadable, path: path, message: "the quarantine file cannot be created: \(String(cString: strerror(errno)))")
        }
        self.handle = handle
        self.path = path
        partialPath = special ? nil : target
    }

    /// Writes a record made by `record(...)`.
    public func write(_ record: [UInt8]) {
        let written = record.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, handle) }
        if written < record.count && failure == 0 { failure = errno == 0 ? EIO : errno }
    }

    /// One quarantine record, its line break included.
    public static func record(file: String, line: Int64, field: String?, reason: String, raw: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.member("file", file)
        writer.member("line", line)
        writer.member("field", field)
        writer.member("reason", reason)
        writer.key("raw")
        if let text = String(validating: raw, as: UTF8.self) { writer.string(text) } else { writer.null() }
        writer.member("raw_base64", Base64.encode(raw))
        writer.endObject()
        var bytes = writer.bytes
        bytes.append(0x0A)
        return bytes
    }

    /// Flushes and closes the file and moves it into place; throws when any record could not be
    /// written (then no file is left).
    public func finish() throws {
        guard !closed else { return }
        closed = true
        if fflush(handle) != 0 && failure == 0 { failure = errno }
        if fclose(handle) != 0 && failure == 0 { failure = errno }
        if failure == 0, let partialPath, rename(partialPath, path) != 0 { failure = errno }
        if failure != 0 {
            if let partialPath { unlink(partialPath) }
            throw InputError(
                code: .unreadable, path: path,
                message: "the quarantine file could not be written completely: \(String(cString: strerror(failure)))")
        }
    }

    /// Closes the file on a path that already fails, leaving no partial file (idempotent; after
    /// `finish`, nothing).
    public func close() {
        guard !closed else { return }
        closed = true
        fclose(handle)
        if let partialPath { unlink(partialPath) }
    }
}

/// RFC 4648 base64, for raw bytes in JSON.
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    public static func encode(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= bytes.count {
            let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            for shift in [18, 12, 6, 0] { output.append(alphabet[Int((value >> UInt32(shift)) & 63)]) }
            index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
            var value = UInt32(bytes[index]) << 16
            if rest == 2 { value |= UInt32(bytes[index + 1]) << 8 }
            output.append(alphabet[Int((value >> 18) & 63)])
            output.append(alphabet[Int((value >> 12) & 63)])
            output.append(rest == 2 ? alphabet[Int((value >> 6) & 63)] : UInt8(ascii: "="))
            output.append(UInt8(ascii: "="))
        }
        return String(decoding: output, as: UTF8.self)
    }

    public static func decode(_ text: String) -> [UInt8]? {
        var values: [UInt8] = []
        for byte in text.utf8 where byte != UInt8(ascii: "=") {
            guard let value = alphabet.firstIndex(of: byte) else { return nil }
            values.append(UInt8(value))
        }
        var output: [UInt8] = []
        var index = 0
        while index < values.count {
            let chunk = values[index..<min(index + 4, values.count)]
            var accumulator: UInt32 = 0
            for (offset, value) in chunk.enumerated() { accumulator |= UInt32(value) << UInt32(18 - 6 * offset) }
            let produced = chunk.count - 1
            for offset in 0..<produced { output.append(UInt8((accumulator >> UInt32(16 - 8 * offset)) & 0xFF)) }
            index += 4
        }
        return output
    }
}
