#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import NavEvents
import NavInput
import NavJSON
import NavPartitions
import NavReplay
import NavResults
import NavRuns

extension RunsCheck {
    /// A partition file (`SpillPartitions.read`) replaced by the input: every record is a line
    /// handed to its session, or a finding, or the read ends with an error; bytes that do not
    /// end at a record's end are an error; the quarantine records kept aside merge back, one
    /// per finding. Form 4 references point into a small mapped input.
    static func checkPartition(_ body: [UInt8], parameter: UInt8, in scratch: ScratchSpace) -> [String] {
        let mappedPath = scratch.file("mapped.ndjson")
        scratch.store(RunsSeeds.mappedText, to: mappedPath)
        let mapped = MappedInput(path: mappedPath)
        let partitions: SpillPartitions
        do {
            partitions = try SpillPartitions(count: 1, directory: scratch.path, bufferBytes: 4096)
            try partitions.closeWriters()
        } catch {
            return ["cannot make a partition: \(error)"]
        }
        defer { partitions.remove() }
        guard scratch.store(body, to: partitions.path(0)) else { return ["cannot replace the partition file"] }
        let framed = NaivePartition.recordCount(body)
        let keepQuarantine = parameter & 1 == 1
        var buffer: [UInt8] = []
        var lines = 0
        var violations: [String] = []
        let invalid: [Finding]
        do {
            invalid = try partitions.read(
                partition: 0, files: ["a.ndjson", "b.ndjson"], mapped: [mapped, nil], keepQuarantine: keepQuarantine, buffer: &buffer
            ) { key, sessionLines in
                lines += sessionLines.count
                if sessionLines.contains(where: { $0.event.sessionID != key.id }) {
                    violations.append("a line was handed to another session")
                }
            }
        } catch {
            return violations
        }
        guard let framed else { return violations + ["a partition that does not end at a record's end was read without an error"] }
        if lines + invalid.count != framed {
            violations.append("\(framed) records gave \(lines) lines and \(invalid.count) findings")
        }
        if keepQuarantine && !invalid.isEmpty {
            do {
                let quarantine = try QuarantineWriter(path: scratch.file("quarantine.ndjson"))
                try partitions.mergeQuarantine(into: quarantine)
                try quarantine.finish()
                let written = (FuzzFiles.read(scratch.file("quarantine.ndjson")) ?? []).filter { $0 == 0x0A }.count
                if written != invalid.count { violations.append("\(invalid.count) findings but \(written) quarantine records") }
            } catch {
                violations.append("the quarantine kept aside does not merge back: \(error)")
            }
        }
        return violations
    }

    /// `SpillCodec`: bytes that decode to an event encode to bytes that decode to the same event,
    /// and those are a fixed point.
    static func checkSpillCodec(_ body: [UInt8]) -> [String] {
        guard let event = body.withUnsafeBufferPointer({ SpillCodec.decode($0) }) else { return [] }
        let buffer = ByteBuffer(capacity: 256)
        guard SpillCodec.encode(event, into: buffer) else { return ["a decoded event has no binary form"] }
        let encoded = Array(buffer.bytes)
        guard let again = encoded.withUnsafeBufferPointer({ SpillCodec.decode($0, strings: StringCache(slotsLog2: 3)) }) else {
            return ["an encoded event does not decode"]
        }
        if again != event { return ["an event encoded and decoded is another event"] }
        let other = ByteBuffer(capacity: 256)
        _ = SpillCodec.encode(again, into: other)
        return Array(other.bytes) == encoded ? [] : ["the binary form is not a fixed point"]
    }

    /// `LineShorthand`: any bytes expand within the room `expandedCapacity` promises (the buffer
    /// is exactly that long, so AddressSanitizer sees a byte past it); a line shortened expands
    /// to exactly its own bytes.
    static func checkShorthand(_ body: [UInt8]) -> [String] {
        var violations: [String] = []
        let room = LineShorthand.expandedCapacity(body.count)
        let out = UnsafeMutablePointer<UInt8>.allocate(capacity: room)
        defer { out.deallocate() }
        if let length = body.withUnsafeBufferPointer({ LineShorthand.expand($0, into: out) }) {
            if length < 0 || length > room { violations.append("expanded to \(length) bytes, past its room of \(room)") }
            violations += roundTrip(Array(UnsafeBufferPointer(start: out, count: min(max(length, 0), room))), "an expanded line")
        }
        violations += roundTrip(body, "the input as a line")
        return violations
    }

    private static func roundTrip(_ line: [UInt8], _ what: String) -> [String] {
        guard !line.isEmpty else { return [] }
        let short = UnsafeMutablePointer<UInt8>.allocate(capacity: line.count)
        defer { short.deallocate() }
        guard let length = line.withUnsafeBufferPointer({ LineShorthand.shorten($0, into: short) }) else {
            return line.contains(LineShorthand.marker) ? [] : ["\(what) without the marker byte was not shortened"]
        }
        guard length <= line.count else { return ["\(what) was shortened to more bytes"] }
        let room = LineShorthand.expandedCapacity(length)
        let out = UnsafeMutablePointer<UInt8>.allocate(capacity: room)
        defer { out.deallocate() }
        guard let expanded = LineShorthand.expand(UnsafeBufferPointer(start: short, count: length), into: out) else {
            return ["the shorthand of \(what) does not expand"]
        }
        return Array(UnsafeBufferPointer(start: out, count: expanded)) == line ? [] : ["\(what), shortened, expands to other bytes"]
    }

    /// The event-id ledger with one bucket file replaced by the input: the sessions it finds
    /// sharing an id are at least those that do (it may name more: it goes by hash), and a file
    /// that is not whole entries is an error.
    static func checkLedger(_ body: [UInt8], parameter: UInt8, in scratch: ScratchSpace) -> [String] {
        let base = scratch.file("ledger")
        mkdir(base, 0o700)
        let ledger = EventIDLedger(memoryBudget: 0, temporaryDirectory: base)
        defer { ledger.remove() }
        // Past the smallest budget (64 KiB, 16 bytes an entry): every bucket goes to its file.
        // The ids' top bits are zero: all go to bucket 0, under one session.
        for id in 0...UInt64(4096) { ledger.record(eventIDHash: id, session: 7) }
        guard let directory = ScratchSpace.onlyDirectory(in: base) else { return ["the ledger wrote no file"] }
        let bucket = Int(parameter) % EventIDLedger.bucketCount
        guard scratch.store(body, to: directory + "/ids-\(bucket)") else { return ["cannot replace a bucket file"] }
        let sharing: EventIDLedger.Sharing
        do {
            sharing = try ledger.sharing(jobs: 1)
        } catch {
            return []
        }
        guard body.count % 16 == 0 else { return ["a bucket file that is not whole entries was read without an error"] }
        // What a plain count of the replaced file's entries finds (every entry recorded went to a
        // file, and the others hold one session).
        let entries: [(id: UInt64, session: UInt64)] = (0..<(body.count / 16)).map { index in
            func word(_ at: Int) -> UInt64 { (0..<8).reduce(UInt64(0)) { $0 | UInt64(body[at + $1]) << (8 * UInt64($1)) } }
            return (word(index * 16), word(index * 16 + 8))
        }
        var owners: [UInt64: Set<UInt64>] = [:]
        for entry in entries { owners[entry.id, default: []].insert(entry.session) }
        var violations: [String] = []
        for (id, sessions) in owners where sessions.count > 1 {
            if !sharing.ids.contains(id) { violations.append("a shared id was missed") }
            if !sessions.isSubset(of: sharing.sessions) { violations.append("a session sharing an id was missed") }
        }
        return violations
    }
}

/// A plain restatement of a partition's framing: `[u32 length]` and that many bytes, at least a
/// header's (`SpillPartitions.headerBytes`).
enum NaivePartition {
    /// How many records the bytes hold, or `nil` when they do not end at a record's end.
    static func recordCount(_ bytes: [UInt8]) -> Int? {
        var offset = 0
        var count = 0
        while offset < bytes.count {
            guard bytes.count - offset >= 4 else { return nil }
            let length = (0..<4).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
            guard length >= SpillPartitions.headerBytes, bytes.count - offset - 4 >= length else { return nil }
            offset += 4 + length
            count += 1
        }
        return count
    }
}

/// Reading a whole small file.
enum FuzzFiles {
    static func read(_ path: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        do {
            try LineReader.readWholeFile(path, into: &bytes)
        } catch {
            return nil
        }
        return bytes
    }
}
