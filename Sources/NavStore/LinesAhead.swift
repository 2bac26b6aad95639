import Dispatch
import NavEvents
import NavInput
import NavJSON
import NavPartitions

/// What the store needs of an event line before the fold.
struct LineKeys: Sendable {
    var sessionID: String
    var eventIDHash: UInt64
    var milliseconds: Int64
    var appVersion: String?

    /// Scanned from the line's bytes, or decoded when the scan is not sure (an escape, a missing
    /// key); `nil` for a line that is no event. A line the scan reads may still be invalid: the
    /// fold says so, with its finding.
    static func of(_ line: UnsafeBufferPointer<UInt8>, decoder: EventDecoder) -> LineKeys? {
        let scanned = SessionIDScanner.storeKeys(in: line)
        if let session = scanned.sessionID, let eventID = scanned.eventID, let time = scanned.timestamp,
            let timestamp = Timestamp.parse(UnsafeBufferPointer(rebasing: line[time])),
            let sessionID = validString(line[session])
        {
            let version = scanned.appVersion.flatMap { validString(line[$0]) }
            return LineKeys(
                sessionID: sessionID, eventIDHash: StableHash.string(UnsafeBufferPointer(rebasing: line[eventID])),
                milliseconds: timestamp.epochMilliseconds, appVersion: version)
        }
        guard case .success(let decoded) = decoder.decode(line) else { return nil }
        let event = decoded.event
        return LineKeys(
            sessionID: event.sessionID, eventIDHash: StableHash.string(event.eventID), milliseconds: event.timestamp.epochMilliseconds,
            appVersion: event.appVersion)
    }
}

/// The bytes as a `String`, `nil` if they are not UTF-8. ASCII, the common case, is made
/// directly: `String(validating:)` is generic, and unspecialised here it looked up its type's
/// metadata at every call (twice a line on the reading thread).
private func validString(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> String? {
    let buffer = UnsafeBufferPointer(rebasing: bytes)
    if buffer.allSatisfy({ $0 < 0x80 }) { return String(decoding: buffer, as: UTF8.self) }
    return String(validating: buffer, as: UTF8.self)
}

/// A file's new lines, read and scanned on a thread of their own a few blocks ahead of the
/// thread that keeps them: reading, splitting, fingerprinting and scanning were half of an
/// ingest's reading time, and ran serially with the other half.
final class LinesAhead: @unchecked Sendable {
    // @unchecked: `blocks`, `finished` and `outcome` are touched under `lock`; a block is
    // written by the reading thread before it is queued and read by the keeping thread after.
    final class Block {
        /// The block's lines as the fold reads them: located input, `FILE<TAB>LINE<TAB>line`, a
        /// line each.
        var located: [UInt8] = []
        var lines: [Entry] = []
        /// The input bytes of the block's lines, line ends included.
        var inputBytes = 0
    }

    /// One line of a block: where its located line and its own bytes are.
    struct Entry {
        var located: Range<Int>
        var text: Range<Int>
        var number: Int64
        /// `nil` for a line that is no event (or an over-long one): it is folded, never kept.
        var keys: LineKeys?
    }

    /// What reading the file found, once it is done.
    struct Outcome {
        var prefix = Fingerprint()
        var current = Fingerprint()
        var newLines: Int64 = 0
        var newBlank: Int64 = 0
        var changed = false
        var heldBack = false
        var lastTakenEnding = LineEnding.newline
        /// The bytes of every line taken, the earlier ones and the new, line ends included: the
        /// file's `bytes` as an audit of it counts them.
        var takenBytes: Int64 = 0
        var error: InputError?
        /// Which file was read, and how many bytes of it.
        var facts = ReadFacts()
    }

    private static let blockBytes = 1 << 20
    private static let blocksAhead = 4
    private let lock = NSLockLike()
    private var blocks: [Block] = []
    private var finished = false
    private var stopped = false
    private var result = Outcome()
    private let ready = DispatchSemaphore(value: 0)
    private let room = DispatchSemaphore(value: 0)

    /// Starts reading `file` past the lines the store has read of it.
    init(_ file: StoredFile, maxLineBytes: Int, takeTornTail: Bool) {
        for _ in 0..<LinesAhead.blocksAhead { room.signal() }
        DispatchQueue(label: "navreplay.ingest.read").async { [self] in
            var outcome = Outcome()
            let decoder = EventDecoder()
            var block = Block()
            // Whether the keeping thread stopped, looked at once a block: under the lock at every
            // line it would be most of the reading thread's locking.
            var stopping = false
            func publish() {
                lock.withLock { blocks.append(block) }
                ready.signal()
                block = Block()
                room.wait()
                stopping = lock.withLock { stopped }
            }
            do {
                _ = try LineReader(maxLineBytes: maxLineBytes).readLines(of: file.readPath, copyingTo: nil, facts: outcome.facts) { line in
                    guard !outcome.changed, !stopping else { return }
                    if line.number <= file.lines {
                        outcome.takenBytes += Int64(line.inputBytes)
                        outcome.prefix.add(line)
                        outcome.current.add(line)
                        if line.number == file.lines,
                            outcome.prefix.finish() != file.fingerprint || (file.tornTail && line.ending == .newline)
                        {
                            outcome.changed = true
                        }
                        return
                    }
                    if line.ending == .endOfInput && !takeTornTail {
                        outcome.heldBack = true
                        return
                    }
                    outcome.current.add(line)
                    outcome.takenBytes += Int64(line.inputBytes)
                    outcome.newLines += 1
                    outcome.lastTakenEnding = line.ending
                    if line.isBlank {
                        outcome.newBlank += 1
                        return
                    }
                    // The line's located form is made here, not on the keeping thread, which is
                    // the busier of the two: it keeps the event lines in shorthand.
                    let keys = line.overlongLength == nil ? LineKeys.of(line.bytes, decoder: decoder) : nil
                    let locatedStart = block.located.count
                    let text = LocatedLine.append(line, file: file.id, to: &block.located)
                    block.located.append(0x0A)
                    block.lines.append(Entry(located: locatedStart..<block.located.count, text: text, number: line.number, keys: keys))
                    block.inputBytes += Int(line.inputBytes)
                    if block.located.count >= LinesAhead.blockBytes { publish() }
                }
            } catch let error as InputError {
                outcome.error = error
            } catch {
                outcome.error = InputError(code: .unreadable, path: file.readPath, message: "\(error)")
            }
            lock.withLock {
                if !block.lines.isEmpty { blocks.append(block) }
                result = outcome
                finished = true
            }
            ready.signal()
        }
    }

    /// Hands each block to `body`, in order; returns what reading found.
    func forEachBlock(_ body: (Block) throws -> Void) throws -> Outcome {
        do {
            while true {
                let (next, done) = lock.withLock { () -> (Block?, Bool) in
                    blocks.isEmpty ? (nil, finished) : (blocks.removeFirst(), false)
                }
                if let next {
                    try body(next)
                    room.signal()
                } else if done {
                    break
                } else {
                    ready.wait()  // signalled once a block is queued, and at the end
                }
            }
        } catch {
            stop()
            throw error
        }
        return lock.withLock { result }
    }

    /// Stops the reading thread early (the keeping thread failed) and waits for it.
    private func stop() {
        lock.withLock { stopped = true }
        for _ in 0..<(LinesAhead.blocksAhead + 1) { room.signal() }
        while !lock.withLock({ finished }) { ready.wait() }
    }
}
