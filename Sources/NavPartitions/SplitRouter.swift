package import NavInput
import NavEvents
import NavJSON
package import SystemPackage

/// The map side of a distributed audit: routes the lines of one split of a log to the
/// partitions that fold them, as located input (`FILE_INDEX<TAB>LINE<TAB>line`), in large
/// blocks, and records each line's event id for the sessions that share one.
///
/// A line goes to the partition of its session (a hash of the `session_id` bytes, whatever the
/// model: one id's sessions of several apps meet in one partition, which orders them). A line
/// without a session (blank, over-long, not an event) goes to any partition: its findings name
/// no session. The session is found by `SessionIDScanner` (exact for every valid event); a line
/// it is unsure of is decoded. Each line with a session and an event id also adds one ledger
/// entry (the id's `EventIDLedger` hash, which is per model, and the session id's `StableHash`,
/// which is not) to an id bucket, so that the sessions that share an id can be found before
/// they fold (`SharedEventIDs`). A shared session is set apart with the other apps' sessions of
/// its id, which fold next to it.
///
/// Output: frames of `[UInt32 destination][UInt32 length][payload]`, little-endian, to a file
/// descriptor. Destinations `0..<partitions` are the partitions; `partitions + b` is id bucket
/// `b`, and the split's report goes to `partitions` (the first bucket). A payload begins with its
/// kind: `L` then the split index (UInt32) then whole located lines; `I` then 16-byte ledger
/// entries (id hash, session hash, UInt64 each); `E` then the report, a JSON object.
package final class SplitRouter {
    package struct Options {
        package var partitions: Int
        /// Id buckets for the ledger; 0 records no ledger.
        package var idBuckets: Int
        /// The split's index: the `FILE_INDEX` of its located lines.
        package var split: Int
        /// The model the split's sessions fold with (the ledger's id hashes are per model).
        package var model: Int
        package var maxLineBytes: Int
        /// A partition's lines are sent once they reach this many bytes.
        package var blockBytes: Int
        /// Lines go as `ShorthandRecords` (frames of kind `H`), not as text.
        package var shorthand: Bool

        package init(partitions: Int, idBuckets: Int, split: Int, model: Int, maxLineBytes: Int, blockBytes: Int, shorthand: Bool = false) {
            self.partitions = partitions
            self.idBuckets = idBuckets
            self.split = split
            self.model = model
            self.maxLineBytes = maxLineBytes
            self.blockBytes = blockBytes
            self.shorthand = shorthand
        }
    }

    /// Bytes before a block's lines: destination, length, kind and split index.
    static let headerBytes = 13
    /// Bytes before a ledger block's entries: destination, length and kind.
    static let ledgerHeaderBytes = 9
    private let options: Options
    private let output: FileDescriptor
    private let outputName: String
    private var blocks: [[UInt8]]
    private var ledgers: [[UInt8]]
    private let decoder = EventDecoder()
    package private(set) var lines: Int64 = 0
    /// A located line being made, and room for its shorthand.
    private var line: [UInt8] = []
    private var room: UnsafeMutablePointer<UInt8>

    package init(options: Options, output: FileDescriptor, outputName: String) {
        self.options = options
        self.output = output
        self.outputName = outputName
        let kind = UInt8(ascii: options.shorthand ? "H" : "L")
        blocks = (0..<options.partitions).map { Self.emptyBlock(destination: $0, kind: kind, split: options.split) }
        room = .allocate(capacity: options.maxLineBytes + 128)
        ledgers = (0..<options.idBuckets).map {
            Self.emptyBlock(destination: options.partitions + $0, kind: UInt8(ascii: "I"), split: nil)
        }
    }

    deinit { room.deallocate() }

    /// Routes one line of the split.
    package func route(_ line: RawLine) throws {
        lines += 1
        var partition = spread(line.number)
        if line.overlongLength == nil, !line.isBlank {
            if let ids = SessionIDScanner.sessionAndEventID(in: line.bytes) {
                let session = UnsafeBufferPointer(rebasing: line.bytes[ids.session])
                partition = Int(StableHash.string(session) % UInt64(options.partitions))
                try record(eventIDHash: StableHash.string(UnsafeBufferPointer(rebasing: line.bytes[ids.event])), session: session)
            } else if case .success(let decoded) = decoder.decode(line.bytes) {
                var session = decoded.event.sessionID
                try session.withUTF8 { bytes in
                    partition = Int(StableHash.string(bytes) % UInt64(options.partitions))
                    try record(eventIDHash: decoded.eventIDHash, session: bytes)
                }
            }
        }
        try append(line, to: partition)
    }

    /// Routes a line of located input (its prefix kept) to partition 1 when its session id's
    /// hash is in `sessions`, else to partition 0: how a partition's sessions that share event
    /// ids with other partitions' are taken out, to fold together.
    package func routeLocated(_ line: RawLine, sessions: Set<UInt64>) throws {
        lines += 1
        var partition = 0
        if let tabs = Self.prefixLength(line.bytes) {
            let content = UnsafeBufferPointer(rebasing: line.bytes[tabs...])
            var hash: UInt64?
            if let session = SessionIDScanner.sessionID(in: content) {
                hash = StableHash.string(UnsafeBufferPointer(rebasing: content[session]))
            } else if case .success(let decoded) = decoder.decode(content) {
                hash = StableHash.string(decoded.event.sessionID)
            }
            if let hash, sessions.contains(hash) { partition = 1 }
        }
        try appendVerbatim(line, to: partition)
    }

    /// Sends what is left, then the split's report (`E`), and the lines read.
    package func finish(error: InputError?) throws {
        for partition in blocks.indices { try flush(&blocks[partition], header: Self.headerBytes) }
        for bucket in ledgers.indices { try flush(&ledgers[bucket], header: Self.ledgerHeaderBytes) }
        var report = JSONWriter()
        report.beginObject()
        report.member("split", options.split)
        report.member("lines", lines)
        if let error {
            report.member("error_code", error.code.rawValue)
            report.member("error", error.message)
            report.key("after_line")
            if let after = error.afterLine { report.int(after) } else { report.null() }
        }
        report.endObject()
        var frame = Self.emptyBlock(destination: options.partitions, kind: UInt8(ascii: "E"), split: nil)
        frame += report.bytes
        try flush(&frame, header: 0)
    }

    // MARK: Lines

    /// A located line: the prefix, the line's bytes (an over-long line's first ones, with its
    /// length in the prefix), one more `\r` when the line ends in one (the reader of the located
    /// stream removes one), and `\n`.
    private func append(_ raw: RawLine, to partition: Int) throws {
        var block = blocks[partition]
        blocks[partition] = []
        if options.shorthand {
            line.removeAll(keepingCapacity: true)
            LocatedLine.append(raw, file: options.split, to: &line)
            line.withUnsafeBufferPointer { ShorthandRecords.append($0, to: &block, room: room) }
        } else {
            LocatedLine.append(raw, file: options.split, to: &block)
            block.append(0x0A)
        }
        if block.count >= options.blockBytes { try flush(&block, header: Self.headerBytes) }
        blocks[partition] = block
    }

    /// A located line as read, its prefix included.
    private func appendVerbatim(_ line: RawLine, to partition: Int) throws {
        var block = blocks[partition]
        blocks[partition] = []
        block.append(contentsOf: line.bytes)
        if line.bytes.last == 0x0D { block.append(0x0D) }
        block.append(0x0A)
        if block.count >= options.blockBytes { try flush(&block, header: Self.headerBytes) }
        blocks[partition] = block
    }

    private func record(eventIDHash: UInt64, session: UnsafeBufferPointer<UInt8>) throws {
        guard options.idBuckets > 0 else { return }
        let id = EventIDLedger.idHash(eventIDHash, model: options.model)
        let bucket = Int(id % UInt64(options.idBuckets))
        let sessionHash = StableHash.string(session)
        withUnsafeBytes(of: id.littleEndian) { ledgers[bucket].append(contentsOf: $0) }
        withUnsafeBytes(of: sessionHash.littleEndian) { ledgers[bucket].append(contentsOf: $0) }
        if ledgers[bucket].count >= options.blockBytes { try flush(&ledgers[bucket], header: Self.ledgerHeaderBytes) }
    }

    /// The partition of a line without a session: spread by its place.
    private func spread(_ number: Int64) -> Int {
        Int(StableHash.mix(UInt64(options.split) << 40 ^ UInt64(bitPattern: number)) % UInt64(options.partitions))
    }

    // MARK: Frames

    private static func emptyBlock(destination: Int, kind: UInt8, split: Int?) -> [UInt8] {
        var block: [UInt8] = []
        withUnsafeBytes(of: UInt32(destination).littleEndian) { block.append(contentsOf: $0) }
        block.append(contentsOf: [0, 0, 0, 0, kind])
        if let split { withUnsafeBytes(of: UInt32(truncatingIfNeeded: split).littleEndian) { block.append(contentsOf: $0) } }
        return block
    }

    /// Writes a frame when it holds more than its `header`, and keeps only the header.
    private func flush(_ frame: inout [UInt8], header: Int) throws {
        guard frame.count > header else { return }
        let length = UInt32(frame.count - 8)
        withUnsafeBytes(of: length.littleEndian) { bytes in
            for index in 0..<4 { frame[4 + index] = bytes[index] }
        }
        try frame.withUnsafeBytes { try output.writeAll($0, path: outputName, what: "the routed lines") }
        frame.removeSubrange(header...)
    }

    /// Where a located line's content begins: past its second tab.
    static func prefixLength(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var tabs = 0
        for index in bytes.indices where bytes[index] == 0x09 {
            tabs += 1
            if tabs == 2 { return index + 1 }
        }
        return nil
    }
}
