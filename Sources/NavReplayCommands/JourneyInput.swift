#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import NavAnalytics
import NavEngine
import NavModel
import NavReplay
import NavResults
import NavRuns
import NavStore

/// Folds logs, or a store's held sessions, with their steps, into an analysis: the one way every
/// analytics command (`diff`, `paths`, `funnel`, `coverage`) reads its sessions.
func foldJourneys<Analysis: JourneyAnalysis>(
    _ analysis: Analysis, input: InputOptions, store: String?
) throws -> (run: AuditRun, tally: Analysis.Tally) {
    let accumulator = JourneyAccumulator(analysis)
    let options = SessionAuditOptions(recordSteps: true, keepStates: false, recordScreens: false, outlineSteps: true)
    let run: AuditRun
    if let store {
        run = try foldHeldSessions(try openStore(store), input: input, sessionOptions: options, sink: .accumulating(accumulator))
    } else {
        run = try runAudit(input, sessionOptions: options, sink: .accumulating(accumulator))
    }
    return (run, try accumulator.tally())
}

/// A store's held sessions folded again, as an audit of the lines it holds, into `sink`.
func foldHeldSessions(
    _ store: EventStore, input: InputOptions, sessionOptions: SessionAuditOptions, sink: AuditSink, model: NavigationModel? = nil
) throws -> AuditRun {
    let scratch = try ScratchDirectory.make(in: input.tempDir, files: 1)
    let held = scratch.path + "/part-0"
    defer {
        unlink(held)
        ScratchDirectory.remove(scratch)
    }
    do {
        let paths = try StoredRun.writeHeldEvents(store, to: held)
        var configuration = AuditConfiguration(
            model: model ?? store.model, maxLineBytes: input.maxLineBytes, jobs: input.jobs, sessionOptions: sessionOptions)
        if let limit = input.memoryLimit { configuration.memoryLimit = limit.bytes }
        configuration.temporaryDirectory = input.tempDir
        configuration.locatedPaths = paths
        var run = try AuditEngine(configuration: configuration).run(paths: [held], sink: sink)
        // The held events are the sessions' only: the unreadable lines, the files' lines and the
        // pruned sessions' findings are the store's, counted as `audit --store` counts them (with
        // another model, the findings are this fold's own).
        let stored = try StoredRun.audit(store)
        run.files = stored.files
        run.fileReports = stored.fileReports
        run.invalidFindings = stored.invalidFindings
        if model == nil { run.counts = stored.counts }
        return run
    } catch let error as StoreError {
        throw CommandFailure(error.description)
    }
}
