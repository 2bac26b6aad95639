public import NavReplay
public import NavResults

/// An analysis that reads each folded session whole (its steps, the state after each, its
/// findings), where `JourneyAnalysis` reads a session's `Journey`: `infer` and `coverage`. The
/// same contract: an additive tally, a session taken back out with `weight` -1.
public protocol SessionAnalysis: Sendable {
    associatedtype Tally: Sendable
    func makeTally() -> Tally
    /// Adds a session (`weight` 1), or takes it back out (`weight` -1). Throws what walking the
    /// session's steps again from disk throws.
    func add(_ audit: SessionAudit, weight: Int, to tally: inout Tally) throws
    func merge(_ other: consuming Tally, into tally: inout Tally)
    /// Whether `add` reads each step's whole state (`SessionAudit.forEachStep`), or no more than
    /// its outline (`forEachOutlinedStep`): then the fold keeps outlines
    /// (`SessionAuditOptions.outlineSteps`). True unless the analysis says otherwise.
    var readsStates: Bool { get }
}

extension SessionAnalysis {
    public var readsStates: Bool { true }
}

/// Runs a `SessionAnalysis` as an audit's sink; the audit must record steps.
public final class SessionAnalysisAccumulator<Analysis: SessionAnalysis>: SessionAccumulator {
    public struct Folder: SessionFolder {
        public let analysis: Analysis

        public struct Local {
            var tally: Analysis.Tally
            var error: (any Error)?
        }

        public func makeLocal() -> Local { Local(tally: analysis.makeTally()) }

        public func add(_ audit: SessionAudit, model: Int, files: [String], to local: inout Local) {
            add(audit, weight: 1, to: &local)
        }

        public func replace(_ previous: SessionAudit, with audit: SessionAudit, model: Int, files: [String], in local: inout Local) {
            add(previous, weight: -1, to: &local)
            add(audit, weight: 1, to: &local)
        }

        private func add(_ audit: SessionAudit, weight: Int, to local: inout Local) {
            do {
                try analysis.add(audit, weight: weight, to: &local.tally)
            } catch {
                if local.error == nil { local.error = error }
            }
        }
    }

    public let folder: Folder
    private var total: Analysis.Tally
    private var error: (any Error)?
    /// The unreadable lines' findings, which belong to no session.
    public private(set) var invalid: [Finding] = []

    public init(_ analysis: Analysis) {
        folder = Folder(analysis: analysis)
        total = analysis.makeTally()
    }

    public func begin(invalid: [Finding], files: [String]) throws { self.invalid = invalid }

    public func combine(_ local: consuming Folder.Local) {
        if error == nil, let failure = local.error { error = failure }
        folder.analysis.merge(local.tally, into: &total)
    }

    /// The tally of every session, once the run is done.
    public func tally() throws -> Analysis.Tally {
        if let error { throw error }
        return total
    }
}
