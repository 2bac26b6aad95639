#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import NavReplay
public import NavInput
public import NavResults
public import NavRuns

/// The folded sessions of pre-grouped input, given back in session order in bounded memory.
///
/// Pre-grouped input comes in any session order (a distributed engine groups by hash), and
/// output goes in `session_id` order, so every session's record waits until the input ends.
/// Held in memory, the records grew with the sessions: about 400 bytes each, findings or not
/// (800,000 sessions: 438 MB with `--memory-limit 128M`). Past `budgetBytes`, the records held
/// are sorted and written as a run file of a scratch directory (removed at the end and on
/// Ctrl-C), and `drain` merges the runs. A record is a session's key, the line where it began
/// (a session met twice is found here: the input was not grouped), its counts and its output.
final class SessionRuns {
    struct Record {
        var key: SessionKey
        var start: LineLocation
        var tally: SessionTally
        var output: [UInt8]
    }

    /// Run files written before they are merged into one (as `SpillingCounter`).
    static let maximumRuns = 64
    /// What one held record costs beside its output and id: the record, its array slot, the
    /// id's heap object and the tally's dictionaries, rounded up.
    static let recordOverhead = 256

    private let budgetBytes: Int
    private let temporaryDirectory: String?
    private var held: [Record] = []
    private var heldBytes = 0
    private var scratch: (path: String, slot: Int32)?
    private var runs = 0

    init(budgetBytes: Int, temporaryDirectory: String?) {
        self.budgetBytes = budgetBytes
        self.temporaryDirectory = temporaryDirectory
    }

    deinit { remove() }

    /// How many run files have been written so far (for tests).
    var runCount: Int { runs }

    func add(_ record: Record) throws {
        heldBytes += record.output.count + record.key.id.utf8.count + Self.recordOverhead
        held.append(record)
        if heldBytes > budgetBytes { try spill() }
    }

    /// Every record in session order (records of one session in the order they came), then
    /// removes the run files.
    func drain(_ deliver: (Record) throws -> Void) throws {
        defer { remove() }
        if runs == 0 {
            sortHeld()
            let records = held
            held = []
            for record in records { try deliver(record) }
            return
        }
        if !held.isEmpty { try spill() }
        try merge(runs: 0..<runs, deliver)
    }

    private func sortHeld() {
        held = sessionOrder(held.count) { held[$0].key }.map { held[$0] }
    }

    private func spill() throws {
        if scratch == nil { scratch = try ScratchDirectory.make(in: temporaryDirectory, files: Self.maximumRuns + 1) }
        if runs == Self.maximumRuns { try compact() }
        sortHeld()
        let records = held
        held = []
        heldBytes = 0
        let writer = try SpillFileWriter(path: runPath(runs), bufferBytes: 1 << 16)
        defer { writer.discard() }
        for record in records { try append(record, to: writer) }
        try writer.close()
        runs += 1
    }

    /// Merges every run into one, written under the spare name and renamed to the first.
    private func compact() throws {
        let writer = try SpillFileWriter(path: runPath(Self.maximumRuns), bufferBytes: 1 << 16)
        defer { writer.discard() }
        try merge(runs: 0..<runs) { record in try append(record, to: writer) }
        try writer.close()
        for run in 0..<runs { unlink(runPath(run)) }
        guard rename(runPath(Self.maximumRuns), runPath(0)) == 0 else {
            throw InputError(code: .unreadable, path: runPath(0), message: "cannot rename a spill file: \(String(cString: strerror(errno)))")
        }
        runs = 1
    }

    /// A k-way merge of the runs, smallest key first; equal keys by run, so in the order they came.
    private func merge(runs range: Range<Int>, _ deliver: (Record) throws -> Void) throws {
        var readers: [SpillOutputReader] = []
        defer { for reader in readers { reader.close() } }
        for run in range { readers.append(try SpillOutputReader(path: runPath(run), bufferBytes: 1 << 16)) }
        var heads: [Record?] = []
        for reader in readers { heads.append(try reader.next().map(record)) }
        var heap = MinHeap<Int> { heads[$0]!.key != heads[$1]!.key ? heads[$0]!.key < heads[$1]!.key : $0 < $1 }
        for index in readers.indices where heads[index] != nil { heap.push(index) }
        while let index = heap.pop() {
            try deliver(heads[index]!)
            heads[index] = try readers[index].next().map(record)
            if heads[index] != nil { heap.push(index) }
        }
    }

    /// One record in the partitions' output format (`SpillOutputReader`): the key, and as its
    /// output the start, the counts, then the session's output.
    private func append(_ record: Record, to writer: SpillFileWriter) throws {
        var payload: [UInt8] = []
        payload.reserveCapacity(64 + record.output.count)
        Self.put(Int64(record.start.file), &payload)
        Self.put(record.start.line, &payload)
        record.tally.encode(into: &payload)
        payload += record.output
        let id = Array(record.key.id.utf8)
        writer.buffer.append(UInt32(id.count))
        writer.buffer.append(id)
        writer.buffer.append(Int32(truncatingIfNeeded: record.key.model))
        writer.buffer.append(UInt32(payload.count))
        writer.buffer.append(payload)
        try writer.flushIfFull()
    }

    private func record(_ entry: (key: SessionKey, output: [UInt8])) throws -> Record {
        var offset = 0
        guard let file = SessionTally.int(entry.output, &offset), let line = SessionTally.int(entry.output, &offset),
            let narrow = Int32(exactly: file), let tally = SessionTally(decoding: entry.output, at: &offset)
        else { throw corrupt() }
        return Record(
            key: entry.key, start: LineLocation(file: narrow, line: line), tally: tally, output: Array(entry.output[offset...]))
    }

    static func put(_ value: Int64, _ bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    private func corrupt() -> InputError {
        InputError(code: .unreadable, path: scratch?.path ?? "", message: "a spill record of sessions does not decode")
    }

    private func runPath(_ run: Int) -> String { scratch!.path + "/part-" + String(run) }

    /// Removes the run files and the scratch directory (idempotent).
    private func remove() {
        held = []
        guard let directory = scratch else { return }
        for run in 0...Self.maximumRuns { unlink(runPath(run)) }
        ScratchDirectory.remove(directory)
        scratch = nil
        runs = 0
    }
}

/// The indices `0..<count` in the session order of their keys; a session met twice keeps the
/// order it came in.
func sessionOrder(_ count: Int, key: (Int) -> SessionKey) -> [Int] {
    var order = Array(0..<count)
    order.sort { key($0) != key($1) ? key($0) < key($1) : $0 < $1 }
    return order
}

extension SessionTally {
    /// The counts as bytes (`SessionRuns`): five integers, then each rule's and each severity's
    /// count by the rule's and severity's place in `allCases`.
    func encode(into bytes: inout [UInt8]) {
        for value in [Int64(sessions), redeliveries, duplicates, events, Int64(findings)] { SessionRuns.put(value, &bytes) }
        SessionRuns.put(Int64(findingsByRule.count), &bytes)
        for (rule, count) in findingsByRule.sorted(by: { $0.key < $1.key }) {
            SessionRuns.put(Int64(Rule.allCases.firstIndex(of: rule)!), &bytes)
            SessionRuns.put(Int64(count), &bytes)
        }
        SessionRuns.put(Int64(keptBySeverity.count), &bytes)
        for (severity, count) in keptBySeverity.sorted(by: { $0.key < $1.key }) {
            SessionRuns.put(Int64(Severity.allCases.firstIndex(of: severity)!), &bytes)
            SessionRuns.put(Int64(count), &bytes)
        }
    }

    /// The counts `encode(into:)` wrote at `offset`, which moves past them; `nil` if they do not decode.
    init?(decoding bytes: [UInt8], at offset: inout Int) {
        self.init()
        guard let sessions = Self.int(bytes, &offset), let redeliveries = Self.int(bytes, &offset),
            let duplicates = Self.int(bytes, &offset), let events = Self.int(bytes, &offset),
            let findings = Self.int(bytes, &offset)
        else { return nil }
        self.sessions = Int(sessions)
        self.redeliveries = redeliveries
        self.duplicates = duplicates
        self.events = events
        self.findings = Int(findings)
        guard let rules = Self.int(bytes, &offset), rules >= 0, rules <= Rule.allCases.count else { return nil }
        for _ in 0..<rules {
            guard let index = Self.int(bytes, &offset), Rule.allCases.indices.contains(Int(index)), let count = Self.int(bytes, &offset)
            else { return nil }
            findingsByRule[Rule.allCases[Int(index)]] = Int(count)
        }
        guard let severities = Self.int(bytes, &offset), severities >= 0, severities <= Severity.allCases.count else { return nil }
        for _ in 0..<severities {
            guard let index = Self.int(bytes, &offset), Severity.allCases.indices.contains(Int(index)),
                let count = Self.int(bytes, &offset)
            else { return nil }
            keptBySeverity[Severity.allCases[Int(index)]] = Int(count)
        }
    }

    /// A little-endian 8-byte integer at `offset`, which moves past it.
    static func int(_ bytes: [UInt8], _ offset: inout Int) -> Int64? {
        guard offset >= 0, bytes.count - offset >= 8 else { return nil }
        defer { offset += 8 }
        return bytes.withUnsafeBufferPointer { [offset] in $0.load(Int64.self, at: offset) }
    }
}
