public import NavReplay
public import NavResults

/// The seam between the engine and analytics: an analysis sees each folded session once, as a
/// `Journey`, and keeps what it needs of it in a tally of its own.
///
/// The engine folds sessions on several jobs; each job keeps a tally, and the run merges them,
/// in no particular order. A session folded a second time (its event ids shared with other
/// sessions resolved) is taken back out (`weight` -1, possibly on another job's tally) and added
/// again. So a tally must be additive: counts that may pass through negative values on one job,
/// and merge by adding.
public protocol JourneyAnalysis: Sendable {
    associatedtype Tally: Sendable
    func makeTally() -> Tally
    /// Adds a session (`weight` 1), or takes it back out (`weight` -1).
    func add(_ journey: Journey, weight: Int, to tally: inout Tally)
    /// Adds `other` into `tally`.
    func merge(_ other: consuming Tally, into tally: inout Tally)
}

/// Runs an analysis as an audit's sink (`AuditSink.accumulating`): each folded session's
/// journey into the analysis's tally. The audit must record steps
/// (`SessionAuditOptions(recordSteps: true)`).
public final class JourneyAccumulator<Analysis: JourneyAnalysis>: SessionAccumulator {
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
                analysis.add(try Journey(audit), weight: weight, to: &local.tally)
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

    /// The tally of every session, once the run is done. Throws what walking a session's steps
    /// again from disk threw.
    public func tally() throws -> Analysis.Tally {
        if let error { throw error }
        return total
    }
}

/// Every journey, in session order: for analyses that need whole sessions side by side, and for
/// tests. Its memory grows with the sessions' views.
public struct JourneyList: JourneyAnalysis {
    public struct Tally: Sendable {
        var added: [Journey] = []
        /// Journeys taken back out, possibly added on another job: removed at the end.
        var removed: [Journey] = []

        /// The journeys by session id (then by start, views and version, for sessions of one id in
        /// several apps).
        public var journeys: [Journey] {
            var kept = added
            for journey in removed {
                if let index = kept.firstIndex(of: journey) { kept.remove(at: index) }
            }
            return kept.sorted { ($0.sessionID, $0.start ?? .min, $0.events) < ($1.sessionID, $1.start ?? .min, $1.events) }
        }
    }

    public init() {}

    public func makeTally() -> Tally { Tally() }

    public func add(_ journey: Journey, weight: Int, to tally: inout Tally) {
        if weight > 0 { tally.added.append(journey) } else { tally.removed.append(journey) }
    }

    public func merge(_ other: consuming Tally, into tally: inout Tally) {
        tally.added += other.added
        tally.removed += other.removed
    }
}

/// Two analyses of one fold: each journey, made once, goes to both.
public struct JourneyAnalyses<First: JourneyAnalysis, Second: JourneyAnalysis>: JourneyAnalysis {
    public let first: First
    public let second: Second

    public init(_ first: First, _ second: Second) {
        self.first = first
        self.second = second
    }

    public func makeTally() -> (First.Tally, Second.Tally) { (first.makeTally(), second.makeTally()) }

    public func add(_ journey: Journey, weight: Int, to tally: inout (First.Tally, Second.Tally)) {
        first.add(journey, weight: weight, to: &tally.0)
        second.add(journey, weight: weight, to: &tally.1)
    }

    public func merge(_ other: consuming (First.Tally, Second.Tally), into tally: inout (First.Tally, Second.Tally)) {
        let (one, two) = other
        first.merge(one, into: &tally.0)
        second.merge(two, into: &tally.1)
    }
}
