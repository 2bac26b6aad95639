import Dispatch
import NavEvents
import NavJSON
import NavModel
import NavReplay
import NavInput
import NavResults
import NavRuns
import NavPartitions

/// Holds sessions in memory up to a budget; past it, writes the held lines to hash partitions
/// on disk (by session), and at the end folds one partition at a time per job. Peak memory
/// stays near the budget whatever the input size; the partitions are removed when done, on
/// error, and on Ctrl-C.
///
/// When the output is streamed, each partition's sessions are formatted as they fold and
/// written, in session order, to an output file of the partition; a k-way merge of those
/// sorted files then writes the whole output in session order, so no finding is held.
final class SpillingCollector: SessionCollector {
    private let models: [NavigationModel]
    private let options: SessionAuditOptions
    private let jobs: Int
    private let memoryLimit: Int
    private let temporaryDirectory: String?
    private let estimatedInputBytes: Int64
    private let partitionedInputBytes: Int64
    private var held: [SessionKey: [SessionLine]] = [:]
    /// Set when this collector folds sessions again for another run (`Refold`): they go there.
    var refolding: RefoldRequest?
    /// For a run that folds one session only (`replay --session`): the event ids of the other
    /// sessions' lines, which are not held, to find those that share one with it.
    var othersLedger: EventIDLedger?
    private var heldBytes = 0
    private var heldRawBytes = 0
    private var spill: SpillPartitions?

    init(
        models: [NavigationModel], options: SessionAuditOptions, jobs: Int, memoryLimit: Int, temporaryDirectory: String?,
        estimatedInputBytes: Int64, partitionedInputBytes: Int64 = 32 << 20
    ) throws {
        self.partitionedInputBytes = partitionedInputBytes
        self.models = models
        self.options = options
        self.jobs = max(1, jobs > 0 ? jobs : System.coreCount)
        self.memoryLimit = max(1 << 20, memoryLimit)
        self.temporaryDirectory = temporaryDirectory
        self.estimatedInputBytes = estimatedInputBytes
    }

    /// Whether lines went to partitions.
    var partitioned: Bool { spill != nil }

    /// A run that failed before `finish` (which removes them) leaves no partitions either.
    deinit { spill?.remove() }

    /// Sessions met so far, for the progress line: the distinct `session_id`s of the lines
    /// taken (a routed line found invalid later may add one), up to `countedSessionsCap`.
    var sessionCount: Int { max(held.count, seenSessions.count) }
    /// Keyed by the session hash itself (one mix, not a SipHash per routed line).
    private var seenSessions = Set<PrehashedKey>()
    private static let countedSessionsCap = 1 << 20

    private func count(_ key: SessionKey) {
        count(sessionHash: StableHash.string(key.id), model: key.model)
    }

    private func count(sessionHash: UInt64, model: Int) {
        count(PrehashedKey(sessionHash &+ UInt64(model)))
    }

    private func count(_ session: PrehashedKey) {
        if seenSessions.count < SpillingCollector.countedSessionsCap { seenSessions.insert(session) }
    }

    // MARK: Routed lines

    private var routedFiles: [String] = []
    private var quarantine: QuarantineWriter?
    /// Quarantine records of lines found invalid while reading, kept aside (in line order)
    /// to be merged with those found while folding.
    private var readingQuarantine: SpillFileWriter?

    /// Before routed lines come: the input paths (for quarantine records), the quarantine,
    /// and the inputs that are mapped, by file (their lines are routed as references). A
    /// reference names its line's file, by which it is found again: with located input
    /// (`byOriginalFile`), that is the original file, and each original file's references go to
    /// the first mapped input met with its lines (`adopt`).
    func prepareRouting(files: [String], quarantine: QuarantineWriter?, mapped: [MappedInput?], byOriginalFile: Bool = false) {
        routedFiles = files
        self.quarantine = quarantine
        self.mapped = byOriginalFile ? Array(repeating: nil, count: files.count) : mapped
    }

    /// Whether a line of original file `file`, read from `input`, may be referenced: yes when
    /// that file's references go to `input` (the first input met with its lines takes it).
    /// Called while the inputs are read (by the workers that route chunks at once), before
    /// the partitions fold.
    func adopt(file: Int32, from input: MappedInput) -> Bool {
        let index = Int(file)
        guard mapped.indices.contains(index) else { return false }
        return adoption.withLock {
            if mapped[index] == nil { mapped[index] = input }
            return mapped[index] === input
        }
    }

    private let adoption = NSLockLike()

    private var mapped: [MappedInput?] = []
    private(set) var routedLines: Int64 = 0
    private(set) var referencedLines: Int64 = 0
    private(set) var shortenedLines: Int64 = 0

    /// Takes a line of a mapped input by reference; it is decoded in place when its partition
    /// folds.
    func addReference(model: Int, sessionHash: UInt64, location: LineLocation, offset: Int, length: Int) throws {
        if spill == nil { try spillHeld() }
        try spill?.writeReference(sessionHash: sessionHash, model: model, location: location, offset: offset, length: length)
        count(sessionHash: sessionHash, model: model)
        routedLines += 1
        referencedLines += 1
    }

    /// The partitions routed lines go to (made now if need be), for routing on other threads.
    func routingPartitions() throws -> Int {
        if spill == nil { try spillHeld() }
        return spill?.count ?? 1
    }

    /// Takes the references of a chunk routed on another thread (`ChunkRouter`), numbered as
    /// the file's lines already.
    func addReferences(_ chunk: RoutedChunk) throws {
        if spill == nil { try spillHeld() }
        guard let spill else { return }
        for (partition, records) in chunk.references.enumerated() {
            if let records, records.count > 0 { try spill.append(records: records, to: partition) }
        }
        for session in chunk.sessions { count(session) }
        routedLines += chunk.referenceCount
        referencedLines += chunk.referenceCount
    }

    /// Takes a line routed by its session only, in shorthand; it is decoded when its partition
    /// folds.
    func addShortened(model: Int, sessionHash: UInt64, location: LineLocation, short: UnsafeBufferPointer<UInt8>) throws {
        if spill == nil { try spillHeld() }
        try spill?.writeShortened(sessionHash: sessionHash, model: model, location: location, short: short)
        count(sessionHash: sessionHash, model: model)
        routedLines += 1
        shortenedLines += 1
    }

    /// Takes a line routed by its session only; it is decoded when its partition folds.
    func addUndecoded(model: Int, sessionHash: UInt64, location: LineLocation, unterminated: Bool, raw: UnsafeBufferPointer<UInt8>) throws {
        if spill == nil { try spillHeld() }
        try spill?.writeUndecoded(sessionHash: sessionHash, model: model, location: location, unterminated: unterminated, raw: raw)
        count(sessionHash: sessionHash, model: model)
        routedLines += 1
    }

    /// A quarantine record of a line found invalid while reading, with routing on.
    func quarantine(_ record: [UInt8], at location: LineLocation) {
        guard quarantine != nil else { return }
        do {
            if spill == nil { try spillHeld() }
            guard let spill else { return }
            if readingQuarantine == nil {
                readingQuarantine = try SpillFileWriter(path: spill.readingQuarantinePath, bufferBytes: 1 << 16)
            }
            try readingQuarantine?.appendLocated(record, at: location)
        } catch {
            // The spill directory failed: write the record now, out of line order.
            quarantine?.write(record)
        }
    }

    /// What one held line costs in memory: the decoded event, its strings (ids and timestamps
    /// are heap strings), the array slot and its growth slack. Measured: about 2.5 times the
    /// line's bytes plus a fixed part; the estimate errs high so that the budget holds.
    static func heldCost(rawBytes: Int) -> Int { 512 + 3 * rawBytes }

    /// Half the budget holds lines; the rest is for folding, output and the partition buffers.
    private var holdBudget: Int { memoryLimit / 2 }

    /// Whether to partition from the first line: when the inputs' size (when known: files, not
    /// standard input) says they would not fit in the budget held as decoded lines (about 300
    /// bytes a line), or is `partitionedInputBytes` (32 MB) or more. Partitions pay even when
    /// memory would do: on a 100 MB log they took 0.51 to 0.64 s and 74 to 117 MB, holding
    /// decoded lines 0.64 s and 212 MB (scripts/bench).
    var spillsFromTheStart: Bool {
        estimatedInputBytes >= partitionedInputBytes
            || estimatedInputBytes > 0
                && SpillingCollector.heldCost(rawBytes: 300) * Int(min(estimatedInputBytes / 300, Int64(Int.max / 4096))) > holdBudget
    }

    func add(_ key: SessionKey, _ line: SessionLine, raw: UnsafeBufferPointer<UInt8>) throws {
        if let spill {
            count(key)
            // Past the budget once, every later line goes straight to its partition.
            try spill.write(key: key, line: line, raw: raw)
            return
        }
        if held.isEmpty, spillsFromTheStart {
            // The input will not fit: spill from the first line, rather than hold lines up to
            // the budget and then re-encode them all (measured: half the time of doing so on
            // a 1 GB log, and partitions are small enough to fold in the cache's favour).
            try spillHeld()
            try spill?.write(key: key, line: line, raw: raw)
            count(key)
            return
        }
        held[key, default: []].append(line)
        heldBytes += SpillingCollector.heldCost(rawBytes: raw.count)
        heldRawBytes += raw.count
        // Input of unknown size (standard input) is partitioned once it is as large as a file
        // partitioned from the start: holding 1 GB of it decoded took 11.7 s and 1.3 GB.
        if heldBytes > holdBudget || heldRawBytes >= partitionedInputBytes {
            for key in held.keys { count(key) }
            try spillHeld()
        }
    }

    /// How the partitions are laid out, from the inputs' size and the memory limit.
    private struct PartitionPlan {
        let count: Int
        let perPartition: Int64
        let bufferBytes: Int
        /// What folding needs besides the partitions: `jobs` partitions decoded, the buffers.
        let reserve: Int
    }

    private var plan: PartitionPlan {
        // At most 16 MB a partition whatever the budget: small partitions fold faster (their
        // sessions stay in the cache; measured 13.7 s vs 15.0 s on 1 GB with 128 MB ones).
        let perPartition = min(16 << 20, max(Int64(1 << 20), Int64(memoryLimit / 2 / jobs) / 3))
        // Partitions small enough that `jobs` of them, decoded, fit in the budget, planned
        // for the inputs' size and a quarter more (gzip counted as 12 times its file: its
        // ratio varies); unknown (standard input), for 1,024 partitions: too few made each
        // too large to fold within the budget (a 1 GB log on standard input peaked at 480 MB
        // with 128M). More than needed cost time: smaller writes, more files.
        let expected =
            estimatedInputBytes > 0 ? max(estimatedInputBytes + estimatedInputBytes / 4, Int64(heldBytes) * 2) : 1024 * perPartition
        let count = Int(min(max((expected + perPartition - 1) / perPartition, 8), Int64(SpillPartitions.maximumCount())))
        // Write buffers: an eighth of the budget in all, at most 64 MB, 4 KB to 256 KB each.
        let buffers = min(memoryLimit / 8, 64 << 20)
        let bufferBytes = min(256 << 10, max(4096, buffers / count))
        return PartitionPlan(
            count: count, perPartition: perPartition, bufferBytes: bufferBytes,
            reserve: jobs * Int(perPartition) * 4 + count * (bufferBytes + 1024))
    }

    /// Which sessions fold from disk (`LongSession`): those whose lines take more than a
    /// partition's planned bytes, or an eighth of each job's half of the limit if more (held, a
    /// session's lines and the fold's tables of them take about 3 times its bytes), each sorted
    /// in a budget of an eighth of the limit per job. A partition file larger than twice its
    /// planned bytes, and than such a session, is read in pieces.
    func longPlan(workers: Int) -> LongSessionPlan {
        let perPartition = Int(plan.perPartition)
        let sessionBytes = max(perPartition, memoryLimit / 2 / max(1, workers) / 8)
        return LongSessionPlan(
            sessionBytes: sessionBytes, readLimit: max(2 * perPartition, sessionBytes),
            budget: max(1 << 20, memoryLimit / 8 / max(1, workers)), temporaryDirectory: temporaryDirectory)
    }

    /// Plain files of `bytes` in all may be mapped (`MappedInput`) when they fit the memory
    /// limit, less what folding needs, with a quarter more for the references routed to the
    /// partitions (a record of 33 bytes for a line of about 300).
    func mayMap(bytes: Int64) -> Bool {
        bytes > 0 && bytes + bytes / 4 + Int64(plan.reserve) <= Int64(memoryLimit)
    }

    private func spillHeld() throws {
        if spill == nil {
            spill = try SpillPartitions(count: plan.count, directory: temporaryDirectory, bufferBytes: plan.bufferBytes)
        }
        guard let spill else { return }
        for (key, lines) in held {
            // Held lines no longer have their original bytes; the record keeps their identities.
            for line in lines { try spill.write(key: key, line: line, raw: nil) }
        }
        held.removeAll()
        heldBytes = 0
        heldRawBytes = 0
    }

    func finish(
        into results: SessionResults, progress: @escaping @Sendable (FoldProgress) -> Void, refold: Refold,
        beforeOutput: (_ lateInvalid: [Finding]) throws -> Void
    ) throws {
        guard let spill else {
            try finishInMemory(into: results, refold: refold, beforeOutput: beforeOutput)
            return
        }
        defer { spill.remove() }
        try spillHeld()
        try spill.closeWriters()
        try readingQuarantine?.close()
        let workers = min(jobs, spill.count)
        let counter = FoldCounter(partitions: spill.count, report: progress)
        // A refold's sessions need no ledger: they are folded with their shared ids known.
        let ledger =
            refolding == nil ? EventIDLedger(memoryBudget: memoryLimit / 8, temporaryDirectory: temporaryDirectory, jobs: workers) : nil
        ledger?.reserve(lines: routedLines)
        defer { ledger?.remove() }
        let folded = foldPartitions(
            spill, workers: workers, sink: refolding?.sink ?? results.jobs, streaming: results.isStreaming,
            ledger: ledger, counter: counter)
        if refolding != nil {
            for result in folded { _ = try result.get() }
            return
        }
        var late: [Finding] = []
        var all: [FoldedSession] = []
        var deferred: [FoldedSession] = []
        for result in folded {
            let partition = try result.get()
            late += partition.invalid
            if results.isStreaming {
                results.add(partition.tally)
                deferred += partition.deferred
            } else {
                all += partition.sessions
            }
        }
        // Sessions that share event ids with others are folded again, with them resolved.
        let sharing = try ledger?.sharing(jobs: jobs) ?? EventIDLedger.Sharing()
        let refolded = sharing.isEmpty ? [:] : try refold(sharing)
        if let quarantine { try spill.mergeQuarantine(into: quarantine) }
        try beforeOutput(late.sorted { ($0.location ?? LineLocation(file: 0, line: 0)) < ($1.location ?? LineLocation(file: 0, line: 0)) })
        if !refolded.isEmpty {
            var added = 0
            for session in refolded.values { added += session.tally.findings - (session.previous?.findings ?? 0) }
            counter.foldedAgain(sessions: refolded.count, findings: added)
        }
        if results.isStreaming {
            try mergeOutputs(of: spill, replacing: refolded, deferred: deferred, into: results)
            return
        }
        // Partitions split sessions by hash; merge back into session order.
        for index in all.indices {
            if let again = refolded[all[index].key] { all[index] = again }
        }
        all.sort { $0.key < $1.key }
        for session in all { try results.deliver(session) }
    }

    /// Nothing spilled: the held sessions fold in memory. A session folded alone is folded
    /// again with the sessions it shares ids with.
    private func finishInMemory(
        into results: SessionResults, refold: Refold, beforeOutput: (_ lateInvalid: [Finding]) throws -> Void
    ) throws {
        try beforeOutput([])
        var sessions: [SessionKey: [SessionLine]] = [:]
        swap(&sessions, &held)
        var sharing = EventIDLedger.Sharing()
        if let othersLedger, !sessions.isEmpty {
            for (key, lines) in sessions {
                for index in lines.indices { sharing.ids.insert(EventIDLedger.idHash(lines[index].decoded.eventIDHash, model: key.model)) }
            }
            sharing.sessions = try othersLedger.sessions(withAnyOf: sharing.ids)
            if !sharing.isEmpty { sharing.sessions.formUnion(sessions.keys.map(EventIDLedger.hash)) }
        }
        var folded = foldInParallel(
            consume sessions, models: models, options: options, jobs: jobs, refolding: refolding, sink: refolding?.sink ?? results.jobs)
        if let refolding {
            for session in folded { refolding.add(session) }
            return
        }
        if !sharing.isEmpty {
            let refolded = try refold(sharing)
            for index in folded.indices {
                if var again = refolded[folded[index].key] {
                    again.previous = nil
                    folded[index] = again
                }
            }
        }
        for session in folded { try results.deliver(session) }
    }

    /// Folds whole partitions, `workers` jobs at once, each with its own fold job of `sink`
    /// (combined once all are done). Streamed output is written, sorted, beside the partitions.
    private func foldPartitions(
        _ spill: SpillPartitions, workers: Int, sink: FoldJobs, streaming: Bool, ledger: EventIDLedger?, counter: FoldCounter
    ) -> [Result<FoldedPartition, any Error>] {
        let models = self.models
        let options = self.options
        let files = routedFiles
        let mapped = self.mapped
        let keepQuarantine = quarantine != nil
        let refolding = self.refolding
        let make = sink.make
        let longPlan = self.longPlan(workers: workers)
        let folded = ParallelResults<Result<FoldedPartition, any Error>>(count: spill.count)
        let jobs = ParallelResults<any FoldJob>(count: workers)
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            var buffer: [UInt8] = []
            let job = make()
            for partition in stride(from: worker, to: spill.count, by: workers) {
                folded[partition] = Result {
                    var sessions: [FoldedSession] = []
                    let long = longPlan.sessions(
                        models: models, options: options, refolding: refolding, job: job, ledger: ledger, worker: worker
                    ) { sessions.append($0) }
                    let invalid = try spill.read(
                        partition: partition, files: files, mapped: mapped, keepQuarantine: keepQuarantine, buffer: &buffer,
                        long: long
                    ) { key, lines in
                        if let refolding {
                            // Folded again for another run, with the owners of shared ids known
                            // (only the sessions asked for: a line routed by a colliding tag may
                            // bring another).
                            guard refolding.reads(sessionID: key.id, model: key.model) else { return }
                            var known = options
                            known.earlierOccurrences = refolding.owners[key.model] ?? [:]
                            refolding.add(refoldSession(key, &lines, models: models, options: known, job: job))
                            return
                        }
                        sessions.append(foldSession(key, &lines, models: models, options: options, job: job))
                        lines.withUnsafeBufferPointer { ledger?.record(key, lines: $0, worker: worker) }
                    }
                    sessions.sort { $0.key < $1.key }
                    var result = FoldedPartition(invalid: invalid)
                    if streaming {
                        result.tally = try spill.writeOutput(partition: partition, sessions)
                        result.deferred = sessions.filter(\.isDeferred)
                    } else {
                        for session in sessions { result.tally.add(session.tally) }
                        result.sessions = sessions
                    }
                    counter.folded(findings: result.tally.findings)
                    return result
                }
            }
            jobs[worker] = job
        }
        for job in jobs.values { sink.combine(job) }
        return (0..<spill.count).compactMap { folded[$0] }
    }

    /// Writes the partitions' streamed output in session order (a k-way merge of their sorted
    /// output files); the sessions folded again replace their first output (a session may have
    /// had none at first).
    ///
    /// Sessions whose output is made when it is written (`deferred`: audited from disk) have no
    /// record in the files; they are merged in by key, as the sessions folded again are.
    private func mergeOutputs(
        of spill: SpillPartitions, replacing refolded: [SessionKey: FoldedSession], deferred: [FoldedSession],
        into results: SessionResults
    ) throws {
        for session in refolded.values { results.replace(session.previous ?? SessionTally(), with: session.tally) }
        var pending = (Array(refolded.values) + deferred.filter { refolded[$0.key] == nil }).sorted { $0.key < $1.key }[...]
        try spill.mergeOutputs { key, output in
            while let next = pending.first, next.key < key {
                try results.deliverOutput(of: next)
                pending.removeFirst()
            }
            if let next = pending.first, next.key == key {
                try results.deliverOutput(of: next)
                pending.removeFirst()
            } else {
                try results.deliver(key: key, audit: nil, output: output)
            }
        }
        for session in pending { try results.deliverOutput(of: session) }
    }
}
