import NavEvents
import NavInput
import NavPartitions
import NavResults
import NavJSON
import NavRuns
import SystemPackage

/// What the store knows of one input file: how many lines it has read of it, and a fingerprint
/// of them, to tell an appended file (read on from there) from a rewritten one (refused).
struct StoredFile: Sendable, Equatable {
    var id: Int
    /// The path as first given: the one findings name.
    var path: String
    /// The file's resolved path (`realpath(3)`), by which a store knows it: `h.ndjson`,
    /// `./h.ndjson` and a link to it are one file.
    var resolved: String
    /// Where this batch reads it: `path`, when that names the file from here, else the path given.
    var readPath: String
    var lines: Int64 = 0
    var blankLines: Int64 = 0
    /// The bytes of the lines read so far, line ends included.
    var bytes: Int64 = 0
    var fingerprint: UInt64 = StoredFile.emptyFingerprint
    /// The last line read had no line end (taken at `--close-all`, the end of data).
    var tornTail = false
    /// A last line without its line end was left for a later batch (`--close-all` reads it).
    var tailLeft = false

    static let emptyFingerprint = StableHash(tag: 0x66).finish()
}

/// A file's lines folded into its fingerprint, one at a time.
struct Fingerprint {
    private var hash = StableHash(tag: 0x66)
    private(set) var lines: Int64 = 0

    mutating func add(_ line: RawLine) {
        hash.combine(line.bytes)
        hash.combine(UInt64(bitPattern: Int64(line.overlongLength ?? -1)))
        hash.combine(line.ending == .newline ? 1 : 2)
        lines += 1
    }

    func finish() -> UInt64 { lines == 0 ? StoredFile.emptyFingerprint : hash.finish() }
}

/// What a batch's lines say of one session before the fold: its newest event time and its app
/// version (the newest line's).
struct ScannedSession {
    var newestMilliseconds: Int64 = .min
    var appVersion: String?
    var appVersionAt: Int64 = .min

    mutating func note(_ milliseconds: Int64, version: String?) {
        newestMilliseconds = max(newestMilliseconds, milliseconds)
        if let version, milliseconds >= appVersionAt {
            appVersion = version
            appVersionAt = milliseconds
        }
    }
}

/// A session's lines waiting for their chunk: `ChunkCodec` records.
struct KeptLines {
    var records: [UInt8] = []
    var count = 0
    /// The lines' size as read, line ends included.
    var lineBytes = 0

    /// Keeps a line, given as its located prefix and its bytes; returns the bytes it took.
    mutating func keep(prefix: UnsafeBufferPointer<UInt8>, text: UnsafeBufferPointer<UInt8>) -> Int {
        count += 1
        lineBytes += text.count + 1
        return ChunkCodec.append(prefix: prefix, text: text, to: &records)
    }
}

/// Reads the new lines of a batch's files: every line past what the store read of each file
/// before, as located lines (`FILE<TAB>LINE<TAB>line`) for the fold, and, for each session, the
/// lines the store keeps.
final class BatchReader {
    struct FileOutcome {
        var file: StoredFile
        var newLines: Int64 = 0
        var heldBackTail = false
        var error: String?
        /// Where the fold reads the new lines in place; `nil` when they are in the located input.
        var window: InputWindow?
        var alreadyIngested: Bool { error == nil && newLines == 0 }
    }

    /// The most bytes of kept lines (in shorthand) held before they go to the store as chunks,
    /// whatever the memory limit: holding a sixteenth of a large limit (384 MB of 6 GB) makes a
    /// 1 GB batch's ingest slower and its peak larger (BENCHMARKS.md); at this size a session's
    /// chunk of a busy batch still fills a 64 KB page or more.
    static let flushBytes = 32 << 20

    let maxLineBytes: Int
    let takeTornTail: Bool
    private let located: ScratchOutput
    /// Sessions whose events the store no longer holds: their late lines are kept apart.
    private let isPruned: (String) throws -> Bool
    private let flush: (String, KeptLines) throws -> Void
    private let chunkBudget: Int

    /// The batch's sessions by a number of their own, in the order met: one dictionary
    /// access a line, then arrays.
    private var indexOf: [String: Int] = [:]
    private(set) var names: [String] = []
    /// Each session's newest event time and version in this batch.
    private var seen: [ScannedSession] = []
    /// Each session's lines waiting for their chunk.
    private var kept: [KeptLines] = []
    /// The sessions with lines waiting for their chunk, in the order met.
    private var waiting: [Int] = []
    private var pruned: [Bool] = []
    private var bufferedBytes = 0
    private(set) var lateLines: [(sessionID: String, file: Int, line: Int64, text: String)] = []
    /// The kept lines' event ids: `[u64 hash][u32 session number]` a line, in a file.
    private let eventIDs: ScratchOutput
    private(set) var eventIDCount = 0
    private(set) var lines: Int64 = 0
    private(set) var blankLines: Int64 = 0

    private let progress: ((ProgressSnapshot) -> Void)?
    private var snapshot = ProgressSnapshot()

    init(
        maxLineBytes: Int, takeTornTail: Bool, located: ScratchOutput, eventIDs: ScratchOutput, chunkBudget: Int,
        isPruned: @escaping (String) throws -> Bool,
        progress: ((ProgressSnapshot) -> Void)?, flush: @escaping (String, KeptLines) throws -> Void
    ) {
        self.progress = progress
        self.maxLineBytes = maxLineBytes
        self.takeTornTail = takeTornTail
        self.located = located
        self.eventIDs = eventIDs
        self.chunkBudget = chunkBudget
        self.isPruned = isPruned
        self.flush = flush
    }

    /// Reads `file` from the line after the last one the store read, checking on the way that
    /// the lines read before are unchanged. The lines are read and scanned a few blocks ahead,
    /// on a thread of their own (`LinesAhead`), and kept here, in order.
    func read(_ file: StoredFile) throws -> FileOutcome {
        var outcome = FileOutcome(file: file)
        // A plain file's new lines are folded where they are (`InputWindow`), not copied into
        // the located input: that copy took as much temporary space as the batch, and its
        // writing a quarter of the reading's samples under `perf`.
        // Read in place under the name the findings give it, which the fold opens, when that
        // name is the file from here; else through the path given, copied for the fold.
        let inPlace = file.readPath == file.path && InputWindow.canBeRead(in: file.path)
        var lateInPlace: Set<Int64> = []
        let ahead = LinesAhead(file, maxLineBytes: maxLineBytes, takeTornTail: takeTornTail)
        let read = try ahead.forEachBlock { block in
            guard !inPlace else {
                try block.located.withUnsafeBufferPointer { bytes in
                    for entry in block.lines where try !take(entry, in: bytes, file: file.id) { lateInPlace.insert(entry.number) }
                }
                report(block)
                return
            }
            // The block's located lines go to the fold in runs: all of them, but for the late
            // lines of pruned sessions.
            var run = 0..<0
            try block.located.withUnsafeBufferPointer { bytes in
                for entry in block.lines {
                    if try take(entry, in: bytes, file: file.id) {
                        run = run.isEmpty ? entry.located : run.lowerBound..<entry.located.upperBound
                    } else {
                        try located.write(bytes: UnsafeBufferPointer(rebasing: bytes[run]))
                        run = entry.located.upperBound..<entry.located.upperBound
                    }
                }
                try located.write(bytes: UnsafeBufferPointer(rebasing: bytes[run]))
            }
            report(block)
        }
        outcome.error = read.error?.description
        if read.changed || (read.error == nil && read.prefix.lines < file.lines) {
            return FileOutcome(
                file: file,
                error: "\(file.path): changed since it was ingested: its first \(file.lines) lines are not the lines ingested "
                    + "then (a rotated or rewritten file: give its new content another name)")
        }
        if inPlace && read.newLines > 0 {
            guard let identity = read.facts.identity, !read.facts.isGzip else {
                throw StoreError("\(file.path): changed while it was read: it is no longer a plain file")
            }
            // A last line without its line end is the fold's when this reading took it.
            let window = InputWindow(
                linesBefore: file.lines, readBytes: read.facts.bytes, takesTornTail: takeTornTail && read.error == nil,
                device: identity.device, inode: identity.inode)
            if lateInPlace.isEmpty {
                outcome.window = window
            } else {
                try copyToLocated(file, window: window, leaving: lateInPlace)
            }
        }
        outcome.newLines = read.newLines
        outcome.heldBackTail = read.heldBack
        outcome.file.tailLeft = read.heldBack
        outcome.file.lines += read.newLines
        if read.error == nil { outcome.file.bytes = read.takenBytes }
        outcome.file.blankLines += read.newBlank
        outcome.file.fingerprint = read.current.finish()
        if read.newLines > 0 { outcome.file.tornTail = read.lastTakenEnding == .endOfInput }
        lines += read.newLines
        blankLines += read.newBlank
        return outcome
    }

    private func report(_ block: LinesAhead.Block) {
        guard let progress else { return }
        snapshot.lines += Int64(block.lines.count)
        snapshot.bytes += Int64(block.inputBytes)
        snapshot.sessions = names.count
        progress(snapshot)
    }

    /// Copies a file's new lines into the located input but the late lines of pruned sessions
    /// (`leaving`, by line number), which the fold must not read: a window cannot leave lines
    /// out. Rare (a late event for a pruned session), so the file is read once more for it.
    private func copyToLocated(_ file: StoredFile, window: InputWindow, leaving: Set<Int64>) throws {
        var buffer: [UInt8] = []
        _ = try LineReader(maxLineBytes: maxLineBytes).readLines(of: file.path, window: window) { windowLine in
            var line = windowLine
            line.number += window.linesBefore
            guard !line.isBlank, !leaving.contains(line.number) else { return }  // as `LinesAhead` copies
            buffer.removeAll(keepingCapacity: true)
            _ = LocatedLine.append(line, file: file.id, to: &buffer)
            buffer.append(0x0A)
            try located.write(bytes: buffer)
        }
    }

    /// Takes one line of a block (`bytes`, its located lines); returns whether the fold reads
    /// it (all but a pruned session's late lines).
    private func take(_ entry: LinesAhead.Entry, in bytes: UnsafeBufferPointer<UInt8>, file: Int) throws -> Bool {
        // Not an event: folded with the batch (its finding is made there), never kept.
        guard let keys = entry.keys else { return true }
        let index: Int
        if let known = indexOf[keys.sessionID] {
            index = known
        } else {
            index = names.count
            indexOf[keys.sessionID] = index
            names.append(keys.sessionID)
            seen.append(ScannedSession())
            kept.append(KeptLines())
            pruned.append(try isPruned(keys.sessionID))
        }
        seen[index].note(keys.milliseconds, version: keys.appVersion)
        let text = UnsafeBufferPointer(rebasing: bytes[entry.text])
        if pruned[index] {
            lateLines.append((keys.sessionID, file, entry.number, String(decoding: text, as: UTF8.self)))
            return false
        }
        try eventIDs.write(eventID: keys.eventIDHash, session: UInt32(index))
        eventIDCount += 1
        let prefix = UnsafeBufferPointer(rebasing: bytes[entry.located.lowerBound..<entry.text.lowerBound])
        if kept[index].count == 0 { waiting.append(index) }
        bufferedBytes += kept[index].keep(prefix: prefix, text: text)
        if bufferedBytes > chunkBudget { try flushAll() }
        return true
    }

    /// The newest event time of each session the batch brings lines of (but pruned ones, whose
    /// lines are late), for the watermark (`Watermark.batchHigh`).
    var sessionsNewest: [Int64] {
        seen.indices.compactMap { pruned[$0] || seen[$0].newestMilliseconds == .min ? nil : seen[$0].newestMilliseconds }
    }

    /// Every session that got a line in this batch, with its newest event time and version.
    var touched: [String: ScannedSession] {
        Dictionary(uniqueKeysWithValues: zip(names, seen))
    }

    /// Hands every session's buffered lines to the store, as one chunk each, in `session_id`
    /// order: a batch's new sessions take their rows in that order, which the results, written
    /// in that order, then update one page after another.
    func flushAll() throws {
        for index in waiting.sorted(by: { names[$0].utf8Precedes(names[$1]) }) {
            try flush(names[index], kept[index])
            kept[index] = KeptLines()
        }
        waiting.removeAll(keepingCapacity: true)
        bufferedBytes = 0
    }
}

/// A temporary file written through a buffer: the fold's located input, or a batch's event ids.
final class ScratchOutput {
    let path: String
    private let descriptor: FileDescriptor
    private var buffer: [UInt8] = []
    /// Closed once only: a second close could close a descriptor the number was given to since.
    private var isClosed = false

    init(path: String) throws {
        self.path = path
        descriptor = try ScratchDirectory.createFile(path, what: "the batch's temporary file")
        buffer.reserveCapacity(1 << 20)
    }

    deinit { if !isClosed { try? descriptor.close() } }

    /// One event id of the batch (`BatchReader.eventIDs`).
    func write(eventID hash: UInt64, session: UInt32) throws {
        withUnsafeBytes(of: hash.littleEndian) { buffer.append(contentsOf: $0) }
        withUnsafeBytes(of: session.littleEndian) { buffer.append(contentsOf: $0) }
        if buffer.count >= 1 << 20 { try drain() }
    }

    /// Bytes as they are (located lines); a large run is written from where it is, not copied.
    func write(bytes: UnsafeBufferPointer<UInt8>) throws {
        guard bytes.count < 1 << 16 else {
            try drain()
            try writeAll(UnsafeRawBufferPointer(bytes))
            return
        }
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 20 { try drain() }
    }

    func write(bytes: [UInt8]) throws { try bytes.withUnsafeBufferPointer { try write(bytes: $0) } }

    func drain() throws {
        guard !buffer.isEmpty else { return }
        try buffer.withUnsafeBytes { try writeAll($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        do {
            _ = try descriptor.writeAll(bytes)
        } catch {
            throw StoreError("Cannot write the temporary file \(path): \(error) (--temp-dir)")
        }
    }

    func close() throws {
        try drain()
        guard !isClosed else { return }
        isClosed = true
        do {
            try descriptor.close()
        } catch {
            throw StoreError("Cannot write the temporary file \(path): \(error) (--temp-dir)")
        }
    }
}
