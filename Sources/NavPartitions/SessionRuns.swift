#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
package import NavReplay
import NavInput
package import NavResults
package import NavRuns

/// The folded sessions of pre-grouped input, given back in session order in bounded memory.
///
/// Pre-grouped input comes in any session order (a distributed engine groups by hash), and
/// output goes in `session_id` order, so every session's record waits until the input ends.
/// Held in memory, the records grew with the sessions: about 400 bytes each, findings or not
/// (800,000 sessions: 438 MB with `--memory-limit 128M`). Past `budgetBytes`, the records held
/// are sorted and written as a run file of a scratch directory (removed at the end and on
/// Ctrl-C), and `drain` merges the runs. A record is a session's key, the line where it began
/// (a session met twice is found here: the input was not grouped), its counts and its output.
package final class SessionRuns {
    package struct Record: RunRecordCodable {
        package var key: SessionKey
        package var start: LineLocation
        package var tally: SessionTally
        package var output: [UInt8]

        package var runKey: RunKey { key }

        /// The payload: the start, the counts, then the session's output.
        package func encodePayload(into buffer: ByteBuffer) {
            var payload: [UInt8] = []
            payload.reserveCapacity(64)
            SessionRuns.put(Int64(start.file), &payload)
            SessionRuns.put(start.line, &payload)
            tally.encode(into: &payload)
            buffer.append(payload)
            buffer.append(output)
        }

        package init(key: SessionKey, start: LineLocation, tally: SessionTally, output: [UInt8]) {
            self.key = key
            self.start = start
            self.tally = tally
            self.output = output
        }

        package init(runKey: RunKey, payload: [UInt8]) throws {
            var offset = 0
            guard let file = SessionTally.int(payload, &offset), let line = SessionTally.int(payload, &offset),
                let narrow = Int32(exactly: file), let tally = SessionTally(decoding: payload, at: &offset)
            else { throw Corrupt() }
            self.init(key: runKey, start: LineLocation(file: narrow, line: line), tally: tally, output: Array(payload[offset...]))
        }
    }

    private struct Corrupt: Error {}

    /// Run files written before they are merged into one (`SortedRunFiles`).
    package static var maximumRuns: Int { SortedRunFiles<Record>.maximumRuns }
    /// What one held record costs beside its output and id: the record, its array slot, the
    /// id's heap object and the tally's dictionaries, rounded up.
    package static let recordOverhead = 256

    private let budgetBytes: Int
    private var held: [Record] = []
    private var heldBytes = 0
    private let runs: SortedRunFiles<Record>

    package init(budgetBytes: Int, temporaryDirectory: String?) {
        self.budgetBytes = budgetBytes
        runs = SortedRunFiles(temporaryDirectory: temporaryDirectory)
    }

    /// How many run files have been written so far (for tests).
    package var runCount: Int { runs.runCount }

    package func add(_ record: Record) throws {
        heldBytes += record.output.count + record.key.id.utf8.count + Self.recordOverhead
        held.append(record)
        if heldBytes > budgetBytes { try spill() }
    }

    /// Every record in session order (records of one session in the order they came), then
    /// removes the run files.
    package func drain(_ deliver: (Record) throws -> Void) throws {
        defer {
            held = []
            runs.remove()
        }
        if runs.runCount == 0 {
            sortHeld()
            let records = held
            held = []
            for record in records { try deliver(record) }
            return
        }
        if !held.isEmpty { try spill() }
        do {
            try runs.merge(deliver)
        } catch is Corrupt {
            throw InputError(code: .unreadable, path: runs.directory ?? "", message: "a spill record of sessions does not decode")
        }
    }

    private func sortHeld() {
        held = sessionOrder(held.count) { held[$0].key }.map { held[$0] }
    }

    private func spill() throws {
        sortHeld()
        let records = held
        held = []
        heldBytes = 0
        do {
            try runs.write(sorted: records)
        } catch is Corrupt {
            throw InputError(code: .unreadable, path: runs.directory ?? "", message: "a spill record of sessions does not decode")
        }
    }

    package static func put(_ value: Int64, _ bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
}

/// The indices `0..<count` in the session order of their keys; a session met twice keeps the
/// order it came in.
package func sessionOrder(_ count: Int, key: (Int) -> SessionKey) -> [Int] {
    var order = Array(0..<count)
    order.sort { key($0) != key($1) ? key($0) < key($1) : $0 < $1 }
    return order
}

extension SessionTally {
    /// The counts as bytes (`SessionRuns`): five integers, then each rule's and each severity's
    /// count by the rule's and severity's place in `allCases`.
    package func encode(into bytes: inout [UInt8]) {
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
    package init?(decoding bytes: [UInt8], at offset: inout Int) {
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
    package static func int(_ bytes: [UInt8], _ offset: inout Int) -> Int64? {
        guard offset >= 0, bytes.count - offset >= 8 else { return nil }
        defer { offset += 8 }
        return bytes.withUnsafeBufferPointer { [offset] in $0.load(Int64.self, at: offset) }
    }
}
