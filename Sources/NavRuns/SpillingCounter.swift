#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import NavJSON
import NavInput

/// Counts labels in several groups (the report's screen paths, transitions, entries, exits and
/// screen views) exactly, in bounded memory. Past `budgetBytes`, the counts held are written,
/// sorted by label, to a run file of a scratch directory, and memory starts afresh; `top`
/// merges the runs, summing a label's counts across them, and keeps each group's highest
/// counts. The result is the same whatever order the labels came in and whether anything was
/// written or not. Labels are compared by their UTF-8 bytes, as session ids are.
///
/// Why: a nightly report counts one path per session, and paths are nearly all distinct (a
/// 4 GB log's 100,000 paths took 140 MB past the audit's own memory, kept in a dictionary).
public final class SpillingCounter: @unchecked Sendable {
    // @unchecked: not thread-safe; its owner calls it under its own lock (`ReportAccumulator`).

    public struct Entry: Sendable, Equatable {
        public var label: String
        public var count: Int
    }

    /// Run files written before they are merged into one: a bound on open files at the end
    /// and on the names the Ctrl-C handler removes (`part-0` to `part-<maximumRuns>`).
    package static let maximumRuns = 64
    /// What one held label costs beside its UTF-8 bytes: the dictionary slot (a 24-byte key,
    /// an 8-byte count, at 3/4 load) and the string's heap object, rounded up.
    package static let entryOverhead = 96

    private let budgetBytes: Int
    private let temporaryDirectory: String?
    private var counts: [RunKey: Int] = [:]
    private var heldBytes = 0
    private var scratch: (path: String, slot: Int32)?
    private var runs = 0
    /// The first error writing a run: `top` throws it (`add` is called where nothing throws).
    private var failure: (any Error)?

    /// - Parameters:
    ///   - budgetBytes: about how much the held labels may take before they are written out;
    ///     `Int.max` never writes.
    ///   - temporaryDirectory: where the scratch directory goes (`nil`: `$TMPDIR` or `/tmp`).
    public init(budgetBytes: Int = .max, temporaryDirectory: String? = nil) {
        self.budgetBytes = budgetBytes
        self.temporaryDirectory = temporaryDirectory
    }

    deinit { remove() }

    /// How many run files have been written so far (for tests).
    package var runCount: Int { runs }

    /// Adds `count` to `label` in `group` (any number; groups are kept apart).
    public func add(_ label: String, count: Int = 1, group: Int) {
        guard failure == nil else { return }
        let key = RunKey(group: group, label: label)
        let before = counts.count
        counts[key, default: 0] += count
        guard counts.count > before else { return }
        heldBytes += label.utf8.count + Self.entryOverhead
        if heldBytes > budgetBytes {
            do { try spill() } catch { failure = error }
        }
    }

    /// The `limits[group]` highest counts of each group (a group without a limit keeps none),
    /// highest first, then by label; removes the run files. Throws the error that stopped a
    /// run from being written (a full disk).
    public func top(_ limits: [Int: Int]) throws -> [Int: [Entry]] {
        defer { remove() }
        if let failure { throw failure }
        var best: [Int: [Entry]] = [:]
        func offer(_ key: RunKey, _ count: Int) {
            guard let limit = limits[key.group], limit > 0 else { return }
            var entries = best[key.group] ?? []
            let entry = Entry(label: key.label, count: count)
            let index = entries.firstIndex { Self.ranks(entry, before: $0) } ?? entries.count
            guard index < limit else { return }
            entries.insert(entry, at: index)
            if entries.count > limit { entries.removeLast() }
            best[key.group] = entries
        }
        if runs == 0 {
            for (key, count) in counts { offer(key, count) }
        } else {
            if !counts.isEmpty { try spill() }
            try merge(runs: 0..<runs) { key, count in offer(key, count) }
        }
        return best
    }

    /// Highest count first; among equal counts, the label first in UTF-8 byte order.
    package static func ranks(_ a: Entry, before b: Entry) -> Bool {
        a.count != b.count ? a.count > b.count : a.label.utf8Precedes(b.label)
    }

    /// Writes the held counts, sorted, to the next run file (merging the runs into one first,
    /// when there are `maximumRuns` of them already) and lets them go.
    private func spill() throws {
        if scratch == nil { scratch = try ScratchDirectory.make(in: temporaryDirectory, files: Self.maximumRuns + 1) }
        if runs == Self.maximumRuns { try compact() }
        let sorted = counts.sorted { $0.key < $1.key }
        counts = [:]
        heldBytes = 0
        let writer = try SpillFileWriter(path: runPath(runs), bufferBytes: 1 << 16)
        defer { writer.discard() }
        for (key, count) in sorted { try append(key, count, to: writer) }
        try writer.close()
        runs += 1
    }

    /// Merges every run into one, written under the spare name and renamed to the first.
    private func compact() throws {
        let writer = try SpillFileWriter(path: runPath(Self.maximumRuns), bufferBytes: 1 << 16)
        defer { writer.discard() }
        try merge(runs: 0..<runs) { key, count in try append(key, count, to: writer) }
        try writer.close()
        for run in 0..<runs { unlink(runPath(run)) }
        guard rename(runPath(Self.maximumRuns), runPath(0)) == 0 else {
            throw InputError(code: .unreadable, path: runPath(0), message: "cannot rename a spill file: \(String(cString: strerror(errno)))")
        }
        runs = 1
    }

    /// Each label of the runs once, in label order, with its counts summed.
    private func merge(runs range: Range<Int>, _ deliver: (RunKey, Int) throws -> Void) throws {
        var readers: [SpillOutputReader] = []
        defer { for reader in readers { reader.close() } }
        for run in range { readers.append(try SpillOutputReader(path: runPath(run), bufferBytes: 1 << 16)) }
        var pending: (key: RunKey, count: Int)?
        try SpillOutputReader.merge(readers) { key, output in
            let count = output.withUnsafeBufferPointer { Int(truncatingIfNeeded: $0.load(Int64.self, at: 0)) }
            if let held = pending, held.key == key {
                pending = (key, held.count + count)
            } else {
                if let held = pending { try deliver(held.key, held.count) }
                pending = (key, count)
            }
        }
        if let held = pending { try deliver(held.key, held.count) }
    }

    /// One record in the partitions' output format (`SpillOutputReader`): the label as the
    /// key, the group as the model, the count as the 8-byte output.
    private func append(_ key: RunKey, _ count: Int, to writer: SpillFileWriter) throws {
        let label = Array(key.label.utf8)
        writer.buffer.append(UInt32(label.count))
        writer.buffer.append(label)
        writer.buffer.append(Int32(truncatingIfNeeded: key.group))
        writer.buffer.append(UInt32(8))
        writer.buffer.append(Int64(count))
        try writer.flushIfFull()
    }

    private func runPath(_ run: Int) -> String { scratch!.path + "/part-" + String(run) }

    /// Removes the run files and the scratch directory (idempotent).
    private func remove() {
        guard let directory = scratch else { return }
        for run in 0...Self.maximumRuns { unlink(runPath(run)) }
        ScratchDirectory.remove(directory)
        scratch = nil
        runs = 0
    }
}
