#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import NavEvents
package import NavReplay
package import NavResults
import NavRuns
import NavInput

/// Where the lines of a session too large to hold go, to fold from disk (`NavEngine.LongSession`).
package protocol LongSessionLines: AnyObject {
    var key: SessionKey { get }
    func add(_ line: SessionLine) throws
}

/// How `SpillPartitions.read` treats a session too large to hold while it folds: its lines go to
/// a long session, which sorts them on disk, instead of into an array.
package struct LongSessions {
    /// A session whose lines take more bytes than this, as read, folds from disk.
    package var sessionBytes: Int
    /// A partition file larger than this is not read whole: it is read twice, a buffer at a
    /// time, its long sessions' lines sent to them and the others' to pieces read whole after.
    package var readLimit: Int
    package var temporaryDirectory: String?
    /// A long session for a key.
    package var make: (SessionKey) throws -> any LongSessionLines
    /// Gives one line to its long session (and to whatever else watches the lines).
    package var add: (any LongSessionLines, SessionLine) throws -> Void
    /// Folds a long session once every line of its partition is in.
    package var fold: (any LongSessionLines) throws -> Void

    package init(
        sessionBytes: Int, readLimit: Int, temporaryDirectory: String?, make: @escaping (SessionKey) throws -> any LongSessionLines,
        add: @escaping (any LongSessionLines, SessionLine) throws -> Void, fold: @escaping (any LongSessionLines) throws -> Void
    ) {
        self.sessionBytes = sessionBytes
        self.readLimit = readLimit
        self.temporaryDirectory = temporaryDirectory
        self.make = make
        self.add = add
        self.fold = fold
    }
}

extension SpillPartitions {
    /// A file's size; 0 when it cannot be read (then reading it whole reports why).
    static func size(of path: String) -> Int {
        var status = stat()
        guard stat(path, &status) == 0 else { return 0 }
        return Int(status.st_size)
    }

    /// The bytes of the line a record stands for: a mapped line's length for a reference, else
    /// the record's own.
    static func lineBytes(_ record: SpillRecord) -> Int {
        guard record.form == 4, record.bytes.count == 4 + referenceBytes else { return record.bytes.count }
        return Int(record.bytes.load(UInt32.self, at: SpillRecord.fieldsOffset + 8))
    }

    /// Sends the records of one session tag to their long sessions (one per session the tag
    /// holds: tags may collide), then folds each.
    func foldLong(_ records: some Sequence<SpillRecord>, _ decoder: PartitionDecoder, _ long: LongSessions) throws {
        var sessions = LongSessionsOfTags(long: long)
        for record in records { try sessions.add(record, decoder) }
        try sessions.fold()
    }

    /// Reads a partition too large to read whole (`LongSessions.readLimit`): a first pass counts
    /// each session tag's bytes; a second sends the lines of the tags past
    /// `LongSessions.sessionBytes` to their long sessions and copies the others' records to
    /// pieces, each small enough to read whole and fold as a partition is.
    func readInPieces(
        _ partition: Int, _ decoder: PartitionDecoder, _ long: LongSessions, buffer bytes: inout [UInt8],
        fold: (SessionKey, inout [SessionLine]) throws -> Void
    ) throws {
        let path = self.path(partition)
        var bytesByTag: [UInt32: Int] = [:]
        try forEachRecord(of: partition) { record in bytesByTag[record.tag, default: 0] += Self.lineBytes(record) }
        let longTags = Set(bytesByTag.compactMap { $0.value > long.sessionBytes ? $0.key : nil })
        let rest = bytesByTag.reduce(0) { longTags.contains($1.key) ? $0 : $0 + $1.value }
        let pieceCount = max(1, min(4096, (rest + long.readLimit - 1) / max(1, long.readLimit)))
        let pieces = try ScratchFileSet(in: long.temporaryDirectory, count: pieceCount, kinds: ["part-"])
        defer { pieces.remove() }
        var writers: [SpillFileWriter] = []
        defer { for writer in writers { writer.discard() } }
        for piece in 0..<pieceCount { writers.append(try SpillFileWriter(path: pieces.path("part-", piece), bufferBytes: 1 << 16)) }
        var sessions = LongSessionsOfTags(long: long)
        try forEachRecord(of: partition) { record in
            guard longTags.contains(record.tag) else {
                let writer = writers[Int(record.tag) % pieceCount]
                writer.buffer.append(UnsafeRawBufferPointer(record.bytes))
                try writer.flushIfFull()
                return
            }
            try sessions.add(record, decoder)
        }
        unlink(path)
        for writer in writers { try writer.close() }
        try sessions.fold()
        for piece in 0..<pieceCount {
            try LineReader.readWholeFile(pieces.path("part-", piece), into: &bytes)
            unlink(pieces.path("part-", piece))
            try bytes.withUnsafeBufferPointer {
                var starts: [UnsafePointer<UInt8>] = []
                guard records(in: $0, into: &starts) else { throw corrupt(partition) }
                try foldAll(starts, decoder, long: nil, fold: fold)
            }
        }
    }

    /// Each record of a partition file, read through a buffer.
    private func forEachRecord(of partition: Int, _ body: (SpillRecord) throws -> Void) throws {
        let reader = try FramedRecordReader(path: path(partition), bufferBytes: 1 << 20, framed: true)
        defer { reader.close() }
        do {
            while try reader.advance() {
                let frame = reader.current
                guard frame.count >= 4 + SpillPartitions.headerBytes else { throw corrupt(partition) }
                try body(SpillRecord(startingAt: frame.baseAddress!))
            }
        } catch let error as InputError where error.message == FramedRecordReader.truncatedMessage {
            throw corrupt(partition)
        }
    }
}

/// The long sessions of the records of some session tags (a tag may hold several sessions).
private struct LongSessionsOfTags {
    let long: LongSessions
    var sessions: [SessionKey: any LongSessionLines] = [:]

    mutating func add(_ record: SpillRecord, _ decoder: PartitionDecoder) throws {
        let location = record.location
        guard let decoded = try decoder.decode(record, location: location) else { return }
        let key = SessionKey(model: record.model, id: decoded.event.sessionID)
        let session: any LongSessionLines
        if let existing = sessions[key] {
            session = existing
        } else {
            session = try long.make(key)
            sessions[key] = session
        }
        try long.add(session, SessionLine(decoded: decoded, location: location))
    }

    /// Folds each, in session order, and lets it go.
    mutating func fold() throws {
        for key in sessions.keys.sorted() {
            let session = sessions.removeValue(forKey: key)!
            try long.fold(session)
        }
    }
}
