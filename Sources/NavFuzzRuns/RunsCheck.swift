#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import NavRuns

/// The `runs` fuzz target: the readers of every on-disk form the engine writes and reads back,
/// fed corrupted bytes. Each reader must give back what was written when the bytes are intact,
/// and otherwise end with an error: never crash, loop, allocate past what the bytes can hold, or
/// drop a record without a word.
///
/// The input's first byte picks the reader (`selection`, modulo its count), the second is a
/// parameter of that reader's check, the rest is the file (or buffer) the reader is given. The
/// seeds (`RunsSeeds`) are files the writers made, which the fuzzer then corrupts.
public enum RunsCheck {
    /// The readers, each with its check (`RunsCheck+Files.swift`, `RunsCheck+Partitions.swift`).
    /// A new on-disk form (the ingestion store's files) adds a case, a check and its seeds.
    public enum Reader: UInt8, CaseIterable, Sendable {
        /// `SpillOutputReader`: run files of `RunRecord`s (held output, quarantine records).
        case runRecords
        /// `SpillPartitions.read`: a partition file (forms 0 to 5), and its quarantine merged back.
        case partition
        /// `SpillCodec`: the binary form of a spilled event.
        case spillCodec
        /// `LineShorthand`: the shorthand of lines copied to partitions.
        case shorthand
        /// `SortedRunFiles` of `SessionRuns.Record`: pre-grouped sessions held in runs.
        case sessionRuns
        /// `SpillingCounter`: the report's label counts, spilled and merged.
        case counter
        /// `EventIDLedger`: the event-id ledger's bucket files.
        case ledger
        /// `OutputStore`: output set aside for session order, read back at its place.
        case outputStore
    }

    /// The readers as the first byte picks them: each as often as its surface is rich for its
    /// cost. The parsers of bytes in memory (the codec, the shorthand) and the framings most
    /// read (run records, partitions) are picked most; the ledger, whose form is a plain array
    /// of entries and whose check makes 64 files, least.
    public static let selection: [Reader] =
        [Reader](repeating: .runRecords, count: 4) + [Reader](repeating: .partition, count: 4)
        + [Reader](repeating: .spillCodec, count: 4) + [Reader](repeating: .shorthand, count: 4)
        + [Reader](repeating: .sessionRuns, count: 2) + [Reader](repeating: .counter, count: 2) + [.ledger]
        + [Reader](repeating: .outputStore, count: 2)

    /// How many `RunRecord`s a run file's bytes hold, by a plain restatement of the framing;
    /// `nil` when they do not end at a record's end.
    public static func framedRecordCount(_ bytes: [UInt8]) -> Int? { NaiveRecord.parse(bytes)?.count }

    /// The byte that picks `reader` (for seeds).
    static func selector(of reader: Reader) -> UInt8 { UInt8(selection.firstIndex(of: reader)!) }

    public static func check(_ input: UnsafeBufferPointer<UInt8>) -> [String] {
        guard let first = input.first else { return [] }
        let reader = selection[Int(first) % selection.count]
        let parameter = input.count > 1 ? input[1] : 0
        let body = Array(input.dropFirst(2))
        var violations: [String]
        switch reader {
        case .spillCodec: violations = checkSpillCodec(body)
        case .shorthand: violations = checkShorthand(body)
        default:
            guard let scratch = ScratchSpace() else { return ["cannot make a scratch directory"] }
            switch reader {
            case .runRecords: violations = checkRunRecords(body, parameter: parameter, in: scratch)
            case .partition: violations = checkPartition(body, parameter: parameter, in: scratch)
            case .sessionRuns: violations = checkSessionRuns(body, in: scratch)
            case .counter: violations = checkCounter(body, parameter: parameter, in: scratch)
            case .ledger: violations = checkLedger(body, parameter: parameter, in: scratch)
            case .outputStore, .spillCodec, .shorthand: violations = checkOutputStore(body, parameter: parameter, in: scratch)
            }
            violations += scratch.remove()
        }
        return violations.map { "\(reader): \($0)" }
    }
}

/// A scratch directory of one check, on a memory file system when there is one (`/dev/shm`):
/// the readers read files, and the target runs thousands of checks a second.
package struct ScratchSpace {
    package let path: String

    package init?() {
        var base = "/dev/shm"
        if access(base, W_OK) != 0 {
            base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        }
        var template = Array("\(base)/navreplay-fuzz-runs-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else { return nil }
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    package func file(_ name: String) -> String { path + "/" + name }

    /// Writes `bytes` as the whole of `path` (made or emptied).
    @discardableResult
    package func store(_ bytes: [UInt8], to path: String) -> Bool {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// The names in a directory.
    static func entries(of directory: String) -> [String] {
        guard let handle = opendir(directory) else { return [] }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// The one directory a store made in `directory` (its scratch directory).
    static func onlyDirectory(in directory: String) -> String? {
        let names = entries(of: directory)
        return names.count == 1 ? directory + "/" + names[0] : nil
    }

    /// Removes the directory; what a reader left behind in it is a broken invariant (its
    /// cleanup must remove what it made, even after an error), and is removed too.
    package func remove() -> [String] {
        var left: [String] = []
        func sweep(_ directory: String, _ relative: String) {
            for name in ScratchSpace.entries(of: directory) {
                let full = directory + "/" + name
                if unlink(full) != 0 {
                    sweep(full, relative + name + "/")
                    rmdir(full)
                }
                left.append(relative + name)
            }
        }
        // The check's own files are removed by name first.
        for name in ["input", "mapped.ndjson", "quarantine.ndjson"] { unlink(file(name)) }
        sweep(path, "")
        rmdir(path)
        let stores = Set(["counter", "ledger", "store", "runs"])
        let leftovers = left.filter { !stores.contains($0) }
        return leftovers.isEmpty ? [] : ["files left behind: \(leftovers.prefix(8))"]
    }
}

/// A plain restatement of `RunRecord`'s framing, `[u32 label length][label][i32 group][u32
/// payload length][payload]`, little-endian: the records, or `nil` when the bytes do not end
/// at a record's end.
struct NaiveRecord: Equatable {
    var label: [UInt8]
    var group: Int32
    var payload: [UInt8]

    static func parse(_ bytes: [UInt8]) -> [NaiveRecord]? {
        var records: [NaiveRecord] = []
        var offset = 0
        func integer(_ at: Int) -> UInt32 {
            (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[at + $1]) << (8 * UInt32($1)) }
        }
        while offset < bytes.count {
            guard bytes.count - offset >= 4 else { return nil }
            let labelLength = Int(integer(offset))
            guard bytes.count - offset - 4 >= labelLength + 8 else { return nil }
            let label = Array(bytes[(offset + 4)..<(offset + 4 + labelLength)])
            let group = Int32(bitPattern: integer(offset + 4 + labelLength))
            let payloadLength = Int(integer(offset + 8 + labelLength))
            let payloadStart = offset + 12 + labelLength
            guard bytes.count - payloadStart >= payloadLength else { return nil }
            records.append(NaiveRecord(label: label, group: group, payload: Array(bytes[payloadStart..<(payloadStart + payloadLength)])))
            offset = payloadStart + payloadLength
        }
        return records
    }

    /// The record as `RunRecord.append` writes it.
    static func encode(_ records: [(key: RunKey, payload: [UInt8])]) -> [UInt8] {
        let buffer = ByteBuffer(capacity: 256)
        for record in records { RunRecord.append(key: record.key, payload: record.payload, to: buffer) }
        return Array(buffer.bytes)
    }
}
