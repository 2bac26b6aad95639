import CNavSupport
import NavEngine
public import NavEvents
import NavInput
import NavJSON
import NavModel
public import NavReplay
public import NavResults
import NavRuns
import NavSQLite

/// How a batch is read, folded and kept.
public struct IngestOptions: Sendable {
    public var maxLineBytes = LineReader.defaultMaxLineBytes
    public var jobs = 0
    /// `nil`: the audit's default, a quarter of RAM.
    public var memoryLimit: Int?
    public var temporaryDirectory: String?
    public var quarantinePath: String?
    /// A session with no new event for this long, in event time, is closed.
    public var closeAfterMilliseconds: Int64 = IngestOptions.defaultCloseAfter
    /// The memory limit in force.
    var limit: Int { memoryLimit ?? AuditConfiguration.defaultMemoryLimit }
    /// Close every open session: the end of the data.
    public var closeAll = false
    /// Drop the events of sessions closed longer ago than this, in event time.
    public var retainMilliseconds: Int64?
    /// At most this many findings kept per session; `nil`: the store's (the value its first
    /// batch folded with), or `defaultMaxFindingsPerSession` for a new store. A store folds every
    /// batch with one: another value is refused.
    public var maxFindingsPerSession: Int?
    public static let defaultMaxFindingsPerSession = 10_000
    public var lockWaitSeconds = EventStore.defaultLockWait
    /// The fold partitions (and maps) the batch's lines from this size on (tests lower it).
    package var partitionedInputBytes: Int64?
    /// The kept lines' bytes held before they go to the store as chunks; `nil` is
    /// `BatchReader.flushBytes` (tests lower it).
    package var chunkFlushBytes: Int?
    /// The batch's event ids sorted and stored together (a part of `event_ids`); `nil` is what
    /// the memory limit allows (tests lower it).
    package var idPartEntries: Int?
    /// Called once the batch is read, before the fold reads its files again (tests change a
    /// file there).
    package var beforeTheFold: (@Sendable () throws -> Void)?
    /// Called once the batch is committed, before its checkpoint (tests fill the disk there).
    package var afterTheCommit: (@Sendable () -> Void)?

    /// 30 minutes: the idle time after which analytics tools (Google Analytics, Firebase) end a
    /// session. A later event still reopens the session while the store holds its events.
    public static let defaultCloseAfter: Int64 = 30 * 60 * 1000

    public init() {}
}

/// What a batch changed.
public struct IngestReport: Sendable {
    public struct File: Sendable {
        public var path: String
        public var newLines: Int64
        public var heldBackTail: Bool
        public var error: String?
        public var alreadyIngested: Bool { error == nil && newLines == 0 }
    }

    public struct LateEvent: Sendable {
        public var sessionID: String
        public var file: String
        public var line: Int64
    }

    /// `nil` when the batch changed nothing (every file ingested already).
    public var batch: Int64?
    public var files: [File] = []
    /// The store's files, as the batch's changed findings locate their lines.
    public var paths: [String] = []
    /// How many findings the batch added and withdrew. The findings themselves are in the
    /// store (`finding_changes`), read back by `StoredChanges`: a batch of many findings is
    /// never held whole.
    /// The new findings by severity, for `--fail-on`.
    public var newBySeverity: [Severity: Int] = [:]
    public var newFindings: Int { newBySeverity.values.reduce(0, +) }
    public var withdrawnFindings = 0
    public var lines: Int64 = 0
    public var blankLines: Int64 = 0
    public var eventLines: Int64 = 0
    public var invalidLines: Int64 = 0
    public var sessionsTouched = 0
    public var sessionsReopened = 0
    public var sessionsClosed = 0
    public var sessionsPruned = 0
    public var openSessions = 0
    public var lateEvents: [LateEvent] = []
    /// The newest event time the store has seen.
    public var watermark: Timestamp?

    public var inputErrors: [String] { files.compactMap(\.error) }
}

/// `navreplay ingest`: folds a batch of log files into a store, as one transaction.
///
/// The batch's new lines are read (`BatchReader`) and each session's kept; the sessions the
/// batch touches, those that close now, and those that share event ids with them are folded
/// again from every event the store holds of them, by the audit engine, over located input;
/// their records and findings are replaced, and the difference is what the batch changed.
/// Folding whole sessions again is what makes a store equal to one audit of every batch's files.
public enum Ingestion {
    /// `progress` is called as the batch is read (lines, bytes, sessions) and as it folds (the
    /// engine's own progress), from one thread at a time.
    public static func run(
        store: EventStore, paths: [String], options: IngestOptions, progress: ((ProgressSnapshot) -> Void)? = nil
    ) throws -> IngestReport {
        let writer = StoreWriter(store: store)
        try writer.begin()
        var committed = false
        defer { if !committed { writer.rollback() } }
        let scratch = BatchScratch(try ScratchDirectory.make(in: options.temporaryDirectory, files: 1))
        defer { scratch.remove() }
        var options = options
        options.maxFindingsPerSession = try writer.maxFindingsPerSession(given: options.maxFindingsPerSession)
        let report = try ingest(writer, paths: paths, options: options, scratch: scratch, progress: progress)
        if report.batch != nil {
            try writer.commit()
            options.afterTheCommit?()
            store.checkpoint()
        } else {
            writer.rollback()
        }
        committed = true
        return report
    }

    private static func ingest(
        _ writer: StoreWriter, paths: [String], options: IngestOptions, scratch: BatchScratch,
        progress: ((ProgressSnapshot) -> Void)?
    ) throws -> IngestReport {
        let locatedPath = scratch.located
        var report = IngestReport()
        let batch = try writer.nextBatch()
        var files = try writer.files()
        let openBefore = try writer.openSessions()
        let located = try ScratchOutput(path: locatedPath)
        let eventIDs = try ScratchOutput(path: scratch.eventIDs)
        // The lines waiting for their chunk take at most a sixteenth of the limit and a flush's
        // bytes (their buffers may hold twice their bytes as they grow); the fold that follows
        // takes the limit itself.
        let budget = max(4 << 20, options.limit / 16)
        var chunkError: (any Error)?
        let reader = BatchReader(
            maxLineBytes: options.maxLineBytes, takeTornTail: options.closeAll, located: located, eventIDs: eventIDs,
            chunkBudget: min(budget, options.chunkFlushBytes ?? BatchReader.flushBytes),
            isPruned: { try writer.stored($0)?.status == .pruned }, progress: progress
        ) { sessionID, kept in
            do {
                try writer.addChunk(session: sessionID, kept, batch: batch)
            } catch {
                chunkError = error
                throw error
            }
        }
        var changedFiles: [StoredFile] = []
        var windows: [String: InputWindow] = [:]
        let nameTaken = Set(files.values.map(\.path))
        for (given, stored) in batchFiles(paths, files: files, closeAll: options.closeAll) {
            // A new file takes the next id; one that could not be read at all takes none.
            let nextID = (files.values.map(\.id).max() ?? -1) + 1
            let resolved = stored?.resolved ?? resolvedPath(given)
            let name = nameTaken.contains(given) ? resolved : given
            let known = stored ?? StoredFile(id: nextID, path: name, resolved: resolved, readPath: given)
            let outcome = try reader.read(known)
            if let chunkError { throw chunkError }
            report.files.append(
                IngestReport.File(path: given, newLines: outcome.newLines, heldBackTail: outcome.heldBackTail, error: outcome.error))
            if let window = outcome.window { windows[known.path] = window }
            if outcome.newLines > 0 || outcome.file != known { changedFiles.append(outcome.file) }
            if outcome.newLines > 0 || stored != nil || outcome.error == nil { files[resolved] = outcome.file }
        }
        try reader.flushAll()
        try located.drain()
        report.lines = reader.lines
        report.blankLines = reader.blankLines
        let watermark = max(try writer.watermark() ?? .min, Watermark.batchHigh(reader.sessionsNewest))
        // What the store held of the sessions this batch can change: the open ones, and those
        // it names.
        var stored = openBefore
        for name in reader.names { if let session = try writer.stored(name) { stored[name] = session } }
        let plan = FoldPlan(touched: reader.touched, stored: stored, watermark: watermark, options: options)
        guard reader.lines > 0 || !plan.closing.isEmpty else {
            report.batch = nil
            return report
        }
        report.batch = batch
        try eventIDs.close()
        // A part of the ids, its sort's buffer and its blob within the budget.
        let partEntries = options.idPartEntries ?? max(1 << 16, budget / 48)
        try writer.recordSharedIDs(in: scratch.eventIDs, sessions: reader.names, partEntries: partEntries, batch: batch)
        let folded = try writer.closure(of: plan.foldSet)
        var ordered = [String](repeating: "", count: (files.values.map(\.id).max() ?? -1) + 1)
        for file in files.values { ordered[file.id] = file.path }
        // The earlier batches' lines of every session folded again.
        for sessionID in folded.sorted(by: { $0.utf8Precedes($1) }) where try writer.stored(sessionID) != nil {
            try writer.forEachChunk(of: sessionID, before: batch, files: ordered.count, maxLineBytes: options.maxLineBytes) {
                try located.write(bytes: $0)
            }
        }
        try located.close()
        // The batch's buffers are freed: their pages go back before the fold takes its own.
        navreplay_release_free_memory()
        let open = folded.filter { plan.isOpen($0, status: writer.status(of: $0)) }
        try options.beforeTheFold?()
        let results = try fold(
            locatedPath, windows: windows, paths: ordered, writer: writer, open: open, options: options, progress: progress)
        report.paths = ordered
        try writer.apply(results, folded: folded, plan: plan, batch: batch, files: ordered, report: &report)
        // Lines the fold found invalid are those whose findings are new; every other non-blank
        // line is an event (a redelivery or a duplicate included), or a late one.
        report.eventLines = report.lines - report.blankLines - report.invalidLines - Int64(reader.lateLines.count)
        for late in reader.lateLines {
            try writer.addLate(late, batch: batch, path: ordered[late.file])
            report.lateEvents.append(IngestReport.LateEvent(sessionID: late.sessionID, file: ordered[late.file], line: late.line))
        }
        if let retain = options.retainMilliseconds {
            report.sessionsPruned = try writer.prune(olderThan: watermark &- retain, batch: batch)
        }
        try writer.saveFiles(changedFiles, batch: batch)
        try writer.saveWatermark(watermark)
        report.watermark = watermark == .min ? nil : Timestamp(epochMilliseconds: watermark)
        report.openSessions = try writer.openSessionCount()
        try writer.addBatch(batch, report: report, closedAll: options.closeAll)
        return report
    }

    /// The batch's files, each once by its resolved path (`h.ndjson`, `./h.ndjson` and a link
    /// to it are one file), with what the store knows of each (`nil`: a new file), in the
    /// order of the paths given; at the end of data, every file with a last line left too. A
    /// new file is named as given, unless another file of the store has that name (given from
    /// another directory): then by its resolved path.
    private static func batchFiles(
        _ paths: [String], files: [String: StoredFile], closeAll: Bool
    ) -> [(given: String, stored: StoredFile?)] {
        var seen = Set<String>()
        var result: [(given: String, stored: StoredFile?)] = []
        for path in paths.sorted(by: { $0.utf8Precedes($1) }) {
            let resolved = resolvedPath(path)
            guard seen.insert(resolved).inserted else { continue }
            guard var known = files[resolved] else {
                result.append((path, nil))
                continue
            }
            known.readPath = resolvedPath(known.path) == resolved ? known.path : path
            result.append((path, known))
        }
        // The end of data takes the last lines left without their line end, in every file.
        if closeAll {
            for var file in files.values.sorted(by: { $0.path.utf8Precedes($1.path) }) where file.tailLeft && !seen.contains(file.resolved)
            {
                file.readPath = resolvedPath(file.path) == file.resolved ? file.path : file.resolved
                result.append((file.path, file))
            }
        }
        return result
    }

    /// The path resolved (`realpath(3)`: absolute, without links, `.` or `..`), or as given
    /// when it names nothing (the error then names it as given).
    static func resolvedPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Folds the located file and the files read in place with the audit engine, collecting
    /// every session whole.
    private static func fold(
        _ path: String, windows: [String: InputWindow], paths: [String], writer: StoreWriter, open: Set<String>,
        options: IngestOptions, progress: ((ProgressSnapshot) -> Void)?
    ) throws -> FoldedSessions {
        let model = writer.store.model
        var sessionOptions = SessionAuditOptions(
            maxFindings: options.maxFindingsPerSession ?? IngestOptions.defaultMaxFindingsPerSession, keepStates: false, recordScreens: true
        )
        sessionOptions.openSessions = open
        var configuration = AuditConfiguration(
            model: model, maxLineBytes: options.maxLineBytes, quarantinePath: options.quarantinePath, jobs: options.jobs,
            sessionOptions: sessionOptions)
        // The store's side of the fold (the connection, the batch's session table, the
        // folded sessions' rows) holds about a quarter of the limit; the engine takes the rest.
        configuration.memoryLimit = options.limit - options.limit / 4
        configuration.temporaryDirectory = options.temporaryDirectory
        configuration.locatedPaths = paths
        configuration.inputWindows = windows
        if let bytes = options.partitionedInputBytes { configuration.tuning.partitionedInputBytes = bytes }
        let collected = try writer.sql { () throws(SQLiteError) in try FoldedSessions(database: writer.database) }
        let inputs = [path] + windows.keys.sorted { $0.utf8Precedes($1) }
        let run = try AuditEngine(configuration: configuration).run(paths: inputs, sink: .accumulating(collected), progress: progress)
        if let error = run.inputErrors.first {
            guard error.path != path else { throw StoreError("Cannot read the batch's temporary file: \(error)") }
            throw StoreError("\(error); nothing of the batch is ingested: run the command again")
        }
        if let failure = collected.failure { throw StoreError("The store \(writer.store.path): \(failure)") }
        try writer.sql { () throws(SQLiteError) in try collected.indexForReading() }
        return collected
    }
}

/// A batch's temporary files: the fold's located input (the earlier batches' lines of the
/// sessions it folds, and the lines it cannot read in place) and the batch's event ids.
struct BatchScratch {
    private let directory: (path: String, slot: Int32)
    let located: String
    let eventIDs: String

    init(_ directory: (path: String, slot: Int32)) {
        self.directory = directory
        located = directory.path + "/part-0"
        eventIDs = directory.path + "/ids-0"
    }

    func remove() {
        unlink(located)
        unlink(eventIDs)
        ScratchDirectory.remove(directory)
    }
}

/// Which sessions a batch folds, and how each ends up.
struct FoldPlan {
    /// Sessions that close with this batch: their last correlation group is judged.
    var closing: Set<String> = []
    /// Sessions the batch's lines touch (those whose events the store still holds).
    var touched: Set<String> = []
    /// Closed sessions a late event opens again.
    var reopened: Set<String> = []
    /// The newest event time of each folded session.
    var newest: [String: Int64] = [:]
    var appVersions: [String: String] = [:]

    var foldSet: Set<String> { touched.union(closing) }

    /// Whether a folded session stays open after the batch.
    func isOpen(_ sessionID: String, status: StoredSession.Status?) -> Bool {
        if closing.contains(sessionID) { return false }
        return touched.contains(sessionID) || status == .open
    }

    init(touched batch: [String: ScannedSession], stored: [String: StoredSession], watermark: Int64, options: IngestOptions) {
        let idleBefore = watermark &- options.closeAfterMilliseconds
        for (sessionID, seen) in batch where stored[sessionID]?.status != .pruned {
            touched.insert(sessionID)
            let newest = max(seen.newestMilliseconds, stored[sessionID]?.newestMilliseconds ?? .min)
            self.newest[sessionID] = newest
            if let version = seen.appVersion { appVersions[sessionID] = version }
            if stored[sessionID]?.status == .closed { reopened.insert(sessionID) }
            if options.closeAll || newest < idleBefore { closing.insert(sessionID) }
        }
        for (sessionID, session) in stored where session.status == .open && batch[sessionID] == nil {
            if options.closeAll || session.newestMilliseconds < idleBefore {
                closing.insert(sessionID)
                newest[sessionID] = session.newestMilliseconds
            }
        }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The store's clock: the newest event time it has seen, taken robustly, so that one device
/// with a bad clock (an event dated 2099, valid or not) moves it for no session but its own.
enum Watermark {
    /// A day: the least a batch's newest session may lie past its upper quartile and still
    /// move the watermark.
    static let tolerance: Int64 = 86_400_000

    /// The newest of the batch's sessions' newest event times (`sessionsNewest`) that is not an
    /// outlier: more than a day plus three interquartile ranges past the upper quartile of them
    /// all (Tukey's far-out fence, quartiles by nearest rank). A night's sessions spread over a
    /// day, and a backfill's over weeks, are all inside it; a few sessions far in the future
    /// are not. `.min` for a batch of no session.
    static func batchHigh(_ sessionsNewest: [Int64]) -> Int64 {
        guard !sessionsNewest.isEmpty else { return .min }
        let sorted = sessionsNewest.sorted()
        let lower = sorted[(sorted.count - 1) / 4]
        let upper = sorted[(sorted.count - 1) * 3 / 4]
        let fence = saturatingSum(upper, saturatingSum(tolerance, saturatingSum(upper &- lower, (upper &- lower) &* 2)))
        return sorted.last { $0 <= fence } ?? upper
    }

    /// `a + b`, or the bound it passes.
    private static func saturatingSum(_ a: Int64, _ b: Int64) -> Int64 {
        let sum = a.addingReportingOverflow(b)
        return sum.overflow ? (b > 0 ? .max : .min) : sum.partialValue
    }
}
