#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import CNavSupport
import Dispatch
import NavEvents
import NavJSON
import NavModel
package import NavReplay
package import NavInput
package import NavResults
package import NavRuns

/// One partition record, its length field included, read through the header's fields (see
/// `SpillPartitions`: `[u32 length][i32 model][i32 file][i64 line][u8 form][u32 session tag]`).
package struct SpillRecord {
    package let bytes: UnsafeBufferPointer<UInt8>

    /// The record starting at `start`, whose length field has been checked against its buffer.
    package init(startingAt start: UnsafePointer<UInt8>) {
        let length = Int(UnsafeBufferPointer(start: start, count: 4).load(UInt32.self, at: 0))
        bytes = UnsafeBufferPointer(start: start, count: 4 + length)
    }

    package var model: Int { Int(bytes.load(Int32.self, at: 4)) }
    package var location: LineLocation { LineLocation(file: bytes.load(Int32.self, at: 8), line: bytes.load(Int64.self, at: 12)) }
    package var form: UInt8 { bytes[20] }
    package var tag: UInt32 { bytes.load(UInt32.self, at: 21) }
    /// Where the form's own fields begin.
    package static let fieldsOffset = 4 + SpillPartitions.headerBytes
}

/// What folding one partition gave.
package struct FoldedPartition: Sendable {
    package var tally = SessionTally()
    package var sessions: [FoldedSession] = []
    /// With streamed output: the sessions whose output is made when it is written
    /// (`FoldedSession.isDeferred`), kept out of the output file.
    package var deferred: [FoldedSession] = []
    /// Routed lines that turned out not to be valid events.
    package var invalid: [Finding]

    package init(invalid: [Finding]) { self.invalid = invalid }
}

/// The temporary partition files of one spilled audit.
///
/// A record is `[u32 length][i32 model][i32 file][i64 line][u8 form][u32 session tag]` and
/// then, by form:
///
/// - a decoded line (held, then spilled): `[u64 identity][u64 content identity][u64 event_id
///   hash][u64 correlation_id hash]` and the event, in `SpillCodec`'s binary form (form 1) or as
///   JSON (form 0: the original line when it is at hand, else the canonical form, which decodes
///   into the same event). The hashes are the original line's, so redeliveries are still
///   recognised after the round trip;
/// - a line routed by its session only: its raw bytes (form 2, or 3 with no line end), or in
///   `LineShorthand` (form 5) when the inputs are large (`AuditConfiguration.shorthandFromBytes`);
/// - a line of a mapped input: `[u64 offset][u32 length]` in the file (form 4), 37 bytes in
///   all (57 with the hashes' slots, which routed lines never need: a 1 GB log's references
///   went from 177 to 110 MB; 123 MB with the session tag).
///
/// With streamed output, each partition also gets an output file of records
/// `[u32 id length][id][i32 model][u32 output length][output]`, sorted by session.
package final class SpillPartitions: @unchecked Sendable {
    // @unchecked: writers are used by the reading thread only; after `closeWriters()`,
    // partitions are only read, each by one job, and output file `n` is written only by the
    // job folding partition `n`.
    package let count: Int
    /// The scratch directory and its numbered files (`part-N`, `out-N`, `bad-N`, `bad-reading`).
    private let files: ScratchFileSet
    package var directory: String { files.directory }
    private var writers: [SpillFileWriter]
    private let bufferBytes: Int

    /// Partitions go to files, which stay in the page cache: buffers kept in memory instead fold a
    /// 1 GB or 4 GB log's references no faster and raise the peak (BENCHMARKS.md, the engine's
    /// mechanisms).
    package init(count: Int, directory: String?, bufferBytes: Int) throws {
        self.count = count
        self.bufferBytes = bufferBytes
        files = try ScratchFileSet(in: directory, count: count, kinds: ["part-", "out-", "bad-"])
        writers = []
        do {
            for partition in 0..<count {
                writers.append(try SpillFileWriter(path: path(partition), bufferBytes: bufferBytes))
            }
        } catch {
            remove()
            throw error
        }
    }

    package func path(_ partition: Int) -> String { files.path("part-", partition) }
    package func outputPath(_ partition: Int) -> String { files.path("out-", partition) }
    /// Quarantine records of a partition's lines found invalid while folding.
    package func quarantinePath(_ partition: Int) -> String { files.path("bad-", partition) }
    /// Quarantine records of lines found invalid while reading.
    package var readingQuarantinePath: String { directory + "/bad-reading" }

    /// Writes a line routed by its session only (form 2, or 3 if it has no line end), to be
    /// decoded when its partition folds.
    package func writeUndecoded(
        sessionHash: UInt64, model: Int, location: LineLocation, unterminated: Bool, raw: UnsafeBufferPointer<UInt8>
    ) throws {
        try writeLine(sessionHash: sessionHash, model: model, location: location, form: unterminated ? 3 : 2, bytes: raw)
    }

    /// Writes a routed line in `LineShorthand` (form 5), made by the decoding jobs.
    package func writeShortened(sessionHash: UInt64, model: Int, location: LineLocation, short: UnsafeBufferPointer<UInt8>) throws {
        try writeLine(sessionHash: sessionHash, model: model, location: location, form: 5, bytes: short)
    }

    private func writeLine(sessionHash: UInt64, model: Int, location: LineLocation, form: UInt8, bytes: UnsafeBufferPointer<UInt8>) throws {
        let writer = writers[Int(sessionHash % UInt64(count))]
        let buffer = writer.buffer
        _ = buffer.append(upTo: 4 + SpillPartitions.headerBytes) { start in
            var record = RecordStores(start)
            SpillPartitions.putHeader(
                &record, length: SpillPartitions.headerBytes + bytes.count, sessionHash: sessionHash, model: model, location: location,
                form: form)
            return record.count
        }
        buffer.append(UnsafeRawBufferPointer(bytes))
        if writer.isFull { try writer.flush() }
    }

    /// Writes a reference to a line of a mapped input (form 4): its offset and length.
    package func writeReference(sessionHash: UInt64, model: Int, location: LineLocation, offset: Int, length: Int) throws {
        let writer = writers[Int(sessionHash % UInt64(count))]
        SpillPartitions.appendReference(
            to: writer.buffer, sessionHash: sessionHash, model: model, location: location, offset: offset, length: length)
        if writer.isFull { try writer.flush() }
    }

    /// A reference record (form 4), `4 + referenceBytes` bytes; its line number is at
    /// `referenceLineOffset`.
    package static func appendReference(
        to buffer: ByteBuffer, sessionHash: UInt64, model: Int, location: LineLocation, offset: Int, length: Int
    ) {
        // One reserve and plain stores, a record a mapped line: 0.8% fewer instructions in an
        // audit than an append a field.
        _ = buffer.append(upTo: 4 + referenceBytes) { start in
            var record = RecordStores(start)
            putHeader(&record, length: referenceBytes, sessionHash: sessionHash, model: model, location: location, form: 4)
            record.put(UInt64(offset))
            record.put(UInt32(length))
            return record.count
        }
    }

    /// A record's length and header (`headerBytes`): its model, file, line, form and session tag.
    private static func putHeader(
        _ record: inout RecordStores, length: Int, sessionHash: UInt64, model: Int, location: LineLocation, form: UInt8
    ) {
        record.put(UInt32(length))
        record.put(Int32(model))
        record.put(location.file)
        record.put(location.line)
        record.put(form)
        record.put(tag(sessionHash: sessionHash))
    }

    /// Whether a line can be referenced in place (its length fits the record's 32 bits).
    package static func canReference(length: Int) -> Bool { length <= Int(UInt32.max) }

    /// Where a record's line number lies, from the record's start: after its length, model and file.
    package static let referenceLineOffset = 4 + 4 + 4

    /// Appends a buffer of whole records (a chunk's references) to a partition, after what it
    /// holds.
    package func append(records: ByteBuffer, to partition: Int) throws {
        try writers[partition].write(records: records)
    }

    /// Writes one line to its session's partition: in `SpillCodec`'s binary form, or else as
    /// JSON (the original `raw` line if given, else the canonical form).
    package func write(key: SessionKey, line: SessionLine, raw: UnsafeBufferPointer<UInt8>?) throws {
        let sessionHash = StableHash.string(key.id)
        let writer = writers[Int(sessionHash % UInt64(count))]
        let buffer = writer.buffer
        let start = buffer.count
        buffer.append(UInt32(0))  // the length, set below
        buffer.append(Int32(key.model))
        buffer.append(line.location.file)
        buffer.append(line.location.line)
        let form = buffer.count
        buffer.append(UInt8(1))
        buffer.append(SpillPartitions.tag(sessionHash: sessionHash))
        buffer.append(line.decoded.identity)
        buffer.append(line.decoded.contentIdentity)
        buffer.append(line.decoded.eventIDHash)
        buffer.append(line.decoded.correlationIDHash)
        if !SpillCodec.encode(line.event, into: buffer) {
            buffer.patch(UInt8(0), at: form)
            if let raw {
                buffer.append(UnsafeRawBufferPointer(raw))
            } else {
                var json = JSONWriter(reservingCapacity: 512)
                line.event.write(to: &json)
                buffer.append(json.bytes)
            }
        }
        buffer.patch(UInt32(buffer.count - start - 4), at: start)
        if writer.isFull { try writer.flush() }
    }

    /// How many partitions may be open at once: up to 4,096 (64 GB of input in 16 MB
    /// partitions), as the open-files limit allows once raised to its hard limit.
    package static func maximumCount() -> Int {
        #if canImport(Glibc)
            let resource = Int32(RLIMIT_NOFILE.rawValue)
        #else
            let resource = RLIMIT_NOFILE
        #endif
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return 512 }
        let wanted = rlim_t(4096 + 256)
        if limit.rlim_cur < wanted && limit.rlim_max > limit.rlim_cur {
            var raised = limit
            raised.rlim_cur = min(wanted, limit.rlim_max)
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return max(8, min(4096, Int(limit.rlim_cur) - 256))
    }

    /// The record header after its length: model, file, line, the form and the session tag.
    package static let headerBytes = 4 + 4 + 8 + 1 + 4
    /// The session tag ends the header: the high half of the session id's `StableHash` (whose
    /// remainder chose the partition), so that a partition's records can be grouped by session
    /// before any is decoded (`SpillRecord.tag`).
    package static func tag(sessionHash: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: sessionHash >> 32) }
    /// A reference's record after its length: the header, the offset and the line's length.
    package static let referenceBytes = headerBytes + 8 + 4
    /// The four hashes that follow the header of a decoded line (forms 0 and 1).
    package static let hashBytes = 8 * 4

    package func closeWriters() throws {
        for writer in writers { try writer.close() }
        writers = []
    }

    /// Reads one partition back and hands its sessions to `fold`, one at a time, each with its
    /// lines in the partition's (line) order. Routed lines are decoded here; those that are not
    /// valid events come back as findings (and, with `keepQuarantine`, as quarantine records in
    /// the partition's `bad-` file, in line order).
    ///
    /// The records are first grouped by the session tag in their header, so that a session's
    /// lines are decoded together and folded at once, while their events are still in the
    /// cache, and only one session's events are in memory at a time. (Decoding the whole
    /// partition into a dictionary of sessions first cost a session lookup and a share of an
    /// array's regrowth per line, and the fold found the events evicted.)
    ///
    /// With `long`, a session too large to hold folds from disk (`LongSession`), and a partition
    /// file too large to read whole is read in pieces.
    package func read(
        partition: Int, files: [String], mapped: [MappedInput?] = [], keepQuarantine: Bool, buffer bytes: inout [UInt8],
        long: LongSessions? = nil, fold: (SessionKey, inout [SessionLine]) throws -> Void
    ) throws -> [Finding] {
        let decoder = PartitionDecoder(corrupt: corrupt(partition), files: files, mapped: mapped, keepQuarantine: keepQuarantine)
        var starts: [UnsafePointer<UInt8>] = []
        if let long, Self.size(of: path(partition)) > long.readLimit {
            try readInPieces(partition, decoder, long, buffer: &bytes, fold: fold)
        } else {
            try LineReader.readWholeFile(path(partition), into: &bytes)
            // Gone as soon as it is read: its pages need never be written back to the disk (on
            // a 4 GB log, the kernel's writeback of partitions no longer needed cost more than
            // the fold).
            unlink(path(partition))
            try bytes.withUnsafeBufferPointer {
                // A file that does not end at a record's end lost records: an error, not a
                // shorter partition.
                guard records(in: $0, into: &starts) else { throw corrupt(partition) }
                try foldAll(starts, decoder, long: long, fold: fold)
            }
        }
        var quarantined = decoder.quarantined
        if !quarantined.isEmpty {
            // Sessions fold in tag order; the quarantine keeps line order.
            quarantined.sort { $0.location < $1.location }
            let quarantine = try SpillFileWriter(path: quarantinePath(partition), bufferBytes: 1 << 16)
            defer { quarantine.discard() }
            for (location, record) in quarantined { try quarantine.appendLocated(record, at: location) }
            try quarantine.close()
        }
        return decoder.invalid
    }

    /// Every record, by where it starts (its length field), in the partition's order; `false`
    /// when the bytes do not end at a record's end.
    func records(in buffer: UnsafeBufferPointer<UInt8>, into records: inout [UnsafePointer<UInt8>]) -> Bool {
        var offset = 0
        while offset + 4 + SpillPartitions.headerBytes <= buffer.count {
            let length = Int(buffer.load(UInt32.self, at: offset))
            guard length >= SpillPartitions.headerBytes, offset + 4 + length <= buffer.count else { return false }
            records.append(buffer.baseAddress! + offset)
            offset += 4 + length
        }
        return offset == buffer.count
    }

    /// Groups the records by session tag and folds each session's decoded lines (those of a tag
    /// past `long`'s bytes, from disk).
    func foldAll(
        _ records: [UnsafePointer<UInt8>], _ decoder: PartitionDecoder, long: LongSessions?,
        fold: (SessionKey, inout [SessionLine]) throws -> Void
    ) throws {
        @inline(__always) func record(_ index: Int32) -> SpillRecord { SpillRecord(startingAt: records[Int(index)]) }
        let groups = SessionTagGroups(records.map { SpillRecord(startingAt: $0).tag })
        var lines: [SessionLine] = []
        var others: [SessionKey: [SessionLine]] = [:]
        for group in 0..<groups.count {
            let members = groups.members(of: group)
            if let long, members.reduce(0, { $0 + Self.lineBytes(record($1)) }) > long.sessionBytes {
                try foldLong(members.lazy.map(record), decoder, long)
                continue
            }
            lines.reserveCapacity(members.count)
            var key: SessionKey?
            for position in members.indices {
                let current = record(members[position])
                let location = current.location
                guard let decoded = try decoder.decode(current, location: location) else { continue }
                // Moved, not copied, into its session (a copy retained and released every string).
                let lineKey = SessionKey(model: current.model, id: decoded.event.sessionID)
                if key == nil { key = lineKey }
                if lineKey == key {
                    lines.append(SessionLine(decoded: consume decoded, location: location))
                } else {
                    // Another session with the same tag (or the same id under another model).
                    others[lineKey, default: []].append(SessionLine(decoded: consume decoded, location: location))
                }
            }
            if let key { try fold(key, &lines) }
            lines.removeAll(keepingCapacity: true)
            for (otherKey, var otherLines) in others { try fold(otherKey, &otherLines) }
            others.removeAll()
        }
    }

    func corrupt(_ partition: Int) -> InputError {
        InputError(code: .unreadable, path: path(partition), message: "a spill record does not decode")
    }

    /// Writes the quarantine records kept aside (while reading, and per partition while
    /// folding) into `quarantine`, in line order: each file is in line order already.
    package func mergeQuarantine(into quarantine: QuarantineWriter) throws {
        var readers: [SpillOutputReader] = []
        defer { for reader in readers { reader.close() } }
        for path in [readingQuarantinePath] + (0..<count).map(quarantinePath) where access(path, F_OK) == 0 {
            readers.append(try SpillOutputReader(path: path, bufferBytes: 1 << 16))
        }
        try SpillOutputReader.merge(readers) { _, record in quarantine.write(record) }
    }

    /// Writes one partition's folded sessions (in session order) to its output file and
    /// returns their counts. Sessions with no output take no record.
    package func writeOutput(partition: Int, _ folded: [FoldedSession]) throws -> SessionTally {
        let writer = try SpillFileWriter(path: outputPath(partition), bufferBytes: bufferBytes)
        var tally = SessionTally()
        for session in folded {
            tally.add(session.tally)
            guard !session.output.isEmpty else { continue }
            RunRecord.append(key: session.key, payload: session.output, to: writer.buffer)
            try writer.flushIfFull()
        }
        try writer.close()
        return tally
    }

    /// Merges the sorted output files into one stream in session order (a k-way merge over a
    /// binary heap), handing each session's output to `deliver`.
    package func mergeOutputs(_ deliver: (SessionKey, [UInt8]) throws -> Void) throws {
        var readers: [SpillOutputReader] = []
        defer { for reader in readers { reader.close() } }
        let readBuffer = max(4096, min(1 << 16, bufferBytes))
        for partition in 0..<count { readers.append(try SpillOutputReader(path: outputPath(partition), bufferBytes: readBuffer)) }
        try SpillOutputReader.merge(readers, deliver)
    }

    /// Removes the partition files, the output files and their directory.
    package func remove() {
        for writer in writers { writer.discard() }
        writers = []
        files.remove()
    }
}

/// Little-endian integers stored one after another from `base`, into room already reserved.
struct RecordStores {
    let base: UnsafeMutableRawPointer
    private(set) var count = 0

    init(_ start: UnsafeMutablePointer<UInt8>) { base = UnsafeMutableRawPointer(start) }

    mutating func put<T: FixedWidthInteger>(_ value: T) {
        base.storeBytes(of: value.littleEndian, toByteOffset: count, as: T.self)
        count += MemoryLayout<T>.size
    }
}
