import Dispatch
import NavJSON
import NavEvents
public import NavModel
public import NavReplay
public import NavInput
public import NavResults

/// Reads log files, groups their events into sessions and audits each session.
///
/// The I/O layer around the pure core: files are read in sorted path order (so locations and
/// output never depend on argument order), lines are decoded as they stream by, and sessions
/// fold in parallel. Every line ends up counted exactly once.
public struct AuditEngine {
    public var configuration: AuditConfiguration

    public init(configuration: AuditConfiguration) {
        self.configuration = configuration
    }

    /// Audits the given files (already expanded; `-` is standard input) with the configured model.
    public func run(paths: [String], stream: AuditStream? = nil, progress: ((ProgressSnapshot) -> Void)? = nil) throws -> AuditRun {
        try run(inputs: paths.map { AuditInput(path: $0) }, models: [configuration.model], stream: stream, progress: progress)
    }

    /// Audits files that may belong to different apps: each input names its model by index into
    /// `models`. Sessions are grouped per model, so one app's sessions never mix with another's.
    ///
    /// With a `stream`, the output is written while the audit runs and the run keeps no session
    /// (`AuditRun.sessions` is empty; the counts are complete).
    public func run(
        inputs: [AuditInput], models: [NavigationModel], stream: AuditStream? = nil,
        progress: ((ProgressSnapshot) -> Void)? = nil
    ) throws -> AuditRun {
        var modelOfPath: [String: Int] = [:]
        for input in inputs where modelOfPath[input.path] == nil { modelOfPath[input.path] = input.model }
        let physical = modelOfPath.keys.sorted { $0.utf8Precedes($1) }
        // With located input, locations name the original files, numbered in sorted order.
        let located = configuration.locatedPaths.map { paths in
            (sorted: paths.sorted { $0.utf8Precedes($1) }, given: paths)
        }
        let files = located?.sorted ?? physical
        let locatedIndex: [Int32] = located.map { located in
            let position = Dictionary(located.sorted.enumerated().map { ($1, Int32($0)) }, uniquingKeysWith: { first, _ in first })
            return located.given.map { position[$0] ?? 0 }
        } ?? []
        var locatedReports = files.map { InputFileReport(path: $0) }
        var quarantine: QuarantineWriter?
        if let path = configuration.quarantinePath { quarantine = try QuarantineWriter(path: path) }
        defer { quarantine?.close() }

        var counts = AuditCounts()
        counts.files = files.count
        var reports: [InputFileReport] = []
        var invalid: [Finding] = []
        let results: SessionResults
        if let stream {
            let format = stream.format
            let reformat = stream.reformat
            results = SessionResults(
                format: { format($0, files) }, reformat: { previous, audit in reformat.map { $0(previous, audit, files) } ?? format(audit, files) },
                write: stream.write)
        } else {
            results = SessionResults()
        }
        let refolding = configuration.refolding
        let collector: any SessionCollector
        if configuration.preGrouped && refolding == nil {
            let ledger = EventIDLedger(memoryBudget: configuration.memoryLimit / 8, temporaryDirectory: configuration.temporaryDirectory)
            collector = StreamingCollector(
                models: models, options: configuration.sessionOptions, ledger: ledger,
                runs: results.isStreaming
                    ? SessionRuns(budgetBytes: configuration.heldOutputBudget, temporaryDirectory: configuration.temporaryDirectory) : nil,
                jobs: configuration.jobs > 0 ? configuration.jobs : System.coreCount, product: results.product)
        } else {
            let collecting = try SpillingCollector(
                models: models, options: configuration.sessionOptions, jobs: configuration.jobs,
                memoryLimit: configuration.memoryLimit, temporaryDirectory: configuration.temporaryDirectory,
                estimatedInputBytes: InputSize.estimate(physical, gzipRatio: 12), partitionedInputBytes: configuration.partitionedInputBytes,
                partitionMemory: configuration.partitionMemory)
            collecting.refolding = refolding
            if configuration.onlySession != nil, configuration.foldSessions, refolding == nil {
                collecting.othersLedger = EventIDLedger(
                    memoryBudget: configuration.memoryLimit / 8, temporaryDirectory: configuration.temporaryDirectory)
            }
            collector = collecting
        }
        // Inputs that cannot be read twice (standard input, a pipe) are copied as they are
        // read, for a refold (sessions that fold apart, or one session folded alone, that
        // share event ids with others).
        let unrepeatable = configuration.foldSessions && refolding == nil
            ? InputCopies.unrepeatable(physical) : []
        // Without a temporary directory, the audit goes on: only a refold would need the copy.
        let inputCopies = unrepeatable.isEmpty ? nil : try? InputCopies(of: unrepeatable, in: configuration.temporaryDirectory)
        defer { withExtendedLifetime(inputCopies) {} }  // kept until a refold is done
        // Lines of a large input are routed to their partition by their session alone and
        // decoded once, when the partition folds (not for validate, replay or pre-grouped input).
        let spilling = collector as? SpillingCollector
        let folds = configuration.foldSessions
        let mayRoute = spilling != nil && configuration.foldSessions && configuration.onlySession == nil && refolding?.pass != .gather
        // From the start when the inputs' size says so; for input of unknown size (standard
        // input), from when the held lines reach that size and spill.
        var routing = mayRoute && spilling?.spillsFromTheStart == true
        // Lines copied to partitions go in shorthand when there are enough of them to pass the
        // kernel's dirty threshold (gzip counted as 6 times its file, a typical ratio).
        let inputBytes = InputSize.estimate(physical, gzipRatio: 6)
        let shorthand = mayRoute && (inputBytes == 0 || inputBytes >= configuration.shorthandFromBytes ?? System.dirtyBackgroundBytes)
        // Plain files that fit the memory limit are mapped: their routed lines are references.
        var mapped: [MappedInput?] = Array(repeating: nil, count: physical.count)
        if routing, let spilling {
            if configuration.mapsInputs, located == nil {
                // Mapping reads nothing yet: map, then keep the mappings only if they fit.
                let candidates = physical.map { MappedInput(path: $0) }
                if spilling.mayMap(bytes: candidates.reduce(0) { $0 + Int64($1?.bytes.count ?? 0) }) { mapped = candidates }
            }
            spilling.prepareRouting(files: files, quarantine: quarantine, mapped: mapped)
        }
        // Lines checked alone (validate) are read from mapped files on every core, a chunk at a
        // time: the pages of a chunk handed on are dropped, so any size of file is mapped. One
        // file is mapped at a time, when it is read.
        let validatesInParallel = !folds && refolding == nil && configuration.mapsInputs && configuration.routesInParallel && located == nil
        var validatedMapped = 0
        // Located lines carry a prefix of at most 41 bytes on top of the original line.
        let reader = LineReader(maxLineBytes: configuration.maxLineBytes + (configuration.locatedPaths == nil ? 0 : 64))
        var tracker = ProgressSnapshot()
        tracker.totalBytes = InputSize.estimate(physical)
        let batchBytes = max(1, configuration.batchBytes)
        var batch = LineBatch(capacity: batchBytes)
        let workers = configuration.jobs > 0 ? configuration.jobs : System.coreCount

        // Routed lines are written to their partitions on a queue of their own, so that the
        // copying (and the kernel's work on the writes) overlaps reading.
        var partitionWriter = routing ? PartitionWriter() : nil

        let onlySession = configuration.onlySession

        /// Hands each decoded line of a batch on, in line order: findings and counts here; the
        /// lines for the collector here too, or with routing on the partition writer's queue,
        /// with the quarantine records kept aside (lines found invalid later, when their
        /// partition folds, are merged in line order with these).
        func consume(_ task: DecodeTask) throws {
            let batch = task.batch
            let modelID = task.modelID
            let decoded = task.results()
            var records: [(LineLocation, [UInt8])] = []
            for (index, pending) in batch.lines.enumerated() {
                let reason: (field: String?, message: String)
                switch decoded[index] ?? .overlong {
                case .routed, .shortened, .skipped: continue
                case .decoded(.success(let event)):
                    // Valid but not folded (validate; replay's other sessions): counted here.
                    if !folds || onlySession.map({ !event.event.sessionID.utf8Equals($0) }) == true { counts.events += 1 }
                    continue
                case .overlong:
                    reason = (nil, "the line is \(pending.overlongLength ?? pending.count) bytes, over the limit of \(configuration.maxLineBytes) (--max-line-bytes)")
                case .decoded(.failure(let error)):
                    reason = InvalidLine.reason(error, unterminated: pending.unterminated)
                }
                let location = LineLocation(file: pending.fileID, line: pending.number)
                counts.invalidLines += 1
                invalid.append(InvalidLine.finding(at: location, message: reason.message))
                guard let quarantine else { continue }
                let record = batch.withBytes(of: pending) { raw in
                    QuarantineWriter.record(file: files[Int(pending.fileID)], line: pending.number, field: reason.field, reason: reason.message, raw: raw)
                }
                if routing { records.append((location, record)) } else { quarantine.write(record) }
            }
            /// The lines that go to the collector: routed ones, and the valid events folded.
            func collect() throws {
                for (index, pending) in batch.lines.enumerated() {
                    let location = LineLocation(file: pending.fileID, line: pending.number)
                    switch decoded[index] ?? .overlong {
                    case .routed(let sessionHash) where pending.isMapped && SpillPartitions.canReference(length: pending.count):
                        try spilling?.addReference(
                            model: modelID, sessionHash: sessionHash, location: location, offset: pending.start, length: pending.count)
                    case .shortened(let sessionHash, let length):
                        try spilling?.addShortened(
                            model: modelID, sessionHash: sessionHash, location: location,
                            short: UnsafeBufferPointer(start: task.shorthand!.bytes + pending.start, count: Int(length)))
                    case .routed(let sessionHash):
                        try batch.withBytes(of: pending) { raw in
                            try spilling?.addUndecoded(
                                model: modelID, sessionHash: sessionHash, location: location, unterminated: pending.unterminated, raw: raw)
                        }
                    case .decoded(.success(let event)) where refolding?.reads(sessionID: event.event.sessionID, model: modelID) == false:
                        break  // a refold reads only the sessions that share ids
                    case .decoded(.success(let event)) where refolding?.pass == .gather:
                        refolding?.gather(SessionLine(decoded: event, location: location), model: modelID)
                    case .decoded(.success(let event)) where folds && onlySession.map({ event.event.sessionID.utf8Equals($0) }) != false:
                        try batch.withBytes(of: pending) { raw in
                            try collector.add(
                                SessionKey(model: modelID, id: event.event.sessionID), SessionLine(decoded: event, location: location), raw: raw)
                        }
                    case .decoded(.success(let event)) where folds:
                        // Another session than the one folded: only its event id is kept.
                        spilling?.othersLedger?.record(
                            eventIDHash: EventIDLedger.idHash(event.eventIDHash, model: modelID),
                            session: EventIDLedger.hash(SessionKey(model: modelID, id: event.event.sessionID)))
                    default: break
                    }
                }
            }
            guard let partitionWriter, let spilling else {
                try collect()
                if mayRoute, let spilling, spilling.partitioned {
                    // Held lines spilled (input of unknown size): the next lines are routed.
                    spilling.prepareRouting(files: files, quarantine: quarantine, mapped: mapped)
                    routing = true
                    partitionWriter = PartitionWriter()
                }
                return
            }
            partitionWriter.submit {
                try collect()
                for (location, record) in records { spilling.quarantine(record, at: location) }
                return spilling.sessionCount
            }
        }

        // Reading overlaps decoding: a full batch is decoded on other threads while this one
        // hands on the previous batch's lines and reads the next (one batch in flight).
        var inFlight: DecodeTask?
        func process(_ batch: inout LineBatch, modelID: Int) throws {
            let task =
                batch.lines.isEmpty
                ? nil
                : DecodeTask(
                    batch: batch, modelID: modelID, workers: workers, routing: routing, shorthand: shorthand, keeping: refolding?.sharing.sessions)
            batch = LineBatch(capacity: batchBytes, mapped: batch.mapped)
            if let previous = inFlight {
                inFlight = nil
                try consume(previous)
            }
            inFlight = task
        }
        func drain() throws {
            var empty = LineBatch()
            try process(&empty, modelID: 0)
            try process(&empty, modelID: 0)
        }

        /// A mapped file read on every core (`ChunkRouter`): with routing on, its chunks are
        /// routed; when validating, their lines are checked. The chunks are handed on here in
        /// file order: their references, their valid lines' count, then their other lines as a
        /// batch's. At most one chunk per core and one more are in flight.
        func readInParallel(_ input: MappedInput, fileID: Int32, modelID: Int, report: inout InputFileReport) throws {
            // Every line before this file is handed on first, and the partitions are made.
            try drain()
            var partitions = 0
            if routing {
                guard let spilling, let partitionWriter else { return }
                try partitionWriter.drain()
                partitions = try spilling.routingPartitions()
            }
            let routes = routing
            input.willRead()
            let target = configuration.routingChunkBytes
                ?? (routes ? ChunkRouter.target(forFileOf: input.bytes.count) : ChunkRouter.validationTarget)
            let ranges = ChunkRouter.chunks(of: input.bytes, target: target)
            if !routes { input.releaseAll() }  // the pages at the chunks' ends, read to find them
            let slots = ranges.map { _ in ChunkSlot() }
            let window = DispatchSemaphore(value: workers + 1)
            let maxLineBytes = configuration.maxLineBytes
            let chunkPartitions = partitions
            DispatchQueue.global().async {
                for (index, range) in ranges.enumerated() {
                    window.wait()
                    DispatchQueue.global().async {
                        let isLast = index == ranges.count - 1
                        slots[index].fill(
                            routes
                                ? ChunkRouter.route(
                                    input, range, isLast: isLast, fileID: fileID, model: modelID, partitions: chunkPartitions,
                                    maxLineBytes: maxLineBytes)
                                : ChunkRouter.validate(input, range, isLast: isLast, fileID: fileID, maxLineBytes: maxLineBytes))
                    }
                }
            }
            var linesBefore: Int64 = 0
            var taken = 0
            defer {
                // After an error, the chunks still in flight are taken, so every worker and
                // the thread handing out chunks finish.
                while taken < slots.count {
                    _ = slots[taken].take()
                    taken += 1
                    window.signal()
                }
            }
            for (index, slot) in slots.enumerated() {
                var chunk = slot.take()
                taken += 1
                window.signal()
                chunk.renumber(after: linesBefore)
                linesBefore += chunk.lines
                report.lines += chunk.lines
                report.bytes += chunk.bytes
                counts.lines += chunk.lines
                counts.blankLines += chunk.blankLines
                counts.events += chunk.validEvents
                tracker.lines += chunk.lines
                tracker.bytes += chunk.bytes
                if routes, let spilling, let partitionWriter {
                    let routed = chunk
                    partitionWriter.submit {
                        try spilling.addReferences(routed)
                        return spilling.sessionCount
                    }
                }
                if !chunk.outcomes.isEmpty {
                    try consume(DecodeTask(batch: chunk.others, modelID: modelID, decoded: chunk.otherOutcomes()))
                }
                // Checked and handed on: nothing refers to these pages any more.
                if !routes { input.release(before: ranges[index].upperBound) }
                if let progress {
                    tracker.findings = invalid.count
                    tracker.sessions = partitionWriter?.sessions ?? 0
                    progress(tracker)
                }
            }
        }

        for (index, path) in physical.enumerated() {
            var report = InputFileReport(path: path)
            let physicalID = Int32(index)
            let modelID = modelOfPath[path] ?? 0
            batch = LineBatch(capacity: batchBytes, mapped: mapped[index])
            let pinned = configuration.firstReads.flatMap { $0.indices.contains(index) ? $0[index] : nil }
            do {
                func take(_ physicalLine: RawLine) throws {
                    if let pinned, report.lines >= pinned.lines { throw ReadAsFarAsBefore() }
                    report.lines += 1  // counted as read, so a file that fails later keeps its count
                    var line = physicalLine
                    var fileID = physicalID
                    if located != nil {
                        let place: (file: Int, line: Int64)
                        switch LocatedLine.split(&line, files: locatedIndex.count, maxLineBytes: configuration.maxLineBytes) {
                        case .success(let split): place = split
                        case .failure(let malformed):
                            throw InputError(
                                code: .unreadable, path: path,
                                message: "line \(physicalLine.number) is not located input (FILE_INDEX<TAB>LINE<TAB>line): "
                                    + malformed.describe(files: locatedIndex.count) + "; the rest of the file is not read")
                        }
                        fileID = locatedIndex[place.file]
                        locatedReports[Int(fileID)].lines += 1
                        locatedReports[Int(fileID)].bytes += line.inputBytes
                    }
                    counts.lines += 1
                    report.bytes += line.inputBytes
                    tracker.bytes += line.inputBytes
                    tracker.lines += 1
                    if let progress, tracker.lines % 65_536 == 0 {
                        tracker.findings = invalid.count
                        tracker.sessions = partitionWriter?.sessions ?? collector.sessionCount
                        progress(tracker)
                    }
                    if line.overlongLength == nil && line.isBlank {
                        counts.blankLines += 1
                        return
                    }
                    batch.append(line, fileID: fileID)
                    if batch.isFull { try process(&batch, modelID: modelID) }
                }
                do {
                    if validatesInParallel, let input = MappedInput(path: path) {
                        validatedMapped += 1
                        try readInParallel(input, fileID: physicalID, modelID: modelID, report: &report)
                    } else if let input = mapped[index], routing, configuration.routesInParallel {
                        try readInParallel(input, fileID: physicalID, modelID: modelID, report: &report)
                    } else if let input = mapped[index] {
                        _ = try reader.readLines(of: input, take)
                    } else if let copy = inputCopies?.descriptor(for: path) {
                        _ = try reader.readLines(of: path, copyingTo: copy, take)
                    } else {
                        _ = try reader.readLines(of: configuration.readPaths[path] ?? path, take)
                    }
                } catch is ReadAsFarAsBefore {}
                try process(&batch, modelID: modelID)
            } catch let error as InputError where pinned != nil && pinned?.error == nil {
                throw InputError.changedUnderAudit(path, secondReading: "failed: " + error.message)
            } catch let error as InputError {
                // Lines read before the error are still audited.
                try process(&batch, modelID: modelID)
                try drain()
                report.error = error
                counts.unreadableFiles += 1
            }
            if let pinned, pinned.error == nil, report.lines != pinned.lines || report.bytes != pinned.bytes {
                throw InputError.changedUnderAudit(
                    path, secondReading: "found \(report.lines) lines (\(report.bytes) bytes) where the first found "
                        + "\(pinned.lines) lines (\(pinned.bytes) bytes)")
            }
            reports.append(report)
            tracker.sessions = partitionWriter?.sessions ?? collector.sessionCount
            progress?(tracker)
        }
        try drain()
        try partitionWriter?.drain()
        tracker.sessions = collector.sessionCount  // with the last batch, which was in flight
        progress?(tracker)

        let foldingTracker = tracker
        // Called from fold jobs, but one call at a time (`FoldCounter` holds its lock) while
        // the reading thread waits for the jobs: the callback is never entered twice at once.
        nonisolated(unsafe) let foldProgress = progress
        let reportFold: @Sendable (FoldProgress) -> Void = { fold in
            var snapshot = foldingTracker
            snapshot.fold = fold
            foldProgress?(snapshot)
        }
        // Sessions that share an event id with another session are read again (the first fold
        // kept no line) and folded with their shared ids resolved (CONTRACT §7), by two runs
        // over the same inputs that read only them: one gathers the owners of the shared ids,
        // the other folds those sessions with the owners known (`RefoldRequest`).
        let runConfiguration = configuration
        let copies = inputCopies?.paths ?? [:]
        let firstReads = reports
        let refold: Refold = { sharing in
            if let lost = unrepeatable.first(where: { copies[$0] == nil }) {
                throw InputError(
                    code: .unreadable, path: lost,
                    message: "sessions that share event ids must be read again, and this input could not be copied to the temporary directory",
                    remedy: .chooseTemporaryDirectory)
            }
            func read(_ request: RefoldRequest) throws {
                var again = runConfiguration
                again.refolding = request
                again.onlySession = nil
                again.quarantinePath = nil
                again.preGrouped = false
                again.readPaths = copies
                again.firstReads = firstReads
                // Read line by line, so that other sessions' lines are skipped before they are
                // decoded or routed (a mapped file's chunks are routed whole).
                again.mapsInputs = false
                again.routesInParallel = false
                _ = try AuditEngine(configuration: again).run(inputs: inputs, models: models)
            }
            let gather = RefoldRequest(pass: .gather, sharing: sharing, product: results.refoldProduct)
            try read(gather)
            let fold = RefoldRequest(
                pass: .fold, sharing: sharing, owners: gather.gatheredOwners,
                outputs: OutputStore(budget: runConfiguration.heldOutputBudget, temporaryDirectory: runConfiguration.temporaryDirectory),
                product: results.refoldProduct)
            try read(fold)
            return fold.sessions
        }
        try collector.finish(into: results, progress: reportFold, refold: refold) { late in
            // Lines found invalid as their partitions folded join the others, in line order,
            // before any session is written.
            if !late.isEmpty {
                counts.invalidLines += Int64(late.count)
                invalid = (invalid + late).sorted { ($0.location ?? LineLocation(file: 0, line: 0)) < ($1.location ?? LineLocation(file: 0, line: 0)) }
            }
            if let stream { try stream.writeInvalid(invalid, files) }
        }
        if let streaming = collector as? StreamingCollector {
            for problem in streaming.regroupedSessions {
                reports[Int(problem.location.file)].error = reports[Int(problem.location.file)].error
                    ?? InputError(
                        code: .notGrouped, path: files[Int(problem.location.file)],
                        message: "session \(JSONWriter.quoted(problem.sessionID)) appears again at line \(problem.location.line) "
                            + "after other sessions: the input is not grouped by session", remedy: .readUngrouped)
            }
            counts.unreadableFiles = reports.filter { $0.error != nil }.count
        }
        let tally = results.tally
        counts.redeliveries = tally.redeliveries
        counts.duplicates = tally.duplicates
        counts.events += tally.events
        counts.findings = tally.findings + invalid.count
        counts.findingsByRule = tally.findingsByRule
        counts.sessions = tally.sessions
        if !invalid.isEmpty { counts.findingsByRule[.schemaInvalid, default: 0] += invalid.count }
        if located != nil {
            // Report the original files; an error reading the located stream stays visible.
            reports = locatedReports + reports.filter { $0.error != nil }
            counts.files = files.count
        }
        var run = AuditRun(files: files, fileReports: reports, invalidFindings: invalid, sessions: results.audits, counts: counts)
        run.storage.mappedInputs = mapped.filter { $0 != nil }.count + validatedMapped
        run.foldedSessions = configuration.foldSessions
        if let spilling {
            run.storage.partitioned = spilling.partitioned
            run.storage.partitionsInMemory = spilling.partitionsStayedInMemory
            run.storage.routedLines = spilling.routedLines
            run.storage.referencedLines = spilling.referencedLines
            run.storage.shortenedLines = spilling.shortenedLines
        }
        if stream != nil {
            var written = tally.keptBySeverity
            for finding in invalid { written[finding.severity, default: 0] += 1 }
            run.streamedFindings = written
        }
        // Invalid lines the quarantine could not hold (a full disk) fail the run (exit 2).
        try quarantine?.finish()
        return run
    }

}

/// A fixed number of result slots that parallel jobs fill, each its own slot.
final class ParallelResults<Value>: @unchecked Sendable {
    // @unchecked: every slot is written by exactly one job and read only after all have
    // joined; the slots live in raw memory, so no job touches a shared Swift property.
    private let slots: UnsafeMutableBufferPointer<Value?>

    init(count: Int) {
        slots = .allocate(capacity: count)
        slots.initialize(repeating: nil)
    }

    deinit {
        slots.deinitialize()
        slots.deallocate()
    }

    subscript(index: Int) -> Value? {
        get { slots[index] }
        set { slots[index] = newValue }
    }

    /// Moves a slot's value out, leaving it empty.
    func take(_ index: Int) -> Value? { slots[index].take() }

    var values: [Value] { slots.compactMap { $0 } }
}

/// Ends a refold's reading of an input where the first reading ended (`firstReads`).
private struct ReadAsFarAsBefore: Error {}

extension InputError {
    /// An input that a refold (`firstReads`) could not read as the first reading did: the
    /// audit's results would mix two versions of it, so it ends the run.
    static func changedUnderAudit(_ path: String, secondReading: String) -> InputError {
        InputError(
            code: .unreadable, path: path,
            message: "changed while it was audited: sessions that share event ids are read twice, and the second reading "
                + secondReading)
    }
}
