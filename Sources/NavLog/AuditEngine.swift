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
    /// How many bytes of formatted output pre-grouped input and a refold hold in memory, waiting
    /// for session order, before the rest waits in a temporary file (`OutputStore`); `nil` is
    /// an eighth of `memoryLimit`. Tests set 0, to cover the file on small inputs.
    var outputBudget: Int?
    var heldOutputBudget: Int { outputBudget ?? memoryLimit / 8 }
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
    /// Whether sessions were grouped and folded; `false` for `validate`, which checks lines only
    /// (its `events` are then the valid lines).
    public var foldedSessions = true

    public struct Storage: Sendable, Equatable {
        /// Inputs read through a memory mapping (their routed lines were references; a validation
        /// checked their lines in place).
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
                let take = { (physicalLine: RawLine) throws -> Void in
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
