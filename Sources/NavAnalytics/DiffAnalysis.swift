import NavModel
import NavReplay

/// What `diff` counts of each session: its group (app version, platform, batch, or a whole
/// input), and per group the sessions that hold each indicator and the distributions of
/// session length, duration and deepest stack.
///
/// Every indicator is per session, never a count of events: a session that takes a transition
/// ten times counts once, so one bad session cannot look like many.
public struct DiffAnalysis: JourneyAnalysis {
    /// How sessions are split into groups.
    public enum Grouping: Sendable, Equatable {
        /// By the `app_version` of the session's `session_start`.
        case appVersion
        /// By the session's platform.
        case platform
        /// By a label per session id (a store's batches); a session not listed has no group.
        case sessions([String: String])
        /// Every session in one group (one of two inputs compared).
        case all(String)
    }

    /// One group's sessions.
    public struct Group: Sendable, Equatable {
        public var sessions = 0
        /// Sessions holding each indicator.
        public var with: [Indicator: Int] = [:]
        /// Sessions by their number of events, duration (ms) and deepest stack.
        public var lengths: [Int64: Int] = [:]
        public var durations: [Int64: Int] = [:]
        public var depths: [Int64: Int] = [:]

        public init() {}

        /// The sample of a distribution (`Indicator.distributions`): events, `duration_ms` or
        /// `deepest_stack`.
        public func sample(_ key: String) -> [Int64: Int] {
            switch key {
            case Indicator.events: lengths
            case Indicator.durationMS: durations
            default: depths
            }
        }

        mutating func merge(_ other: Group) {
            sessions += other.sessions
            with.merge(other.with, uniquingKeysWith: +)
            lengths.merge(other.lengths, uniquingKeysWith: +)
            durations.merge(other.durations, uniquingKeysWith: +)
            depths.merge(other.depths, uniquingKeysWith: +)
        }

        /// Drops the entries that came back to zero (sessions added, then taken back out).
        mutating func prune() {
            with = with.filter { $0.value != 0 }
            lengths = lengths.filter { $0.value != 0 }
            durations = durations.filter { $0.value != 0 }
            depths = depths.filter { $0.value != 0 }
        }
    }

    public struct Tally: Sendable, Equatable {
        /// The groups by label.
        public var groups: [String: Group] = [:]
        /// Sessions with no group (no `session_start` naming a version, no platform, not listed).
        public var ungrouped = 0
        /// Sessions outside the window.
        public var outside = 0

        public init() {}

        /// The groups' labels, oldest first (`DiffAnalysis.precedes`).
        public var labels: [String] {
            groups.filter { $0.value.sessions > 0 }.keys.sorted(by: DiffAnalysis.precedes)
        }
    }

    public let grouping: Grouping
    /// Only sessions that start at or after `since` and before `until` (epoch ms) count.
    public let since: Int64?
    public let until: Int64?

    public init(grouping: Grouping, since: Int64? = nil, until: Int64? = nil) {
        self.grouping = grouping
        self.since = since
        self.until = until
    }

    public func makeTally() -> Tally { Tally() }

    /// The group of a session, if it has one.
    public func label(of journey: Journey) -> String? {
        switch grouping {
        case .appVersion: journey.appVersion
        case .platform: journey.platform
        case .sessions(let labels): labels[journey.sessionID]
        case .all(let label): label
        }
    }

    public func add(_ journey: Journey, weight: Int, to tally: inout Tally) {
        if since != nil || until != nil {
            guard let start = journey.start, start >= since ?? .min, start < until ?? .max else {
                tally.outside += weight
                return
            }
        }
        guard let label = label(of: journey) else {
            tally.ungrouped += weight
            return
        }
        var group = tally.groups[label] ?? Group()
        group.sessions += weight
        for indicator in Self.indicators(of: journey) { group.with[indicator, default: 0] += weight }
        group.lengths[Int64(journey.events), default: 0] += weight
        if let duration = journey.duration { group.durations[duration, default: 0] += weight }
        group.depths[Int64(journey.deepestStack), default: 0] += weight
        tally.groups[label] = group
    }

    public func merge(_ other: consuming Tally, into tally: inout Tally) {
        tally.ungrouped += other.ungrouped
        tally.outside += other.outside
        for (label, group) in other.groups { tally.groups[label, default: Group()].merge(group) }
        for label in Array(tally.groups.keys) { tally.groups[label]?.prune() }
    }

    /// The indicators a session holds, each once: the rules it broke, the screens it reached,
    /// the transitions it took (consecutive `screen_view`s of different screens), the screen it
    /// ended on, and the flows it was in.
    public static func indicators(of journey: Journey) -> Set<Indicator> {
        var held = Set<Indicator>()
        for (rule, count) in journey.findingsByRule where count > 0 { held.insert(Indicator(.rule, rule.rawValue)) }
        var previous: String?
        for view in journey.views {
            let label = view.screen.label
            held.insert(Indicator(.screen, label))
            if let previous, previous != label { held.insert(Indicator(.transition, previous + " → " + label)) }
            previous = label
        }
        if let previous { held.insert(Indicator(.exit, previous)) }
        for flow in journey.flows { held.insert(Indicator(.flow, flow)) }
        return held
    }

    /// Release order: labels split at dots, parts compared as numbers when both are numbers
    /// (`4.10.0` after `4.9.1`), else as text; a label that is a prefix of another comes first.
    public static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        let left = lhs.split(separator: ".", omittingEmptySubsequences: false)
        let right = rhs.split(separator: ".", omittingEmptySubsequences: false)
        for (a, b) in zip(left, right) where a != b {
            if let x = Int(a), let y = Int(b), x != y { return x < y }
            return a < b
        }
        return left.count != right.count ? left.count < right.count : lhs < rhs
    }
}

/// One thing a session holds or not (a proportion), or one of its measures (a distribution).
public struct Indicator: Sendable, Hashable, Comparable {
    public enum Kind: String, Sendable, CaseIterable, Comparable {
        /// Sessions with at least one finding of the rule.
        case rule
        /// Sessions that viewed the screen.
        case screen
        /// Sessions that took the transition.
        case transition
        /// Sessions whose last view was the screen.
        case exit
        /// Sessions that were in the flow.
        case flow
        /// A distribution over sessions, by key: `events` (session length), `duration_ms`,
        /// `deepest_stack`.
        case distribution

        public static func < (lhs: Self, rhs: Self) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    public var kind: Kind
    public var key: String

    /// The distributions' keys.
    public static let events = "events"
    public static let durationMS = "duration_ms"
    public static let deepestStack = "deepest_stack"
    public static let distributions = [events, durationMS, deepestStack]

    public init(_ kind: Kind, _ key: String) {
        self.kind = kind
        self.key = key
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { (lhs.kind, lhs.key) < (rhs.kind, rhs.key) }
}
