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
public final class SpillingCounter {
    // Not Sendable: not thread-safe; its owner calls it under its own lock (`ReportAccumulator`).

    public struct Entry: Sendable, Equatable {
        public var label: String
        public var count: Int
    }

    /// One label's count, as a run file holds it: the label and group as the key, the count as
    /// an 8-byte payload.
    struct Counted: RunRecordCodable {
        var runKey: RunKey
        var count: Int

        init(runKey: RunKey, count: Int) {
            self.runKey = runKey
            self.count = count
        }

        func encodePayload(into buffer: ByteBuffer) { buffer.append(Int64(count)) }

        init(runKey: RunKey, payload: [UInt8]) throws {
            guard payload.count == 8 else {
                throw InputError(code: .unreadable, path: "", message: "a spill record of counts does not decode")
            }
            self.init(runKey: runKey, count: payload.withUnsafeBufferPointer { Int(truncatingIfNeeded: $0.load(Int64.self, at: 0)) })
        }
    }

    /// Run files written before they are merged into one (`SortedRunFiles`).
    package static var maximumRuns: Int { SortedRunFiles<Counted>.maximumRuns }
    /// What one held label costs beside its UTF-8 bytes: the dictionary slot (a 24-byte key,
    /// an 8-byte count, at 3/4 load) and the string's heap object, rounded up.
    package static let entryOverhead = 96

    private let budgetBytes: Int
    private var counts: [RunKey: Int] = [:]
    private var heldBytes = 0
    private let runs: SortedRunFiles<Counted>
    /// The first error writing a run: `top` throws it (`add` is called where nothing throws).
    private var failure: (any Error)?

    /// - Parameters:
    ///   - budgetBytes: about how much the held labels may take before they are written out;
    ///     `Int.max` never writes.
    ///   - temporaryDirectory: where the scratch directory goes (`nil`: `$TMPDIR` or `/tmp`).
    public init(budgetBytes: Int = .max, temporaryDirectory: String? = nil) {
        self.budgetBytes = budgetBytes
        runs = SortedRunFiles(temporaryDirectory: temporaryDirectory) { held, next in held.count += next.count }
    }

    /// How many run files have been written so far (for tests).
    package var runCount: Int { runs.runCount }

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
        defer { runs.remove() }
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
        if runs.runCount == 0 {
            for (key, count) in counts { offer(key, count) }
        } else {
            if !counts.isEmpty { try spill() }
            try runs.merge { offer($0.runKey, $0.count) }
        }
        return best
    }

    /// Highest count first; among equal counts, the label first in UTF-8 byte order.
    package static func ranks(_ a: Entry, before b: Entry) -> Bool {
        a.count != b.count ? a.count > b.count : a.label.utf8Precedes(b.label)
    }

    /// Writes the held counts, sorted, as the next run and lets them go.
    private func spill() throws {
        let sorted = counts.sorted { $0.key < $1.key }
        counts = [:]
        heldBytes = 0
        try runs.write(sorted: sorted.lazy.map { Counted(runKey: $0.key, count: $0.value) })
    }
}
