public import NavModel
public import NavReplay

/// A funnel step: a state of the router at a `screen_view`, not an event name.
public enum FunnelStep: Sendable, Hashable, CustomStringConvertible {
    /// The view names this screen (`screen:tab1/detail`, `screen:tab1/(root)`).
    case screen(Screen)
    /// This modal is presented (`modal:paywall`).
    case modal(String)
    /// The session is in this flow (`flow:authorized`).
    case flow(String)
    /// The view's correlation group applied this command (`command:goCheckout`).
    case command(String)
    /// This tab is selected (`tab:tab2`).
    case tab(String)

    /// Parses `screen:STACK/ROUTE`, `screen:STACK/(root)`, `modal:NAME`, `flow:NAME`,
    /// `command:NAME` or `tab:NAME`; `nil` for anything else.
    public init?(_ text: String) {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let name = String(text[text.index(after: colon)...])
        guard !name.isEmpty else { return nil }
        switch text[..<colon] {
        case "screen":
            guard let screen = Screen(label: name), case .stack = screen else { return nil }
            self = .screen(screen)
        case "modal": self = .modal(name)
        case "flow": self = .flow(name)
        case "command": self = .command(name)
        case "tab": self = .tab(name)
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .screen(let screen): "screen:" + screen.label
        case .modal(let name): "modal:" + name
        case .flow(let name): "flow:" + name
        case .command(let name): "command:" + name
        case .tab(let name): "tab:" + name
        }
    }

    public func matches(_ view: JourneyView) -> Bool {
        switch self {
        case .screen(let screen): view.screen == screen
        case .modal(let name): view.modals.contains(name)
        case .flow(let name): view.flow == name
        case .command(let name): view.command == name
        case .tab(let name): view.tab == name
        }
    }
}

/// An ordered funnel over each session's `screen_view`s: a session reaches step k when its views
/// hold, in order (not necessarily adjacent, each step at a later view than the one before), a
/// view matching each of the first k steps, and, with `within`, each of them at most `within`
/// milliseconds after the first step's view.
///
/// A session is matched once: from its first view matching the first step; with `within`, from
/// the first view matching the first step that reaches the most steps. Each step then takes the
/// first matching view after the previous step's.
public struct FunnelAnalysis: JourneyAnalysis {
    public enum Breakdown: String, Sendable, CaseIterable {
        case appVersion = "app_version"
        case platform
    }

    public var steps: [FunnelStep]
    public var within: Int64?
    public var by: Breakdown?

    public init(steps: [FunnelStep], within: Int64? = nil, by: Breakdown? = nil) {
        self.steps = steps
        self.within = within
        self.by = by
    }

    /// One funnel's counts: every one a sum of sessions' shares, so tallies add.
    public struct Counts: Sendable {
        public internal(set) var sessions = 0
        /// Sessions that reached each step.
        public internal(set) var reached: [Int]
        /// By step (from the second): the times from the previous step, in milliseconds, with
        /// how many sessions took each.
        var times: [[Int64: Int]]
        /// By step (from the second): where the sessions that reached the step before but not
        /// this one went next, by screen (`nil`: the session ended).
        var dropped: [[Screen?: Int]]
        /// By rule: the sessions with findings of it, those that reached the first step, and
        /// those that reached the last.
        var rules: [Rule: [Int]] = [:]

        init(steps: Int) {
            reached = Array(repeating: 0, count: steps)
            times = Array(repeating: [:], count: steps)
            dropped = Array(repeating: [:], count: steps)
        }

        mutating func add(_ other: Counts) {
            sessions += other.sessions
            for step in reached.indices {
                reached[step] += other.reached[step]
                for (time, count) in other.times[step] { Self.add(count, at: time, in: &times[step]) }
                for (screen, count) in other.dropped[step] { Self.add(count, at: screen, in: &dropped[step]) }
            }
            for (rule, counts) in other.rules {
                let sum = zip(rules[rule] ?? [0, 0, 0], counts).map(+)
                rules[rule] = sum.allSatisfy { $0 == 0 } ? nil : sum
            }
        }

        /// Adds to a count, which is removed at zero.
        static func add<Key>(_ count: Int, at key: Key, in counts: inout [Key: Int]) {
            let sum = (counts[key] ?? 0) + count
            counts[key] = sum == 0 ? nil : sum
        }
    }

    public struct Tally: Sendable {
        public internal(set) var all: Counts
        /// By the breakdown's value (`nil`: sessions without one).
        public internal(set) var groups: [String?: Counts] = [:]
    }

    public func makeTally() -> Tally { Tally(all: Counts(steps: steps.count)) }

    public func add(_ journey: Journey, weight: Int, to tally: inout Tally) {
        var share = Counts(steps: steps.count)
        share.sessions = weight
        let matched = match(journey.views)
        for step in matched.indices {
            share.reached[step] = weight
            if step > 0 { share.times[step][journey.views[matched[step]].time - journey.views[matched[step - 1]].time] = weight }
        }
        if let last = matched.last, matched.count < steps.count {
            let lastScreen = journey.views[last].screen
            let next = journey.views[(last + 1)...].first { $0.screen != lastScreen }?.screen
            share.dropped[matched.count][next] = weight
        }
        for (rule, count) in journey.findingsByRule where count > 0 {
            share.rules[rule] = [weight, matched.isEmpty ? 0 : weight, matched.count == steps.count ? weight : 0]
        }
        tally.all.add(share)
        if let by {
            let value = by == .appVersion ? journey.appVersion : journey.platform
            tally.groups[value, default: Counts(steps: steps.count)].add(share)
        }
    }

    public func merge(_ other: consuming Tally, into tally: inout Tally) {
        tally.all.add(other.all)
        for (value, counts) in other.groups {
            tally.groups[value, default: Counts(steps: steps.count)].add(counts)
        }
    }

    /// The indices of the views that matched the steps reached, in order.
    func match(_ views: [JourneyView]) -> [Int] {
        guard let first = steps.first else { return [] }
        var best: [Int] = []
        for start in views.indices where first.matches(views[start]) {
            var matched = [start]
            let limit = within.map { views[start].time + $0 }
            for index in (start + 1)..<views.count where matched.count < steps.count {
                // The window ends at the first view past it.
                if let limit, views[index].time > limit { break }
                if steps[matched.count].matches(views[index]) { matched.append(index) }
            }
            if matched.count > best.count { best = matched }
            // Without a window, a later start reaches no more steps than the first.
            if within == nil || best.count == steps.count { break }
        }
        return best
    }
}
