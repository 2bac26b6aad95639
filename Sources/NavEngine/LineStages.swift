import Dispatch
import NavEvents
import NavJSON
import NavModel
import NavReplay
import NavInput
import NavResults
import NavPartitions

/// What a run gathers as its stages go, on the run's thread: its counts, the unreadable lines'
/// findings, each file's report and the progress line's figures.
final class RunTotals {
    var counts = AuditCounts()
    var invalid: [Finding] = []
    var reports: [InputFileReport] = []
    /// With located input, the original files' reports (the lines each named).
    var locatedReports: [InputFileReport]
    var tracker = ProgressSnapshot()
    let progress: ((ProgressSnapshot) -> Void)?

    init(files: [String], progress: ((ProgressSnapshot) -> Void)?) {
        locatedReports = files.map { InputFileReport(path: $0) }
        counts.files = files.count
        self.progress = progress
    }

    /// Shows the figures so far, with the findings and sessions found.
    func report(sessions: Int) {
        guard let progress else { return }
        tracker.findings = invalid.count
        tracker.sessions = sessions
        progress(tracker)
    }
}

/// Whether lines are routed to their partitions by their session alone (decoded when their
/// partition folds), and the queue that writes them there while reading goes on.
final class Routing {
    /// The collector lines are routed to; `nil` when the pipeline never routes (validate, one
    /// session, pre-grouped input, a refold's gathering).
    let spilling: SpillingCollector?
    /// Whether copied lines go in `LineShorthand`.
    let shorthand: Bool
    /// The inputs mapped, by file: their lines are routed as references.
    private(set) var mapped: [MappedInput?]
    private(set) var writer: PartitionWriter?
    private let files: [String]
    private let quarantine: QuarantineWriter?
    private let isLocated: Bool

    init(plan: RunPlan, spilling: SpillingCollector?, quarantine: QuarantineWriter?) {
        self.spilling = spilling
        files = plan.files
        isLocated = plan.isLocated
        self.quarantine = quarantine
        mapped = Array(repeating: nil, count: plan.physical.count)
        // Lines copied to partitions go in shorthand when there are enough of them to pass the
        // kernel's dirty threshold (gzip counted as 6 times its file, a typical ratio).
        let inputBytes = InputSize.estimate(plan.physical, gzipRatio: 6)
        shorthand =
            spilling != nil
            && (inputBytes == 0 || inputBytes >= plan.configuration.tuning.shorthandFromBytes ?? System.dirtyBackgroundBytes)
        // From the start when the inputs' size says so; for input of unknown size (standard
        // input), from when the held lines reach that size and spill (`startIfSpilled`).
        guard let spilling, spilling.spillsFromTheStart else { return }
        if plan.configuration.mapsInputs {
            // Plain files that fit the memory limit are mapped: their routed lines are
            // references (located input's past their prefix). Mapping reads nothing yet: map,
            // then keep the mappings only if they fit.
            let candidates = plan.physical.indices.map { MappedInput(path: plan.physical[$0], window: plan.windows[$0]?.window) }
            if spilling.mayMap(bytes: candidates.reduce(0) { $0 + Int64($1?.bytes.count ?? 0) }) { mapped = candidates }
        }
        start()
        // An input read in place takes its listed file's references before the located input
        // that holds earlier lines of the same file (`adopt`): those are few, the window's are
        // the batch's new lines.
        for (index, input) in mapped.enumerated() {
            if let input, let file = plan.windows[index]?.file { _ = spilling.adopt(file: file, from: input) }
        }
    }

    var isOn: Bool { writer != nil }

    private func start() {
        spilling?.prepareRouting(files: files, quarantine: quarantine, mapped: mapped, byOriginalFile: isLocated)
        writer = PartitionWriter()
    }

    /// Held lines spilled (input of unknown size): the next lines are routed.
    func startIfSpilled() {
        if writer == nil, let spilling, spilling.partitioned { start() }
    }
}

/// Where a pipeline's valid lines go once decoded: the operator between decoding and grouping,
/// one per mode.
protocol LineOperator: AnyObject {
    /// Whether lines are only checked, never grouped or folded (`validate`): no event is made.
    var checksOnly: Bool { get }
    /// Whether a valid line is counted as an event as it is read, because it is not folded.
    func countsAsRead(_ event: DecodedEvent, model: Int) -> Bool
    /// Takes a decoded batch's lines, in line order: on the reading thread or, with routing on,
    /// on the partition writer's queue.
    func take(_ task: DecodeTask, _ outcomes: ParallelResults<LineOutcome>) throws
}

extension LineOperator {
    var checksOnly: Bool { false }
}

/// Reading overlaps decoding: a full batch is decoded on other threads while the reading
/// thread hands on the previous batch's lines and reads the next (one batch in flight).
final class DecodeStage {
    private var batch: LineBatch
    private var inFlight: DecodeTask?
    private let batchBytes: Int
    let workers: Int
    private let routing: Routing
    /// A refold's sessions: the other sessions' lines are skipped undecoded.
    private let keeping: Set<UInt64>?
    private let checks: CheckStage

    init(configuration: AuditConfiguration, routing: Routing, keeping: Set<UInt64>?, checks: CheckStage) {
        batchBytes = max(1, configuration.tuning.batchBytes)
        batch = LineBatch(capacity: batchBytes)
        workers = configuration.jobs > 0 ? configuration.jobs : System.coreCount
        self.routing = routing
        self.keeping = keeping
        self.checks = checks
    }

    /// A file begins: its lines are referenced in place when it is mapped.
    func startFile(mapped: MappedInput?) {
        batch = LineBatch(capacity: batchBytes, mapped: mapped)
    }

    func append(_ line: RawLine, fileID: Int32, modelID: Int, referable: Bool = true) throws {
        batch.append(line, fileID: fileID, referable: referable)
        if batch.isFull { try flush(modelID: modelID) }
    }

    /// Sends the lines batched so far to be decoded, and hands on the batch decoded before.
    func flush(modelID: Int) throws {
        let task =
            batch.lines.isEmpty
            ? nil
            : DecodeTask(
                batch: batch, modelID: modelID, workers: workers, routing: routing.isOn, shorthand: routing.shorthand, keeping: keeping,
                checkOnly: checks.checksOnly)
        batch = LineBatch(capacity: batchBytes, mapped: batch.mapped)
        try hand(task)
    }

    /// Hands on every line sent so far.
    func drain() throws {
        try hand(nil)
        try hand(nil)
    }

    private func hand(_ task: DecodeTask?) throws {
        if let previous = inFlight {
            inFlight = nil
            try checks.consume(previous)
        }
        inFlight = task
    }
}

/// Checks each decoded line, in line order: the unreadable ones become findings (and quarantine
/// records), the others go to the mode's `LineOperator`, on the partition writer's queue when
/// lines are routed (with the quarantine records kept aside: lines found invalid later, when
/// their partition folds, are merged in line order with these).
final class CheckStage {
    private let totals: RunTotals
    private let files: [String]
    private let maxLineBytes: Int
    private let quarantine: QuarantineWriter?
    private let routing: Routing
    private let lines: any LineOperator

    /// Whether the mode only checks lines (`LineOperator.checksOnly`).
    var checksOnly: Bool { lines.checksOnly }

    init(totals: RunTotals, plan: RunPlan, quarantine: QuarantineWriter?, routing: Routing, lines: any LineOperator) {
        self.totals = totals
        files = plan.files
        maxLineBytes = plan.configuration.maxLineBytes
        self.quarantine = quarantine
        self.routing = routing
        self.lines = lines
    }

    func consume(_ task: DecodeTask) throws {
        let batch = task.batch
        let decoded = task.results()
        var records: [(LineLocation, [UInt8])] = []
        for (index, pending) in batch.lines.enumerated() {
            let reason: (field: String?, message: String)
            switch decoded[index] ?? .overlong {
            case .routed, .shortened, .skipped: continue
            case .valid:
                totals.counts.events += 1
                continue
            case .decoded(.success(let event)):
                if lines.countsAsRead(event, model: task.modelID) { totals.counts.events += 1 }
                continue
            case .overlong:
                reason = (
                    nil,
                    "the line is \(pending.overlongLength ?? pending.count) bytes, over the limit of \(maxLineBytes) (--max-line-bytes)"
                )
            case .decoded(.failure(let error)):
                reason = InvalidLine.reason(error, unterminated: pending.unterminated)
            }
            let location = LineLocation(file: pending.fileID, line: pending.number)
            totals.counts.invalidLines += 1
            totals.invalid.append(InvalidLine.finding(at: location, message: reason.message))
            guard let quarantine else { continue }
            let record = batch.withBytes(of: pending) { raw in
                QuarantineWriter.record(
                    file: files[Int(pending.fileID)], line: pending.number, field: reason.field, reason: reason.message, raw: raw)
            }
            if routing.isOn { records.append((location, record)) } else { quarantine.write(record) }
        }
        guard let writer = routing.writer, let spilling = routing.spilling else {
            try lines.take(task, decoded)
            routing.startIfSpilled()
            return
        }
        let lines = self.lines
        writer.submit {
            try lines.take(task, decoded)
            for (location, record) in records { spilling.quarantine(record, at: location) }
            return spilling.sessionCount
        }
    }
}
