import NavJSON
public import NavModel
public import NavReplay

/// What `navreplay funnel` shows: each step's numbers, per breakdown value, and by rule.
public struct FunnelResult: Sendable, Equatable {
    /// Where sessions that dropped went instead: a screen (`nil`: the session ended there), or
    /// `other` places together.
    public struct Destination: Sendable, Equatable {
        public var screen: Screen?
        /// For the row of the rest: how many places it holds (0 for a named row).
        public var other = 0
        public var sessions: Int
    }

    public struct StepRow: Sendable, Equatable {
        public var step: FunnelStep
        public var sessions: Int
        /// `nil` for the first step, which has no previous one, and after a step no session reached.
        public var conversionFromPrevious: Double?
        public var conversionFromFirst: Double?
        /// Sessions that reached the previous step but not this one (`nil` for the first step).
        public var dropOff: Int?
        /// The top five places they went instead, then the rest in one row: they add up to
        /// `dropOff`.
        public var droppedTo: [Destination]
        /// The time from the previous step, in milliseconds: p50, p90, p99 (`Percentiles`).
        public var time: [Double]?
    }

    public struct Funnel: Sendable, Equatable {
        /// The breakdown's value (`nil`: sessions without one; the whole funnel has none).
        public var value: String?
        public var sessions: Int
        public var steps: [StepRow]
    }

    /// Sessions with findings of a rule against those without: each side's sessions, those that
    /// entered the funnel (reached its first step), those that completed it, and the conversion
    /// from entering to completing.
    public struct RuleRow: Sendable, Equatable {
        public struct Side: Sendable, Equatable {
            public var sessions: Int
            public var entered: Int
            public var completed: Int
            public var conversion: Double? { entered == 0 ? nil : Double(completed) / Double(entered) }
        }

        public var rule: Rule
        public var with: Side
        public var without: Side
    }

    public static let percents = [50, 90, 99]
    /// How many places a drop-off lists before its "other" row.
    public static let destinations = 5

    public var steps: [FunnelStep]
    public var within: Int64?
    public var by: FunnelAnalysis.Breakdown?
    public var all: Funnel
    /// By the breakdown's value, sorted (sessions without a value last).
    public var groups: [Funnel]
    /// By rule id.
    public var rules: [RuleRow]

    public init(_ tally: FunnelAnalysis.Tally, analysis: FunnelAnalysis) {
        steps = analysis.steps
        within = analysis.within
        by = analysis.by
        all = Self.funnel(tally.all, value: nil, steps: steps)
        groups = tally.groups.filter { $0.value.sessions != 0 }.sorted { a, b in
            guard let left = a.key else { return false }
            guard let right = b.key else { return true }
            return left.utf8Precedes(right)
        }
        .map { Self.funnel($0.value, value: $0.key, steps: analysis.steps) }
        let counts = tally.all
        let entered = counts.reached.first ?? 0
        let completed = counts.reached.last ?? 0
        rules = counts.rules.keys.sorted().map { rule in
            let with = counts.rules[rule] ?? [0, 0, 0]
            return RuleRow(
                rule: rule, with: RuleRow.Side(sessions: with[0], entered: with[1], completed: with[2]),
                without: RuleRow.Side(sessions: counts.sessions - with[0], entered: entered - with[1], completed: completed - with[2]))
        }
    }

    private static func funnel(_ counts: FunnelAnalysis.Counts, value: String?, steps: [FunnelStep]) -> Funnel {
        let first = counts.reached.first ?? 0
        let rows = steps.indices.map { index -> StepRow in
            let sessions = counts.reached[index]
            guard index > 0 else {
                return StepRow(
                    step: steps[index], sessions: sessions, conversionFromFirst: first == 0 ? nil : 1, droppedTo: [])
            }
            let previous = counts.reached[index - 1]
            let places = counts.dropped[index].map { Destination(screen: $0.key, sessions: $0.value) }
                .sorted { ($1.sessions, $0.screen?.label ?? "(exit)") < ($0.sessions, $1.screen?.label ?? "(exit)") }
            var droppedTo = Array(places.prefix(destinations))
            if places.count > destinations {
                let rest = places.dropFirst(destinations)
                droppedTo.append(Destination(other: rest.count, sessions: rest.reduce(0) { $0 + $1.sessions }))
            }
            return StepRow(
                step: steps[index], sessions: sessions,
                conversionFromPrevious: previous == 0 ? nil : Double(sessions) / Double(previous),
                conversionFromFirst: first == 0 ? nil : Double(sessions) / Double(first), dropOff: previous - sessions,
                droppedTo: droppedTo, time: Percentiles.linear(counts.times[index], percents: percents))
        }
        return Funnel(value: value, sessions: counts.sessions, steps: rows)
    }
}
