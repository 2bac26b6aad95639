#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import NavInput

/// Sorted run files of keyed records in a scratch directory of their own, merged back in key
/// order: the disk half of every store that holds records in memory up to a budget and then
/// writes them out (held sessions, counts). Its owner sorts and batches; this writes each batch
/// as a run file (`part-N`), keeps at most `maximumRuns` of them (merging them into one past
/// that: a bound on open files at the end and on the names a signal handler removes), and
/// merges them with equal keys in the order they came. The directory is made with the first
/// run and removed (with the registry's entry) by `remove()` or when the value goes.
package final class SortedRunFiles<Record: RunRecordCodable> {
    package static var maximumRuns: Int { 64 }

    private let temporaryDirectory: String?
    /// Folds a record into the one before it with the same key, when records of one key add up
    /// (counts); `nil` keeps every record.
    private let combine: ((inout Record, Record) -> Void)?
    private var files: ScratchFileSet?
    package private(set) var runCount = 0
    /// The scratch directory, once a run is written.
    package var directory: String? { files?.directory }

    package init(temporaryDirectory: String?, combine: ((inout Record, Record) -> Void)? = nil) {
        self.temporaryDirectory = temporaryDirectory
        self.combine = combine
    }

    deinit { remove() }

    /// Writes `records`, in key order, as the next run (merging the runs into one first, when
    /// there are `maximumRuns` of them already).
    package func write(sorted records: some Sequence<Record>) throws {
        if files == nil { files = try ScratchFileSet(in: temporaryDirectory, count: Self.maximumRuns + 1, kinds: ["part-"]) }
        if runCount == Self.maximumRuns { try compact() }
        try write(records.makeIterator(), to: runPath(runCount))
        runCount += 1
    }

    /// Every record of the runs, smallest key first; equal keys in the order they came (by run,
    /// then by place), folded by `combine` if given.
    package func merge(_ deliver: (Record) throws -> Void) throws {
        try merge(runs: 0..<runCount, deliver)
    }

    /// Removes the run files and the scratch directory (idempotent).
    package func remove() {
        files?.remove()
        files = nil
        runCount = 0
    }

    private func runPath(_ run: Int) -> String { files!.path("part-", run) }

    private func write(_ records: some IteratorProtocol<Record>, to path: String) throws {
        var records = records
        let writer = try SpillFileWriter(path: path, bufferBytes: 1 << 16)
        defer { writer.discard() }
        while let record = records.next() {
            RunRecord.append(key: record.runKey, to: writer.buffer) { record.encodePayload(into: $0) }
            try writer.flushIfFull()
        }
        try writer.close()
    }

    /// Merges every run into one, written under the spare name and renamed to the first.
    private func compact() throws {
        let writer = try SpillFileWriter(path: runPath(Self.maximumRuns), bufferBytes: 1 << 16)
        defer { writer.discard() }
        try merge(runs: 0..<runCount) { record in
            RunRecord.append(key: record.runKey, to: writer.buffer) { record.encodePayload(into: $0) }
            try writer.flushIfFull()
        }
        try writer.close()
        for run in 0..<runCount { unlink(runPath(run)) }
        guard rename(runPath(Self.maximumRuns), runPath(0)) == 0 else {
            throw InputError(
                code: .unreadable, path: runPath(0), message: "cannot rename a spill file: \(String(cString: strerror(errno)))")
        }
        runCount = 1
    }

    private func merge(runs range: Range<Int>, _ deliver: (Record) throws -> Void) throws {
        var readers: [SpillOutputReader] = []
        defer { for reader in readers { reader.close() } }
        for run in range { readers.append(try SpillOutputReader(path: runPath(run), bufferBytes: 1 << 16)) }
        var pending: Record?
        try SpillOutputReader.merge(readers) { key, payload in
            let record = try Record(runKey: key, payload: payload)
            if let combine, var held = pending, held.runKey == key {
                combine(&held, record)
                pending = held
                return
            }
            if let held = pending { try deliver(held) }
            pending = record
        }
        if let held = pending { try deliver(held) }
    }
}
