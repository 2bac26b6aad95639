#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import NavAnalytics
import NavModel
import NavReplay
import NavResults
import NavRuns

/// Folds the logs (or a store's held sessions) with a given model, once per call: `infer`
/// reads its input once a pass, `coverage` once.
final class CommandFolding: InferFolding {
    let input: InputOptions
    let store: String?
    /// The last pass: its counts, and the lines it could not read as events.
    private(set) var lastRun: AuditRun?

    init(input: InputOptions, store: String?) {
        self.input = input
        self.store = store
    }

    func fold<Analysis: SessionAnalysis>(_ analysis: Analysis, model: NavigationModel) throws -> Analysis.Tally {
        let accumulator = SessionAnalysisAccumulator(analysis)
        let options = SessionAuditOptions(
            recordSteps: true, keepStates: false, recordScreens: false, outlineSteps: !analysis.readsStates)
        if let store {
            let run = try foldHeldSessions(
                try openStore(store), input: input, sessionOptions: options, sink: .accumulating(accumulator), model: model)
            lastRun = run
            return try accumulator.tally()
        }
        // The audit reads its model from a file: the draft of this pass, written to one.
        let scratch = try ScratchDirectory.make(in: input.tempDir, files: 1)
        let path = scratch.path + "/model.json"
        defer {
            unlink(path)
            ScratchDirectory.remove(scratch)
        }
        try emit(Array(DraftModel(model).json().utf8), to: path)
        var pass = input
        pass.model = path
        let run = try runAudit(pass, sessionOptions: options, sink: .accumulating(accumulator))
        if !run.inputErrors.isEmpty { throw CommandFailure("an input could not be read completely") }
        lastRun = run
        return try accumulator.tally()
    }
}
