#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import Dispatch
import NavEvents
import NavReplay
import NavInput
import NavRuns
import NavPartitions

/// The reading pass over a mapped input, on every core: the file is cut into chunks at line
/// ends, and each chunk is split into lines and its lines routed to their partitions on a
/// worker of its own. The engine then hands the chunks on in file order, so the partitions
/// get their records in line order, as a serial reading gives them.
///
/// A serial reading pass (one thread splitting lines, one writing references) took a fifth of
/// a 1 GB audit on 2 cores, and was why 2 cores gained only about 1.7 times over one.
enum ChunkRouter {
    /// Chunk boundaries: each chunk ends just after a line end (the last at the file's end),
    /// and is about `target` bytes (more when a line is longer).
    static func chunks(of bytes: UnsafeBufferPointer<UInt8>, target: Int) -> [Range<Int>] {
        guard let base = bytes.baseAddress else { return [] }
        var result: [Range<Int>] = []
        var start = 0
        while start < bytes.count {
            var end = min(bytes.count, start + max(1, target))
            if end < bytes.count {
                // The chunk ends after the first line end at or after its last byte.
                if let found = memchr(base + end - 1, 0x0A, bytes.count - end + 1) {
                    end = base.distance(to: found.assumingMemoryBound(to: UInt8.self)) + 1
                } else {
                    end = bytes.count
                }
            }
            result.append(start..<end)
            start = end
        }
        return result
    }

    /// The chunk size for a file: about 64 chunks, at least 4 MiB each.
    static func target(forFileOf bytes: Int) -> Int { max(4 << 20, bytes / 64) }

    /// The chunk size when validating: small enough that the chunks in flight (a few per core)
    /// hold little of the file in memory, large enough that handing one on costs nothing.
    static let validationTarget = 8 << 20

    /// Splits one chunk into lines and routes them: a line whose session the scanner finds
    /// becomes a reference record in its partition's buffer; any other line (over-long, no
    /// session found, or not inside the mapping) is kept, with what the decoder made of it,
    /// for the engine to hand on as it does a batch's lines.
    static func route(
        _ input: MappedInput, _ range: Range<Int>, isLast: Bool, fileID: Int32, model: Int, partitions: Int, maxLineBytes: Int,
        located: LocatedRouting? = nil, inPlace: InPlaceRouting? = nil
    ) -> RoutedChunk {
        // Room for the references of an even share of the chunk (a 41-byte record for a line
        // of about 300 bytes), so that most buffers never grow.
        let estimate = max(4096, range.count / max(1, partitions) / 6)
        let decoder = EventDecoder()
        let routeLine = { (line: RawLine, fileID: Int32, referable: Bool, chunk: UnsafeMutablePointer<RoutedChunk>) in
            let outcome = line.overlongLength == nil ? LineOutcome.of(line.bytes, routing: true, decoder: decoder) : .overlong
            if referable, case .routed(let sessionHash) = outcome, SpillPartitions.canReference(length: line.bytes.count),
                let offset = input.offset(of: line.bytes)
            {
                chunk.pointee.addReference(
                    sessionHash: sessionHash, partitions: partitions, model: model, file: fileID, line: line.number,
                    offset: offset, length: line.bytes.count, estimate: estimate)
                chunk.pointee.sessions.insert(PrehashedKey(sessionHash &+ UInt64(model)))
                return
            }
            chunk.pointee.others.append(line, fileID: fileID, referable: referable)
            chunk.pointee.outcomes.append(outcome)
        }
        guard let located else {
            return lines(of: input, range, isLast: isLast, partitions: partitions, maxLineBytes: maxLineBytes) { line, chunk in
                routeLine(line, fileID, inPlace.map { chunk.pointee.adoptions.allows(line, of: fileID, $0.adopt) } ?? true, chunk)
            }
        }
        return locatedLines(of: input, range, isLast: isLast, partitions: partitions, located: located) { line, file, chunk in
            routeLine(line, file, chunk.pointee.adoptions.allows(line, of: file, located.adopt), chunk)
        }
    }

    /// Splits one chunk of located input into lines, strips each line's prefix, counts the
    /// lines by original file, and hands each other line to `handle` with its original file.
    /// A malformed prefix ends the chunk: it is recorded, and no line after it is handled.
    private static func locatedLines(
        of input: MappedInput, _ range: Range<Int>, isLast: Bool, partitions: Int, located: LocatedRouting,
        _ handle: (RawLine, Int32, UnsafeMutablePointer<RoutedChunk>) -> Void
    ) -> RoutedChunk {
        var chunk = RoutedChunk(partitions: partitions, mapped: input)
        // Located lines carry a prefix of at most 41 bytes on top of the original line.
        var splitter = LineSplitter(maxLineBytes: located.maxLineBytes + 64)
        withUnsafeMutablePointer(to: &chunk) { chunk in
            let take = { (physical: RawLine) -> Void in
                guard chunk.pointee.malformed == nil else { return }
                chunk.pointee.physicalLines += 1
                var line = physical
                switch LocatedLine.split(&line, files: located.files, maxLineBytes: located.maxLineBytes) {
                case .success(let place):
                    if let offsets = located.lineOffsets { line.number += offsets[place.file] }
                    let file = located.index[place.file]
                    chunk.pointee.lines += 1
                    chunk.pointee.bytes += line.inputBytes
                    chunk.pointee.locatedCounts[file, default: LocatedCount()].add(line)
                    if line.overlongLength == nil && line.isBlank {
                        chunk.pointee.blankLines += 1
                        return
                    }
                    handle(line, file, chunk)
                case .failure(let problem):
                    chunk.pointee.malformed = (chunk.pointee.physicalLines, problem)
                }
            }
            try? splitter.feed(UnsafeBufferPointer(rebasing: input.bytes[range]), take)
            if isLast { try? splitter.finish(take) }
        }
        return chunk
    }

    /// Splits one chunk into lines and checks each alone (`validate`, no fold): a valid line is
    /// only counted; any other (over-long or invalid) is kept with its outcome, as `route`
    /// keeps the lines it cannot route, for the engine to report in line order.
    ///
    /// Read serially, a validation decoded on the other core but split, copied and handed on
    /// every line on one thread: it used about 1.2 of 2 cores.
    static func validate(_ input: MappedInput, _ range: Range<Int>, isLast: Bool, fileID: Int32, maxLineBytes: Int) -> RoutedChunk {
        let decoder = EventDecoder()
        return lines(of: input, range, isLast: isLast, partitions: 0, maxLineBytes: maxLineBytes) { line, chunk in
            // Checked, not decoded: no event is made of a line that is only counted.
            let outcome = line.overlongLength == nil ? LineOutcome.checked(line.bytes, decoder: decoder) : .overlong
            if case .valid = outcome {
                chunk.pointee.validEvents += 1
                return
            }
            chunk.pointee.others.append(line, fileID: fileID)
            chunk.pointee.outcomes.append(outcome)
        }
    }

    /// Splits one chunk into lines, counts them, their bytes and the blank ones, and hands each
    /// other line to `handle` with the chunk being made.
    private static func lines(
        of input: MappedInput, _ range: Range<Int>, isLast: Bool, partitions: Int, maxLineBytes: Int,
        _ handle: (RawLine, UnsafeMutablePointer<RoutedChunk>) -> Void
    ) -> RoutedChunk {
        var chunk = RoutedChunk(partitions: partitions, mapped: input)
        var splitter = LineSplitter(maxLineBytes: maxLineBytes)
        // Through a pointer: `chunk` captured by the closure was checked for exclusive access
        // at run time on each use, twice a line.
        withUnsafeMutablePointer(to: &chunk) { chunk in
            let take = { (line: RawLine) -> Void in
                chunk.pointee.lines += 1
                chunk.pointee.bytes += line.inputBytes
                if line.overlongLength == nil && line.isBlank {
                    chunk.pointee.blankLines += 1
                    return
                }
                handle(line, chunk)
            }
            // `take` throws nothing, so neither do these.
            try? splitter.feed(UnsafeBufferPointer(rebasing: input.bytes[range]), take)
            if isLast { try? splitter.finish(take) }
        }
        return chunk
    }
}

/// One original file's lines and bytes in a chunk of located input.
struct LocatedCount {
    var lines: Int64 = 0
    var bytes: Int64 = 0

    mutating func add(_ line: RawLine) {
        lines += 1
        bytes += line.inputBytes
    }
}

/// Which original files' lines one reader of located input may reference in its mapped input.
/// A reference has no line end or length of its own and names its original file, whose
/// references all go to one input (`SpillingCollector.adopt`): the collector is asked once per
/// file, under its lock, and the answer is kept for the reader's next lines.
struct Adoptions {
    private var answers: [Int32: Bool] = [:]

    mutating func allows(_ line: RawLine, of file: Int32, _ ask: (Int32) -> Bool) -> Bool {
        guard line.ending == .newline, line.overlongLength == nil else { return false }
        if let known = answers[file] { return known }
        let answer = ask(file)
        answers[file] = answer
        return answer
    }
}

/// How the lines of located input (`--located-input`) are placed in their original files.
struct LocatedRouting: @unchecked Sendable {
    // @unchecked: `adopt` is the collector's, which locks.
    /// The paths file's lines.
    let files: Int
    /// A given file index's place in the run's file list.
    let index: [Int32]
    let lineOffsets: [Int64]?
    let maxLineBytes: Int
    /// Whether an original file's lines in this input may be referenced in place.
    let adopt: (Int32) -> Bool
}

/// How the lines of an input read in place (`InputWindow`) are referenced: as its listed
/// file's, whose references go to one input, as located input's do.
struct InPlaceRouting: @unchecked Sendable {
    // @unchecked: `adopt` is the collector's, which locks.
    let adopt: (Int32) -> Bool
}

/// What routing (or validating) one chunk of a mapped input gave. Line numbers count from 1 in the chunk;
/// `renumber(after:)` makes them the file's (located lines carry their own).
struct RoutedChunk {
    var lines: Int64 = 0
    var blankLines: Int64 = 0
    /// Lines that are valid events, when validating: counted, not kept.
    var validEvents: Int64 = 0
    /// Bytes of the lines, line ends included (as the progress line and file reports count).
    var bytes: Int64 = 0
    /// Reference records (form 4) by partition, in line order.
    private(set) var references: [ByteBuffer?]
    private(set) var referenceCount: Int64 = 0
    /// The sessions met (session hash plus model), for the progress line.
    var sessions = Set<PrehashedKey>()
    /// The lines not referenced, with their outcomes, in line order.
    var others: LineBatch
    var outcomes: [LineOutcome] = []
    /// Located input: the physical lines read, the lines and bytes of each original file, and
    /// the first malformed prefix (its line in the chunk), where the chunk's reading ended.
    var physicalLines: Int64 = 0
    var locatedCounts: [Int32: LocatedCount] = [:]
    var adoptions = Adoptions()
    var malformed: (line: Int64, problem: LocatedLine.Malformed)?

    init(partitions: Int, mapped: MappedInput) {
        references = Array(repeating: nil, count: partitions)
        others = LineBatch(capacity: 1 << 16, mapped: mapped)
    }

    mutating func addReference(
        sessionHash: UInt64, partitions: Int, model: Int, file: Int32, line: Int64, offset: Int, length: Int, estimate: Int
    ) {
        let partition = Int(sessionHash % UInt64(partitions))
        let buffer: ByteBuffer
        if let existing = references[partition] {
            buffer = existing
        } else {
            buffer = ByteBuffer(capacity: estimate)
            references[partition] = buffer
        }
        SpillPartitions.appendReference(
            to: buffer, sessionHash: sessionHash, model: model, location: LineLocation(file: file, line: line), offset: offset,
            length: length)
        referenceCount += 1
    }

    /// Makes the line numbers the file's, the chunk starting after line `linesBefore`.
    mutating func renumber(after linesBefore: Int64) {
        guard linesBefore != 0 else { return }
        let record = 4 + SpillPartitions.referenceBytes
        let lineField = SpillPartitions.referenceLineOffset
        for case let buffer? in references {
            var offset = 0
            while offset + record <= buffer.count {
                let line = buffer.base.loadUnaligned(fromByteOffset: offset + lineField, as: Int64.self)
                buffer.base.storeBytes(
                    of: (Int64(littleEndian: line) + linesBefore).littleEndian, toByteOffset: offset + lineField, as: Int64.self)
                offset += record
            }
        }
        others.renumber(after: linesBefore)
    }

    /// The outcomes of `others`, as a decoding job gives them.
    func otherOutcomes() -> ParallelResults<LineOutcome> {
        let results = ParallelResults<LineOutcome>(count: outcomes.count)
        for (index, outcome) in outcomes.enumerated() { results[index] = outcome }
        return results
    }
}

/// One chunk's result, filled by its worker and taken, once, by the engine.
final class ChunkSlot: @unchecked Sendable {
    // @unchecked: `chunk` is written by one worker before `ready` is signalled and read by the
    // engine only after waiting for it.
    private var chunk: RoutedChunk?
    private let ready = DispatchSemaphore(value: 0)

    func fill(_ routed: RoutedChunk) {
        chunk = routed
        ready.signal()
    }

    func take() -> RoutedChunk {
        ready.wait()
        defer { chunk = nil }
        return chunk!
    }
}
