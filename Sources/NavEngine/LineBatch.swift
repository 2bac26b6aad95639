import Dispatch
import NavEvents
import NavJSON
import NavModel
import NavReplay
import NavInput
import NavPartitions

/// Writes routed lines to their partitions on a serial queue of its own, at most two batches
/// behind the reading thread.
final class PartitionWriter: @unchecked Sendable {
    // @unchecked: the jobs (and what they touch: the collector and its partitions) run one at
    // a time on `queue`, in the order submitted; `failure` is touched only there, `latest`
    // only under `lock`.
    private let queue = DispatchQueue(label: "navreplay.partitions")
    private let slots = DispatchSemaphore(value: 2)
    private var failure: (any Error)?
    private let lock = NSLockLike()
    private var latest = 0

    /// Sessions seen as of the last job done (for the progress line).
    var sessions: Int { lock.withLock { latest } }

    /// Runs `job` after the jobs before it; it returns the sessions seen so far. The first error
    /// stops the writing; `drain()` throws it.
    func submit(_ job: @escaping () throws -> Int) {
        slots.wait()
        nonisolated(unsafe) let job = job
        queue.async { [self] in
            if failure == nil {
                do {
                    let seen = try job()
                    lock.withLock { latest = seen }
                } catch {
                    failure = error
                }
            }
            slots.signal()
        }
    }

    /// Waits for every job; throws the first error one met.
    func drain() throws {
        let failure = queue.sync { self.failure }
        if let failure { throw failure }
    }
}

/// One batch being decoded on other threads while the reading thread goes on.
final class DecodeTask: @unchecked Sendable {
    // @unchecked: `decoded` and `shorthand` are written once by the decoding job before `done`
    // is signalled, and read only after waiting for it.
    let batch: LineBatch
    let modelID: Int
    private var decoded: ParallelResults<LineOutcome>?
    /// The shorthand of the lines whose outcome is `shortened`; read after `results()`.
    private(set) var shorthand: BatchShorthand?
    private let done = DispatchSemaphore(value: 0)

    init(
        batch: LineBatch, modelID: Int, workers: Int, routing: Bool, shorthand: Bool, keeping: Set<UInt64>? = nil, checkOnly: Bool = false
    ) {
        self.batch = batch
        self.modelID = modelID
        DispatchQueue.global().async { [self] in
            (decoded, self.shorthand) = batch.decode(
                workers: workers, routing: routing, shorthand: shorthand, keeping: keeping.map { (sessions: $0, model: modelID) },
                checkOnly: checkOnly)
            done.signal()
        }
    }

    /// A batch whose lines were decoded already (by a chunk's worker).
    init(batch: LineBatch, modelID: Int, decoded: ParallelResults<LineOutcome>) {
        self.batch = batch
        self.modelID = modelID
        self.decoded = decoded
        done.signal()
    }

    /// The decoded lines, in order; waits for the decoding to finish.
    func results() -> ParallelResults<LineOutcome> {
        done.wait()
        done.signal()  // so that a second call does not block
        return decoded ?? ParallelResults(count: 0)
    }
}

/// Lines waiting to be decoded: copied out of the reader's buffer so that several cores can
/// decode them at once, then handed on in their original order.
struct LineBatch: Sendable {
    struct Pending: Sendable {
        /// Where the line starts: in the mapped file when `isMapped`, else in `bytes`.
        var start: Int
        var count: Int
        var number: Int64
        var fileID: Int32
        var overlongLength: Int?
        var unterminated: Bool
        var isMapped = false
    }

    private(set) var bytes: [UInt8] = []
    private(set) var lines: [Pending] = []
    /// The file being read, when it is mapped: its lines are referenced, not copied.
    let mapped: MappedInput?
    private var mappedBytes = 0
    /// Bytes of lines per batch (`AuditTuning.batchBytes`).
    let capacity: Int

    init(capacity: Int = AuditTuning.defaultBatchBytes, mapped: MappedInput? = nil) {
        self.capacity = capacity
        self.mapped = mapped
    }

    var isFull: Bool { bytes.count + mappedBytes >= capacity }

    /// `referable`: a line of the mapped file may be referenced in place (not so a located
    /// line whose original file's references name another input).
    mutating func append(_ line: RawLine, fileID: Int32, referable: Bool = true) {
        // Room for lines of about 256 bytes: growing the array by doubling copied it over and over.
        if lines.isEmpty { lines.reserveCapacity(max(16, min(capacity, 64 << 20) / 256)) }
        if referable, let mapped, let offset = mapped.offset(of: line.bytes) {
            lines.append(
                Pending(
                    start: offset, count: line.bytes.count, number: line.number, fileID: fileID,
                    overlongLength: line.overlongLength, unterminated: line.ending == .endOfInput, isMapped: true))
            mappedBytes += line.bytes.count
            return
        }
        if bytes.isEmpty { bytes.reserveCapacity(mapped == nil ? min(capacity, 64 << 20) + (1 << 20) : 1 << 16) }
        lines.append(
            Pending(
                start: bytes.count, count: line.bytes.count, number: line.number, fileID: fileID,
                overlongLength: line.overlongLength, unterminated: line.ending == .endOfInput))
        bytes.append(contentsOf: line.bytes)
    }

    /// Adds `linesBefore` to every line number (lines numbered in a chunk of their file).
    mutating func renumber(after linesBefore: Int64) {
        for index in lines.indices { lines[index].number += linesBefore }
    }

    func withBytes<R>(of pending: Pending, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        if pending.isMapped, let mapped {
            return try body(UnsafeBufferPointer(rebasing: mapped.bytes[pending.start..<(pending.start + pending.count)]))
        }
        return try bytes.withUnsafeBufferPointer {
            try body(UnsafeBufferPointer(rebasing: $0[pending.start..<(pending.start + pending.count)]))
        }
    }

    /// Decodes every line (over-long ones are not decoded: their slot stays empty), on up to
    /// `workers` cores. With `routing`, a line whose session the `SessionIDScanner` finds is
    /// only routed, not decoded; with `shorthand`, a routed line that is not in a mapped file
    /// (it will be copied to its partition) is also put in `LineShorthand` here, on every
    /// core, rather than on the partition writer's one thread. The slots are read in place
    /// (copying them out cost a copy of every decoded event).
    ///
    /// With `keeping` (a refold: `RefoldRequest`), a line whose session the scanner finds, and
    /// whose `EventIDLedger` hash is not among `sessions`, is skipped undecoded.
    ///
    /// With `checkOnly` (`validate`), each line is only checked (`EventDecoder.check`): `valid`,
    /// or its error.
    func decode(
        workers: Int, routing: Bool = false, shorthand: Bool = false, keeping: (sessions: Set<UInt64>, model: Int)? = nil,
        checkOnly: Bool = false
    ) -> (outcomes: ParallelResults<LineOutcome>, shorthand: BatchShorthand?) {
        let count = lines.count
        guard count > 0 else { return (ParallelResults(count: 0), nil) }
        let results = ParallelResults<LineOutcome>(count: count)
        let lines = self.lines
        let mapped = self.mapped
        let shorthand = routing && shorthand && !bytes.isEmpty ? BatchShorthand(capacity: bytes.count) : nil
        let decodeRange: @Sendable (UnsafeBufferPointer<UInt8>, Range<Int>) -> Void = { buffer, range in
            let decoder = EventDecoder()
            let names = routing || checkOnly ? nil : StringCache()  // routed lines are decoded later, by their partition
            for index in range where lines[index].overlongLength == nil {
                let pending = lines[index]
                let source = pending.isMapped ? mapped!.bytes : buffer
                let line = UnsafeBufferPointer(rebasing: source[pending.start..<(pending.start + pending.count)])
                if checkOnly {
                    results[index] = .checked(line, decoder: decoder)
                    continue
                }
                if let keeping, let session = SessionIDScanner.sessionID(in: line),
                    !keeping.sessions.contains(
                        EventIDLedger.hash(sessionBytes: UnsafeBufferPointer(rebasing: line[session]), model: keeping.model))
                {
                    results[index] = .skipped
                    continue
                }
                let outcome = LineOutcome.of(line, routing: routing, decoder: decoder, names: names)
                if case .routed(let sessionHash) = outcome, let shorthand, !pending.isMapped, !pending.unterminated,
                    let length = LineShorthand.shorten(line, into: shorthand.bytes + pending.start)
                {
                    results[index] = .shortened(sessionHash: sessionHash, length: Int32(length))
                } else {
                    results[index] = outcome
                }
            }
        }
        bytes.withUnsafeBufferPointer { buffer in
            let stripes = max(1, min(workers, count / 256))
            if stripes == 1 {
                decodeRange(buffer, 0..<count)
            } else {
                // Each job decodes its own contiguous slice of lines and writes only its slots.
                nonisolated(unsafe) let shared = buffer
                DispatchQueue.concurrentPerform(iterations: stripes) { stripe in
                    let lower = count * stripe / stripes
                    let upper = count * (stripe + 1) / stripes
                    decodeRange(shared, lower..<upper)
                }
            }
        }
        return (results, shorthand)
    }
}

/// The shorthand (`LineShorthand`) of a batch's routed lines, made by the decoding jobs: each
/// line's at the offset the line has in the batch (it is never longer), so that the jobs need
/// no coordination.
final class BatchShorthand: @unchecked Sendable {
    // @unchecked: each job writes only the ranges of its own lines; read after the jobs join.
    let bytes: UnsafeMutablePointer<UInt8>

    init(capacity: Int) { bytes = .allocate(capacity: max(1, capacity)) }
    deinit { bytes.deallocate() }
}

/// What the decoding jobs made of one line.
enum LineOutcome: Sendable {
    /// Boxed (`indirect`): a routed line's outcome is then 9 bytes, not the 218 of a decoded
    /// event, and the reading thread copied each one twice (a tenth of its time on 1 GB).
    indirect case decoded(Result<DecodedEvent, EventDecodingError>)
    /// Only its session was found (the hash of the `session_id` bytes): it is decoded when its
    /// partition folds.
    case routed(sessionHash: UInt64)
    /// Routed, and put in shorthand: `length` bytes in the batch's `BatchShorthand`, at the
    /// line's offset in the batch.
    case shortened(sessionHash: UInt64, length: Int32)
    /// Checked and valid, no event made (`validate`, which only counts it).
    case valid
    /// Over `--max-line-bytes`: not decoded.
    case overlong
    /// Of a session a refold does not read again: not decoded.
    case skipped

    /// A line only checked (`validate`): `valid`, or its error.
    static func checked(_ line: UnsafeBufferPointer<UInt8>, decoder: EventDecoder) -> LineOutcome {
        decoder.check(line).map { .decoded(.failure($0)) } ?? .valid
    }

    /// What a line (not over-long) becomes: with `routing`, routed when the `SessionIDScanner`
    /// finds its session, else decoded now.
    static func of(_ line: UnsafeBufferPointer<UInt8>, routing: Bool, decoder: EventDecoder, names: StringCache? = nil) -> LineOutcome {
        if routing, let session = SessionIDScanner.sessionID(in: line) {
            return .routed(sessionHash: StableHash.string(UnsafeBufferPointer(rebasing: line[session])))
        }
        return .decoded(decoder.decode(line, names: names))
    }
}
