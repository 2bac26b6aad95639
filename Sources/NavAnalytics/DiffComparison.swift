/// When a difference is reported as significant.
public struct DiffThresholds: Sendable, Equatable {
    /// A comparison is significant only with a Benjamini-Hochberg q-value below this.
    public var alpha: Double
    /// ... and an effect at least this large, as a fraction (0.005: half a percentage point):
    /// the difference of the two rates for a proportion, P(candidate > baseline) − ½ for a
    /// distribution.
    public var minEffect: Double
    /// The confidence level of the intervals.
    public var level: Double

    public static let defaultAlpha = 0.05
    public static let defaultMinEffect = 0.005

    public init(alpha: Double = defaultAlpha, minEffect: Double = defaultMinEffect, level: Double = 0.95) {
        self.alpha = alpha
        self.minEffect = minEffect
        self.level = level
    }
}

/// One indicator compared between the two groups.
public struct DiffComparison: Sendable, Equatable {
    /// One group's side of a comparison.
    public struct Side: Sendable, Equatable {
        /// The group's sessions (for a distribution, those that have the measure).
        public var sessions: Int
        /// Sessions holding the indicator (proportions only).
        public var with: Int?
        /// `with / sessions` (proportions only).
        public var rate: Double?
        /// The 50th, 90th and 99th percentiles (distributions only, nearest rank).
        public var percentiles: [Int64]?

        public init(sessions: Int, with: Int? = nil, rate: Double? = nil, percentiles: [Int64]? = nil) {
            self.sessions = sessions
            self.with = with
            self.rate = rate
            self.percentiles = percentiles
        }
    }

    public enum Direction: String, Sendable {
        /// A rule broken by more sessions.
        case regression
        /// A rule broken by fewer sessions.
        case improvement
        /// A significant difference that is not judged (screens, transitions, exits, flows,
        /// distributions).
        case change
        case none
    }

    public enum Test: String, Sendable {
        /// Fisher's exact test, where some expected cell count is below 5.
        case fisher
        /// The pooled two-proportion z-test.
        case z
        /// Mann-Whitney U, normal approximation with tie and continuity corrections.
        case mannWhitney = "mann-whitney"
    }

    public var indicator: Indicator
    public var baseline: Side
    public var candidate: Side
    /// Candidate rate − baseline rate; for a distribution P(candidate > baseline) − ½.
    public var effect: Double
    /// The effect's interval (Newcombe); `nil` for a distribution.
    public var interval: (low: Double, high: Double)?
    /// Candidate rate / baseline rate with its log interval; `nil` when either count is 0.
    public var ratio: (value: Double, low: Double, high: Double)?
    public var test: Test
    public var p: Double
    public var q: Double
    public var significant: Bool
    public var direction: Direction

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.indicator == rhs.indicator && lhs.baseline == rhs.baseline && lhs.candidate == rhs.candidate
            && lhs.effect == rhs.effect && lhs.interval?.low == rhs.interval?.low && lhs.interval?.high == rhs.interval?.high
            && lhs.ratio?.value == rhs.ratio?.value && lhs.ratio?.low == rhs.ratio?.low && lhs.ratio?.high == rhs.ratio?.high
            && lhs.test == rhs.test && lhs.p == rhs.p && lhs.q == rhs.q && lhs.significant == rhs.significant
            && lhs.direction == rhs.direction
    }
}

/// A diff: every indicator seen in either group, compared, with q-values over all of them.
public struct DiffResult: Sendable, Equatable {
    public var baseline: String
    public var candidate: String
    public var thresholds: DiffThresholds
    /// Each group's sessions.
    public var sessions: Sessions
    /// Significant comparisons first, by q, then by the size of the effect; then the others by
    /// kind and key.
    public var comparisons: [DiffComparison]

    public struct Sessions: Sendable, Equatable {
        public var baseline: Int
        public var candidate: Int
    }

    /// The significant comparisons, in order.
    public var significant: [DiffComparison] { comparisons.filter(\.significant) }

    /// Whether a rule regressed significantly.
    public var hasRegression: Bool { comparisons.contains { $0.direction == .regression } }

    /// Compares the groups `baseline` and `candidate` of `tally`. A group that is absent counts
    /// as no sessions.
    public init(_ tally: DiffAnalysis.Tally, baseline: String, candidate: String, thresholds: DiffThresholds = DiffThresholds()) {
        self.baseline = baseline
        self.candidate = candidate
        self.thresholds = thresholds
        let before = tally.groups[baseline] ?? DiffAnalysis.Group()
        let after = tally.groups[candidate] ?? DiffAnalysis.Group()
        sessions = Sessions(baseline: before.sessions, candidate: after.sessions)
        let seen = Set(before.with.filter { $0.value > 0 }.keys).union(after.with.filter { $0.value > 0 }.keys).sorted()
        var rows = seen.map { Self.proportion($0, before, after, level: thresholds.level) }
        for key in Indicator.distributions {
            rows.append(Self.distribution(key, before.sample(key), after.sample(key)))
        }
        let q = Statistics.benjaminiHochberg(rows.map(\.p))
        for index in rows.indices {
            rows[index].q = q[index]
            let row = rows[index]
            rows[index].significant = row.q < thresholds.alpha && abs(row.effect) >= thresholds.minEffect
            rows[index].direction =
                !rows[index].significant
                ? .none : row.indicator.kind != .rule ? .change : row.effect > 0 ? .regression : .improvement
        }
        comparisons = rows.sorted { a, b in
            if a.significant != b.significant { return a.significant }
            if a.significant, a.q != b.q { return a.q < b.q }
            if a.significant, abs(a.effect) != abs(b.effect) { return abs(a.effect) > abs(b.effect) }
            return a.indicator < b.indicator
        }
    }

    static func proportion(
        _ indicator: Indicator, _ before: DiffAnalysis.Group, _ after: DiffAnalysis.Group, level: Double
    )
        -> DiffComparison
    {
        let (n1, n2) = (before.sessions, after.sessions)
        let (k1, k2) = (before.with[indicator] ?? 0, after.with[indicator] ?? 0)
        let rate = { (k: Int, n: Int) in n > 0 ? Double(k) / Double(n) : 0 }
        // Cochran's rule: the z-test where every expected cell count is 5 or more.
        let total = Double(n1 + n2)
        let expected =
            total == 0
            ? 0
            : min(Double(n1), Double(n2)) * min(Double(k1 + k2), Double(n1 + n2 - k1 - k2)) / total
        let exact = expected < 5
        let p =
            exact
            ? Statistics.fisherExact(k2, n2 - k2, k1, n1 - k1) : Statistics.twoProportionZTest(k2, n2, k1, n1).p
        let difference = Statistics.differenceInterval(k2, n2, k1, n1, level: level)
        let ratio = Statistics.ratioInterval(k2, n2, k1, n1, level: level)
        return DiffComparison(
            indicator: indicator, baseline: .init(sessions: n1, with: k1, rate: rate(k1, n1)),
            candidate: .init(sessions: n2, with: k2, rate: rate(k2, n2)), effect: difference.difference,
            interval: (difference.low, difference.high), ratio: ratio.map { ($0.ratio, $0.low, $0.high) },
            test: exact ? .fisher : .z, p: p, q: 1, significant: false, direction: .none)
    }

    static func distribution(_ key: String, _ before: [Int64: Int], _ after: [Int64: Int]) -> DiffComparison {
        let (n1, n2) = (before.values.reduce(0, +), after.values.reduce(0, +))
        // U of the candidate: the pairs where it is larger, ties counting half.
        let test = Statistics.mannWhitney(after, before)
        let effect = n1 > 0 && n2 > 0 ? test.u / (Double(n1) * Double(n2)) - 0.5 : 0
        func side(_ sample: [Int64: Int], _ n: Int) -> DiffComparison.Side {
            let percentiles = [0.5, 0.9, 0.99].compactMap { Statistics.nearestRank(sample, $0) }
            return .init(sessions: n, percentiles: percentiles.isEmpty ? nil : percentiles)
        }
        return DiffComparison(
            indicator: Indicator(.distribution, key), baseline: side(before, n1), candidate: side(after, n2), effect: effect,
            interval: nil, ratio: nil, test: .mannWhitney, p: test.p, q: 1, significant: false, direction: .none)
    }
}
