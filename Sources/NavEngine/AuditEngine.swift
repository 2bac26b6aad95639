import Dispatch
import NavJSON
import NavEvents
public import NavModel
import NavReplay
import NavInput
public import NavResults
import NavPartitions

/// Reads log files, groups their events into sessions and audits each session.
///
/// The I/O layer around the pure core: files are read in sorted path order (so locations and
/// output never depend on argument order), lines are decoded as they stream by, and sessions
/// fold in parallel. Every line ends up counted exactly once. Each mode is one pipeline of
/// small stages (`AuditPipeline`).
public struct AuditEngine {
    public var configuration: AuditConfiguration

    public init(configuration: AuditConfiguration) {
        self.configuration = configuration
    }

    /// Audits the given files (already expanded; `-` is standard input) with the configured model.
    public func run(paths: [String], sink: AuditSink? = nil, progress: ((ProgressSnapshot) -> Void)? = nil) throws -> AuditRun {
        try run(inputs: paths.map { AuditInput(path: $0) }, models: [configuration.model], sink: sink, progress: progress)
    }

    /// Audits files that may belong to different apps: each input names its model by index into
    /// `models`. Sessions are grouped per model, so one app's sessions never mix with another's.
    ///
    /// With a `sink`, the sessions go there as they fold and the run keeps none
    /// (`AuditRun.sessions` is empty; the counts are complete).
    public func run(
        inputs: [AuditInput], models: [NavigationModel], sink: AuditSink? = nil, progress: ((ProgressSnapshot) -> Void)? = nil
    ) throws -> AuditRun {
        let pipeline = try AuditPipeline(
            plan: RunPlan(configuration: configuration, inputs: inputs, models: models), sink: sink, progress: progress)
        return try pipeline.run()
    }
}

extension AuditPipeline {
    /// Reads every input through the stages, folds the sessions into the sink, and sums up.
    func run() throws -> AuditRun {
        defer { quarantine?.close() }
        defer { withExtendedLifetime(inputCopies) {} }  // kept until a refold is done
        try source.readAll()
        try fold()
        let run = assemble()
        // Invalid lines the quarantine could not hold (a full disk) fail the run (exit 2).
        try quarantine?.finish()
        return run
    }

    /// The fold and sink stages: the collector folds what it holds, folding again the sessions
    /// that share event ids (`Refolder`), and hands every session on in session order, after
    /// the unreadable lines.
    private func fold() throws {
        guard let collector else {
            try results.begin(invalid: totals.invalid)
            return
        }
        let foldingTracker = totals.tracker
        // Called from fold jobs, but one call at a time (`FoldCounter` holds its lock) while
        // the reading thread waits for the jobs: the callback is never entered twice at once.
        nonisolated(unsafe) let foldProgress = totals.progress
        let reportFold: @Sendable (FoldProgress) -> Void = { fold in
            var snapshot = foldingTracker
            snapshot.fold = fold
            foldProgress?(snapshot)
        }
        let refolder = Refolder(
            plan: plan, unrepeatable: unrepeatable, copies: inputCopies?.paths ?? [:], firstReads: totals.reports, sink: results.jobs)
        try collector.finish(into: results, progress: reportFold, refold: refolder.refold) { late in
            // Lines found invalid as their partitions folded join the others, in line order,
            // before any session is written.
            if !late.isEmpty {
                totals.counts.invalidLines += Int64(late.count)
                totals.invalid = (totals.invalid + late).sorted {
                    ($0.location ?? LineLocation(file: 0, line: 0)) < ($1.location ?? LineLocation(file: 0, line: 0))
                }
            }
            try results.begin(invalid: totals.invalid)
        }
    }

    /// The run's result: the counts, with the sessions' tally; the files' reports.
    private func assemble() -> AuditRun {
        var counts = totals.counts
        var reports = totals.reports
        if let streaming = collector as? StreamingCollector {
            for problem in streaming.regroupedSessions {
                let file = Int(problem.location.file)
                reports[file].error =
                    reports[file].error
                    ?? InputError(
                        code: .notGrouped, path: plan.files[file],
                        message: "session \(JSONWriter.quoted(problem.sessionID)) appears again at line \(problem.location.line) "
                            + "after other sessions: the input is not grouped by session", remedy: .readUngrouped)
            }
            counts.unreadableFiles = reports.filter { $0.error != nil }.count
        }
        let tally = results.tally
        let invalid = totals.invalid
        counts.redeliveries = tally.redeliveries
        counts.duplicates = tally.duplicates
        counts.events += tally.events
        counts.findings = tally.findings + invalid.count
        counts.findingsByRule = tally.findingsByRule
        counts.sessions = tally.sessions
        if !invalid.isEmpty { counts.findingsByRule[.schemaInvalid, default: 0] += invalid.count }
        if plan.isLocated {
            // Report the original files; an error reading the located stream stays visible.
            reports = totals.locatedReports + reports.filter { $0.error != nil }
            counts.files = plan.files.count
        }
        var run = AuditRun(files: plan.files, fileReports: reports, invalidFindings: invalid, sessions: results.audits, counts: counts)
        run.storage.mappedInputs = routing.mapped.filter { $0 != nil }.count + source.validatedMapped
        if case .validate = mode { run.foldedSessions = false }
        if let spilling = collector as? SpillingCollector {
            run.storage.partitioned = spilling.partitioned
            run.storage.routedLines = spilling.routedLines
            run.storage.referencedLines = spilling.referencedLines
            run.storage.shortenedLines = spilling.shortenedLines
        }
        if hasSink {
            var written = tally.keptBySeverity
            for finding in invalid { written[finding.severity, default: 0] += 1 }
            run.streamedFindings = written
        }
        return run
    }
}
