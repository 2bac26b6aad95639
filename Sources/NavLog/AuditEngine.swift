import Dispatch
import NavJSON
import NavEvents
public import NavModel
public import NavReplay

/// What an audit reads and how.
public struct AuditConfiguration: Sendable {
    public var model: NavigationModel
    public var maxLineBytes: Int
    /// Where to write each invalid line (NDJSON), if anywhere.
    public var quarantinePath: String?
    /// How many sessions fold at once; 0 means one per core.
    public var jobs: Int
    public var sessionOptions: SessionAuditOptions
    /// Fold only this session (`replay --session`).
    public var onlySession: String?
    /// Group and fold sessions; `false` checks lines only (`validate`).
    public var foldSessions = true
    /// The input is already grouped by session and ordered by seq (as a distributed engine
    /// delivers it): fold each session as soon as the next begins, holding one at a time.
    public var preGrouped = false
    /// Roughly how many bytes of decoded events to hold before spilling them to temporary
    /// partition files on disk (`--memory-limit`).
    public var memoryLimit: Int = AuditConfiguration.defaultMemoryLimit
    /// Where spill partitions go (`--temp-dir`); `nil` is `$TMPDIR` or `/tmp`.
    public var temporaryDirectory: String?
    /// Inputs of this many bytes or more are partitioned (lines routed by session, decoded when
    /// their partition folds): from the first line when their size is known, else (standard
    /// input) once that much is held. Tests and the fuzzer lower it (0: every input), to
    /// compare that path with the in-memory one on small inputs.
    public var partitionedInputBytes: Int64 = 32 << 20
    /// Bytes of lines read before they are handed to other cores to decode, one batch while
    /// the next is read: large enough to amortise the hand-off. Tests lower it.
    public var batchBytes = AuditConfiguration.defaultBatchBytes
    public static let defaultBatchBytes = 4 << 20
    /// How many bytes of partitions may stay in memory before all go to files; `nil` is the
    /// memory limit less what folding needs and the mapped inputs when every input is mapped
    /// (the partitions then hold references), else none. Tests set it, to cover both.
    public var partitionMemory: Int?
    /// Map plain input files into memory when they fit the memory limit, for a partitioned
    /// audit (`--no-mmap` turns it off: a mapped file that shrinks while it is audited ends
    /// the run).
    public var mapsInputs = true
    /// Route a mapped input's lines on every core, a chunk of the file each (`ChunkRouter`);
    /// `false` reads it on one thread, as other inputs are read. Tests compare the two.
    public var routesInParallel = true
    /// The size of those chunks; `nil` is about a 64th of the file, at least 4 MiB. Tests
    /// lower it, to cut small files into many chunks.
    public var routingChunkBytes: Int?
    /// Lines copied to partitions are put in `LineShorthand` (about 60% fewer bytes, for some
    /// CPU time) when the inputs are at least this large, or of unknown size (standard input);
    /// `nil` is the kernel's dirty-page threshold (`System.dirtyBackgroundBytes`): below it the
    /// copies stay in the page cache and shorthand costs more than it saves, past it they are
    /// written back to the disk as well. Tests set 0, to cover it on small inputs.
    public var shorthandFromBytes: Int64?
    /// Located input (`--located-input`, for distributed runs): every input line is
    /// `FILE_INDEX<TAB>LINE<TAB>original line`, naming its place in the original files, listed
    /// here; findings then carry the original file and line.
    public var locatedPaths: [String]?
    /// Set for a run that folds sessions again for another run (sessions that share event ids,
    /// `Refold`): only those sessions are read, held and folded, and nothing is written.
    var refolding: RefoldRequest?
    /// Where to read an input from instead of its name (standard input, kept in a file).
    var readPaths: [String: String] = [:]
    /// For a refold: what the first run read of each input (in the run's sorted input order).
    /// A refold reads the same lines: an input appended to since is read only as far, and one
    /// that now holds fewer lines or other bytes there is an error (it changed under the audit).
    var firstReads: [InputFileReport]?

    /// A quarter of the machine's memory, at least 256 MiB.
    public static var defaultMemoryLimit: Int {
        max(256 << 20, Int(System.physicalMemory / 4))
    }

    public init(
        model: NavigationModel = .poc, maxLineBytes: Int = LineReader.defaultMaxLineBytes, quarantinePath: String? = nil,
        jobs: Int = 0, sessionOptions: SessionAuditOptions = .init(), onlySession: String? = nil
    ) {
        self.model = model
        self.maxLineBytes = maxLineBytes
        self.quarantinePath = quarantinePath
        self.jobs = jobs
        self.sessionOptions = sessionOptions
        self.onlySession = onlySession
    }
}

/// What happened to one input file.
public struct InputFileReport: Sendable {
    public var path: String
    public var lines: Int64 = 0
    public var bytes: Int64 = 0
    public var error: InputError?
}

/// The counts of CONTRACT §7's summary: `lines = blank_lines + invalid_lines + redeliveries +
/// duplicates + events`, always.
public struct AuditCounts: Sendable, Equatable {
    public var files = 0
    public var unreadableFiles = 0
    public var lines: Int64 = 0
    public var blankLines: Int64 = 0
    public var invalidLines: Int64 = 0
    public var redeliveries: Int64 = 0
    public var duplicates: Int64 = 0
    public var events: Int64 = 0
    public var sessions = 0
    public var findings = 0
    public var findingsByRule: [Rule: Int] = [:]

    public init() {}

    /// Whether every line is accounted for.
    public var isBalanced: Bool {
        lines == blankLines + invalidLines + redeliveries + duplicates + events
    }
}

/// The result of an audit: per-file reports, unreadable lines, and every session's audit.
public struct AuditRun: Sendable {
    /// Input paths in sorted order; a `LineLocation.file` indexes this list.
    public var files: [String]
    public var fileReports: [InputFileReport]
    /// `schema.invalid` findings, in file and line order.
    public var invalidFindings: [Finding]
    /// Sessions in `session_id` order.
    public var sessions: [SessionAudit]
    public var counts: AuditCounts
    /// With a stream, the sessions were written and not kept: the findings written (kept ones,
    /// not those dropped past `maxFindings`), by severity. `nil` when the sessions were kept.
    public var streamedFindings: [Severity: Int]?
    /// How the run held its lines: for diagnostics and tests.
    public var storage = Storage()

    public struct Storage: Sendable, Equatable {
        /// Inputs read through a memory mapping (their routed lines were references).
        public var mappedInputs = 0
        /// Whether sessions were partitioned, and whether the partitions stayed in memory.
        public var partitioned = false
        public var partitionsInMemory = false
        /// Lines routed to their partition by their session alone (decoded when it folded),
        /// those of them routed as references to a mapped input, and those copied in
        /// shorthand (`LineShorthand`).
        public var routedLines: Int64 = 0
        public var referencedLines: Int64 = 0
        public var shortenedLines: Int64 = 0
        public init() {}
    }

    public init(files: [String], fileReports: [InputFileReport], invalidFindings: [Finding], sessions: [SessionAudit], counts: AuditCounts) {
        self.files = files
        self.fileReports = fileReports
        self.invalidFindings = invalidFindings
        self.sessions = sessions
        self.counts = counts
    }

    /// Every finding in output order (CONTRACT §7): unreadable lines first, then by session.
    public var findings: [Finding] {
        invalidFindings + sessions.flatMap(\.findings)
    }

    public var inputErrors: [InputError] { fileReports.compactMap(\.error) }

    public func path(of location: LineLocation?) -> String? {
        guard let location, location.file >= 0, Int(location.file) < files.count else { return nil }
        return files[Int(location.file)]
    }
}

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

        let folds = configuration.foldSessions
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

        /// A mapped file with routing on: its chunks are routed on every core (`ChunkRouter`)
        /// and handed on here in file order: their references, then their other lines as a
        /// batch's. At most one chunk per core and one more are in flight.
        func routeInParallel(_ input: MappedInput, fileID: Int32, modelID: Int, report: inout InputFileReport) throws {
            guard let spilling, let partitionWriter else { return }
            // Every line before this file is handed on first, and the partitions are made.
            try drain()
            try partitionWriter.drain()
            let partitions = try spilling.routingPartitions()
            input.willRead()
            let ranges = ChunkRouter.chunks(of: input.bytes, target: configuration.routingChunkBytes ?? ChunkRouter.target(forFileOf: input.bytes.count))
            let slots = ranges.map { _ in ChunkSlot() }
            let window = DispatchSemaphore(value: workers + 1)
            let maxLineBytes = configuration.maxLineBytes
            DispatchQueue.global().async {
                for (index, range) in ranges.enumerated() {
                    window.wait()
                    DispatchQueue.global().async {
                        slots[index].fill(
                            ChunkRouter.route(
                                input, range, isLast: index == ranges.count - 1, fileID: fileID, model: modelID,
                                partitions: partitions, maxLineBytes: maxLineBytes))
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
            for slot in slots {
                var chunk = slot.take()
                taken += 1
                window.signal()
                chunk.renumber(after: linesBefore)
                linesBefore += chunk.lines
                report.lines += chunk.lines
                report.bytes += chunk.bytes
                counts.lines += chunk.lines
                counts.blankLines += chunk.blankLines
                tracker.lines += chunk.lines
                tracker.bytes += chunk.bytes
                let routed = chunk
                partitionWriter.submit {
                    try spilling.addReferences(routed)
                    return spilling.sessionCount
                }
                if !chunk.outcomes.isEmpty {
                    try consume(DecodeTask(batch: chunk.others, modelID: modelID, decoded: chunk.otherOutcomes()))
                }
                if let progress {
                    tracker.findings = invalid.count
                    tracker.sessions = partitionWriter.sessions
                    progress(tracker)
                }
            }
        }

        for (index, path) in physical.enumerated() {
            var report = InputFileReport(path: path)
            let physicalID = Int32(index)
            let modelID = modelOfPath[path] ?? 0
            batch = LineBatch(capacity: batchBytes, mapped: mapped[index])
            let pinned = configuration.firstReads?[index]
            do {
                let take = { (physicalLine: RawLine) throws -> Void in
                    if let pinned, report.lines >= pinned.lines { throw ReadAsFarAsBefore() }
                    report.lines += 1  // counted as read, so a file that fails later keeps its count
                    var line = physicalLine
                    var fileID = physicalID
                    if located != nil {
                        guard let place = LocatedLine.split(&line, maxLineBytes: configuration.maxLineBytes),
                            locatedIndex.indices.contains(place.file)
                        else {
                            throw InputError(
                                code: .unreadable, path: path,
                                message: "line \(physicalLine.number) is not located input (FILE_INDEX<TAB>LINE<TAB>line)")
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
                    if let input = mapped[index], routing, configuration.routesInParallel {
                        try routeInParallel(input, fileID: physicalID, modelID: modelID, report: &report)
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
                    message: "sessions that share event ids must be read again, and this input could not be copied to the temporary directory (--temp-dir)")
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
            let fold = RefoldRequest(pass: .fold, sharing: sharing, owners: gather.gatheredOwners, product: results.refoldProduct)
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
                            + "after other sessions: the input is not grouped by session (run without --pre-grouped)")
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
        run.storage.mappedInputs = mapped.filter { $0 != nil }.count
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
        return run
    }

}

/// Writes an audit's output while it runs, so that no session is kept (CONTRACT §7's output
/// order: unreadable lines first, then sessions in `session_id` order).
public struct AuditStream {
    /// Formats one session's output (on a fold job: in any order, concurrently); `files` are
    /// the run's input paths, which a `LineLocation` indexes.
    public var format: @Sendable (_ audit: SessionAudit, _ files: [String]) -> [UInt8]
    /// Called once, before any session, with the unreadable lines' findings.
    public var writeInvalid: (_ findings: [Finding], _ files: [String]) throws -> Void
    /// Called with each session's output, in session order (not for empty output).
    public var write: (_ output: [UInt8]) throws -> Void
    /// Formats a session folded a second time, once the event ids it shares with other
    /// sessions were resolved (CONTRACT §7), replacing its first output; `previous` is the
    /// audit `format` was given first (the same events, fewer findings). `nil`: `format` of
    /// the new audit. A `format` with side effects (gathering a report) takes back `previous`.
    public var reformat: (@Sendable (_ previous: SessionAudit, _ audit: SessionAudit, _ files: [String]) -> [UInt8])?

    public init(
        format: @escaping @Sendable (_ audit: SessionAudit, _ files: [String]) -> [UInt8],
        writeInvalid: @escaping (_ findings: [Finding], _ files: [String]) throws -> Void,
        write: @escaping (_ output: [UInt8]) throws -> Void,
        reformat: (@Sendable (_ previous: SessionAudit, _ audit: SessionAudit, _ files: [String]) -> [UInt8])? = nil
    ) {
        self.format = format
        self.writeInvalid = writeInvalid
        self.write = write
        self.reformat = reformat
    }
}

/// One file to audit and the model (an index into the run's models) its sessions fold with.
public struct AuditInput: Sendable, Hashable {
    public var path: String
    public var model: Int

    public init(path: String, model: Int = 0) {
        self.path = path
        self.model = model
    }
}

/// A session is its id within one app (model): sessions order by id, then by model. Ids are
/// compared and hashed as bytes, not by `String`'s Unicode equivalence, so that two ids that
/// differ only in normalisation stay two sessions however the lines travel (partitions are
/// chosen by a hash of the bytes).
struct SessionKey: Hashable, Comparable, Sendable {
    var model: Int
    var id: String

    static func == (lhs: SessionKey, rhs: SessionKey) -> Bool {
        lhs.model == rhs.model && lhs.id.utf8Equals(rhs.id)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(model)
        let hashed: Void? = id.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if hashed == nil { for byte in id.utf8 { hasher.combine(byte) } }
    }

    static func < (lhs: SessionKey, rhs: SessionKey) -> Bool {
        if !lhs.id.utf8Equals(rhs.id) { return lhs.id.utf8Precedes(rhs.id) }
        return lhs.model < rhs.model
    }
}

/// What a long run has done so far, for a progress line.
public struct ProgressSnapshot: Sendable {
    public var bytes: Int64 = 0
    /// The inputs' size (gzip counted as 6x its file), for a percentage and an ETA; 0 if unknown.
    public var totalBytes: Int64 = 0
    public var lines: Int64 = 0
    public var sessions = 0
    /// Invalid lines so far (the other findings come when sessions fold, at the end).
    public var findings = 0
    /// Once reading is done and spilled partitions fold: how many are done, and their findings.
    public var fold: FoldProgress?
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

enum System {
    /// The cores this process may run on: its CPU affinity (so `taskset` and container limits
    /// count), else the cores online.
    static var coreCount: Int {
        #if canImport(Glibc)
            if let allowed = allowedCores(), allowed > 0 { return allowed }
            return max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        #else
            return 2
        #endif
    }

    /// The `Cpus_allowed` mask of `/proc/self/status`, counted (`sched_getaffinity` is not
    /// visible from Swift's Glibc module).
    static func allowedCores() -> Int? {
        #if canImport(Glibc)
            guard let mask = procValue("/proc/self/status", field: "Cpus_allowed:") else { return nil }
            var count = 0
            for character in mask {
                if let digit = character.hexDigitValue { count += digit.nonzeroBitCount }
            }
            return count
        #else
            return nil
        #endif
    }

    /// The dirty page cache past which the kernel starts writing it back to the disk:
    /// `vm.dirty_background_bytes`, else `vm.dirty_background_ratio` of the available memory;
    /// elsewhere than Linux, a tenth of the memory.
    static var dirtyBackgroundBytes: Int64 {
        #if canImport(Glibc)
            func number(_ path: String) -> Int64? { procValue(path).flatMap { Int64($0.filter(\.isNumber)) } }
            if let fixed = number("/proc/sys/vm/dirty_background_bytes"), fixed > 0 { return fixed }
            let ratio = number("/proc/sys/vm/dirty_background_ratio") ?? 10
            return max(0, ratio) * availableMemory / 100
        #else
            return physicalMemory / 10
        #endif
    }

    /// `MemAvailable` of `/proc/meminfo`, else the physical memory.
    static var availableMemory: Int64 {
        #if canImport(Glibc)
            if let kilobytes = procValue("/proc/meminfo", field: "MemAvailable:").flatMap({ Int64($0.filter(\.isNumber)) }) {
                return kilobytes * 1024
            }
        #endif
        return physicalMemory
    }

    /// What follows `field` on the line of a `/proc` file that starts with it (the first line
    /// with no field); `nil` when the file or the line is not there.
    static func procValue(_ path: String, field: String = "") -> Substring? {
        var bytes: [UInt8] = []
        guard (try? LineReader.readWholeFile(path, into: &bytes)) != nil else { return nil }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        return lines.first { $0.hasPrefix(field) }?.dropFirst(field.count)
    }

    static var physicalMemory: Int64 {
        #if canImport(Glibc)
            return Int64(sysconf(Int32(_SC_PHYS_PAGES))) * Int64(sysconf(Int32(_SC_PAGESIZE)))
        #else
            return 8 << 30
        #endif
    }
}

#if canImport(Glibc)
    import Glibc
#endif

/// The `FILE_INDEX<TAB>LINE<TAB>` prefix of located input. `LINE` may end in `u` when the
/// original line had no line end (the last line of its file), so torn lines stay torn.
enum LocatedLine {
    /// Removes the prefix from `line`, giving it its original number and ending.
    static func split(_ line: inout RawLine, maxLineBytes: Int) -> (file: Int, line: Int64)? {
        let bytes = line.bytes
        var index = 0
        func digits() -> Int64? {
            var value: Int64 = 0
            let start = index
            while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 {
                guard value < Int64.max / 10 else { return nil }
                value = value * 10 + Int64(bytes[index] &- UInt8(ascii: "0"))
                index += 1
            }
            return index > start ? value : nil
        }
        func tab() -> Bool {
            guard index < bytes.count, bytes[index] == 0x09 else { return false }
            index += 1
            return true
        }
        guard let file = digits(), tab(), let number = digits() else { return nil }
        let unterminated = index < bytes.count && bytes[index] == UInt8(ascii: "u")
        if unterminated { index += 1 }
        guard tab() else { return nil }
        line.bytes = UnsafeBufferPointer(rebasing: bytes[index...])
        line.number = number
        if unterminated { line.ending = .endOfInput }
        if let length = line.overlongLength { line.overlongLength = length - index }
        if line.overlongLength == nil, line.bytes.count > maxLineBytes { line.overlongLength = line.bytes.count }
        if line.overlongLength != nil, line.bytes.count > maxLineBytes {
            // Keep what a plain read keeps: the first --max-line-bytes bytes.
            line.bytes = UnsafeBufferPointer(rebasing: line.bytes[..<(line.bytes.startIndex + maxLineBytes)])
        }
        return (Int(file), number)
    }
}

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

    init(batch: LineBatch, modelID: Int, workers: Int, routing: Bool, shorthand: Bool, keeping: Set<UInt64>? = nil) {
        self.batch = batch
        self.modelID = modelID
        DispatchQueue.global().async { [self] in
            (decoded, self.shorthand) = batch.decode(
                workers: workers, routing: routing, shorthand: shorthand, keeping: keeping.map { (sessions: $0, model: modelID) })
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
    /// Bytes of lines per batch (`AuditConfiguration.batchBytes`).
    let capacity: Int

    init(capacity: Int = AuditConfiguration.defaultBatchBytes, mapped: MappedInput? = nil) {
        self.capacity = capacity
        self.mapped = mapped
    }

    var isFull: Bool { bytes.count + mappedBytes >= capacity }

    mutating func append(_ line: RawLine, fileID: Int32) {
        // Room for lines of about 256 bytes: growing the array by doubling copied it over and over.
        if lines.isEmpty { lines.reserveCapacity(max(16, min(capacity, 64 << 20) / 256)) }
        if let mapped, let offset = mapped.offset(of: line.bytes) {
            lines.append(
                Pending(start: offset, count: line.bytes.count, number: line.number, fileID: fileID,
                        overlongLength: line.overlongLength, unterminated: line.ending == .endOfInput, isMapped: true))
            mappedBytes += line.bytes.count
            return
        }
        if bytes.isEmpty { bytes.reserveCapacity(mapped == nil ? min(capacity, 64 << 20) + (1 << 20) : 1 << 16) }
        lines.append(
            Pending(start: bytes.count, count: line.bytes.count, number: line.number, fileID: fileID,
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
        return try bytes.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[pending.start..<(pending.start + pending.count)])) }
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
    func decode(
        workers: Int, routing: Bool = false, shorthand: Bool = false, keeping: (sessions: Set<UInt64>, model: Int)? = nil
    ) -> (outcomes: ParallelResults<LineOutcome>, shorthand: BatchShorthand?) {
        let count = lines.count
        guard count > 0 else { return (ParallelResults(count: 0), nil) }
        let results = ParallelResults<LineOutcome>(count: count)
        let lines = self.lines
        let mapped = self.mapped
        let shorthand = routing && shorthand && !bytes.isEmpty ? BatchShorthand(capacity: bytes.count) : nil
        let decodeRange: @Sendable (UnsafeBufferPointer<UInt8>, Range<Int>) -> Void = { buffer, range in
            let decoder = EventDecoder()
            let names = routing ? nil : StringCache()  // routed lines are decoded later, by their partition
            for index in range where lines[index].overlongLength == nil {
                let pending = lines[index]
                let source = pending.isMapped ? mapped!.bytes : buffer
                let line = UnsafeBufferPointer(rebasing: source[pending.start..<(pending.start + pending.count)])
                if let keeping, let session = SessionIDScanner.sessionID(in: line),
                    !keeping.sessions.contains(EventIDLedger.hash(sessionBytes: UnsafeBufferPointer(rebasing: line[session]), model: keeping.model))
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
    /// Over `--max-line-bytes`: not decoded.
    case overlong
    /// Of a session a refold does not read again: not decoded.
    case skipped

    /// What a line (not over-long) becomes: with `routing`, routed when the `SessionIDScanner`
    /// finds its session, else decoded now.
    static func of(_ line: UnsafeBufferPointer<UInt8>, routing: Bool, decoder: EventDecoder, names: StringCache? = nil) -> LineOutcome {
        if routing, let session = SessionIDScanner.sessionID(in: line) {
            return .routed(sessionHash: StableHash.string(UnsafeBufferPointer(rebasing: line[session])))
        }
        return .decoded(decoder.decode(line, names: names))
    }
}

/// Why a line is unreadable, as its `schema.invalid` finding says.
enum InvalidLine {
    static func reason(_ error: EventDecodingError, unterminated: Bool) -> (field: String?, message: String) {
        if unterminated { return (error.field, "torn line: the last line has no line end and is not a valid event (\(error))") }
        return (error.field, error.description)
    }

    static func finding(at location: LineLocation, message: String) -> Finding {
        Finding(rule: .schemaInvalid, sessionID: nil, seq: nil, eventID: nil, location: location, message: message)
    }
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
