import Dispatch
import NavEvents
import NavJSON
import NavModel
import NavReplay
import NavInput
import NavResults
import NavPartitions

/// The modes of a run, each one pipeline: source → decode or route → group → fold → sink.
enum AuditMode {
    /// `validate`: lines are checked, nothing is grouped or folded.
    case validate
    /// Sessions grouped in memory, or partitioned past the memory limit (from the first line
    /// when the inputs are large), then folded.
    case grouped
    /// Input grouped by session already: each session folds as the next begins.
    case preGrouped
    /// One session only (`replay`, `repro`).
    case oneSession(String)
    /// A refold's first pass: the owners of the shared event ids.
    case gatherOwners(RefoldRequest)
    /// A refold's second pass: the sessions that share ids, folded with their owners known.
    case refold(RefoldRequest)

    init(_ configuration: AuditConfiguration) {
        if let refolding = configuration.refolding {
            self = refolding.pass == .gather ? .gatherOwners(refolding) : .refold(refolding)
        } else if !configuration.foldSessions {
            self = .validate
        } else if let session = configuration.onlySession {
            self = .oneSession(session)
        } else {
            self = configuration.preGrouped ? .preGrouped : .grouped
        }
    }

    var refolding: RefoldRequest? {
        switch self {
        case .gatherOwners(let request), .refold(let request): request
        default: nil
        }
    }

    /// Whether the mode's lines may be routed to partitions undecoded.
    var routes: Bool {
        switch self {
        case .grouped, .refold: true
        default: false
        }
    }
}

/// One run's pipeline, assembled for its mode from the stages: `InputSource` → `DecodeStage` →
/// `CheckStage` → a `LineOperator` → a `SessionCollector` (group, then fold) → `SessionResults`
/// and the sink.
final class AuditPipeline {
    let plan: RunPlan
    let mode: AuditMode
    let totals: RunTotals
    let results: SessionResults
    let hasSink: Bool
    /// `nil` for `validate`, which groups nothing.
    let collector: (any SessionCollector)?
    let routing: Routing
    let source: InputSource
    let quarantine: QuarantineWriter?
    /// Inputs that cannot be read twice (standard input, a pipe), copied as they are read for a
    /// refold, and the copies (kept until a refold is done).
    let unrepeatable: [String]
    let inputCopies: InputCopies?

    init(plan: RunPlan, sink: AuditSink?, progress: ((ProgressSnapshot) -> Void)?) throws {
        self.plan = plan
        let configuration = plan.configuration
        mode = AuditMode(configuration)
        totals = RunTotals(files: plan.files, progress: progress)
        results = SessionResults(sink: sink, files: plan.files)
        hasSink = sink != nil
        collector = try Self.collector(for: mode, plan: plan, results: results)
        let folds: Bool
        if case .validate = mode { folds = false } else { folds = true }
        unrepeatable = folds && mode.refolding == nil ? InputCopies.unrepeatable(plan.physical) : []
        // Without a temporary directory, the audit goes on: only a refold would need the copy.
        inputCopies = unrepeatable.isEmpty ? nil : try? InputCopies(of: unrepeatable, in: configuration.temporaryDirectory)
        quarantine = try configuration.quarantinePath.map { try QuarantineWriter(path: $0) }
        routing = Routing(plan: plan, spilling: mode.routes ? collector as? SpillingCollector : nil, quarantine: quarantine)
        let checks = CheckStage(
            totals: totals, plan: plan, quarantine: quarantine, routing: routing, lines: Self.lines(for: mode, collector))
        let decode = DecodeStage(configuration: configuration, routing: routing, keeping: mode.refolding?.sharing.sessions, checks: checks)
        // Lines checked alone are read from mapped files on every core, a chunk at a time: the
        // pages of a chunk handed on are dropped, so any size of file is mapped.
        let validatesInParallel: Bool
        if case .validate = mode {
            validatesInParallel = configuration.mapsInputs && configuration.tuning.routesInParallel && !plan.isLocated
        } else {
            validatesInParallel = false
        }
        let collector = self.collector
        source = InputSource(
            plan: plan, totals: totals, decode: decode, routing: routing, checks: checks, inputCopies: inputCopies,
            validatesInParallel: validatesInParallel, sessions: { collector?.sessionCount ?? 0 })
    }

    /// The group stage: sessions streamed one at a time for pre-grouped input, else held in
    /// memory up to a budget and partitioned past it.
    private static func collector(for mode: AuditMode, plan: RunPlan, results: SessionResults) throws -> (any SessionCollector)? {
        let configuration = plan.configuration
        switch mode {
        case .validate:
            return nil
        case .oneSession where !configuration.preGrouped, .grouped, .gatherOwners, .refold:
            break
        case .preGrouped, .oneSession:
            let ledger = EventIDLedger(memoryBudget: configuration.memoryLimit / 8, temporaryDirectory: configuration.temporaryDirectory)
            return StreamingCollector(
                models: plan.models, options: configuration.sessionOptions, ledger: ledger,
                runs: results.isStreaming
                    ? SessionRuns(budgetBytes: configuration.heldOutputBudget, temporaryDirectory: configuration.temporaryDirectory) : nil,
                jobs: configuration.jobs > 0 ? configuration.jobs : System.coreCount, sink: results.jobs,
                longPlan: LongSessionPlan(
                    sessionBytes: configuration.memoryLimit / 4, readLimit: .max, budget: max(1 << 20, configuration.memoryLimit / 8),
                    temporaryDirectory: configuration.temporaryDirectory))
        }
        let collecting = try SpillingCollector(
            models: plan.models, options: configuration.sessionOptions, jobs: configuration.jobs,
            memoryLimit: configuration.memoryLimit, temporaryDirectory: configuration.temporaryDirectory,
            estimatedInputBytes: InputSize.estimate(plan.physical, gzipRatio: 12),
            partitionedInputBytes: configuration.tuning.partitionedInputBytes)
        collecting.refolding = mode.refolding
        if case .oneSession = mode {
            collecting.othersLedger = EventIDLedger(
                memoryBudget: configuration.memoryLimit / 8, temporaryDirectory: configuration.temporaryDirectory)
        }
        return collecting
    }

    /// The mode's operator: where the valid lines go.
    private static func lines(for mode: AuditMode, _ collector: (any SessionCollector)?) -> any LineOperator {
        guard let collector else { return CheckOnly() }
        switch mode {
        case .validate: return CheckOnly()
        case .grouped, .preGrouped: return GroupLines(collector: collector)
        case .refold(let request): return GroupLines(collector: collector, refolding: request)
        case .gatherOwners(let request): return GatherOwners(refolding: request)
        case .oneSession(let session):
            return OneSessionLines(sessionID: session, collector: collector, othersLedger: (collector as? SpillingCollector)?.othersLedger)
        }
    }
}
