import NavModel

/// What the report tallies of the journeys: the paths, and a funnel when steps are given.
public struct ReportJourneys: JourneyAnalysis {
    public var paths = PathsAnalysis()
    public var funnel: FunnelAnalysis?

    public init(funnel: FunnelAnalysis? = nil) { self.funnel = funnel }

    public struct Tally: Sendable {
        var paths: PathsAnalysis.Tally
        var funnel: FunnelAnalysis.Tally?
    }

    public func makeTally() -> Tally { Tally(paths: paths.makeTally(), funnel: funnel?.makeTally()) }

    public func add(_ journey: Journey, weight: Int, to tally: inout Tally) {
        paths.add(journey, weight: weight, to: &tally.paths)
        if let funnel, tally.funnel != nil { funnel.add(journey, weight: weight, to: &tally.funnel!) }
    }

    public func merge(_ other: consuming Tally, into tally: inout Tally) {
        paths.merge(other.paths, into: &tally.paths)
        if let funnel, let theirs = other.funnel, tally.funnel != nil { funnel.merge(theirs, into: &tally.funnel!) }
    }

    /// The paths, and the funnel when steps were given.
    public func results(_ tally: Tally) -> (paths: PathsResult, funnel: FunnelResult?) {
        let funnelResult = funnel.flatMap { analysis in tally.funnel.map { FunnelResult($0, analysis: analysis) } }
        return (PathsResult(tally.paths, anchor: nil), funnelResult)
    }
}
