import NavJSON
public import NavModel

/// Where sessions go, screen by screen: every screen with the sessions that reached it and its
/// views; every transition between two consecutive `screen_view`s of different screens, with the
/// sessions that took it, its count, and its count per operation; and, around one screen, the
/// tree of the paths out of it or into it.
///
/// A transition is attributed to the operation of the view it arrives at (the first
/// state-changing event of that view's correlation group), so its operations add up to its count.
/// Repeated views of one screen (a `screen_view` logged again) are views, not transitions.
///
/// The tally keeps counts by interned screen: its memory grows with the screens and the pairs of
/// screens the sessions show, not with the sessions, except for a tree's paths (one a distinct
/// path of `steps` screens around the anchor).
public struct PathsAnalysis: JourneyAnalysis {
    /// The tree's anchor: the paths of `steps` transitions out of (`from`) or into (`to`) a
    /// screen, from each session's first view of it.
    public struct Anchor: Sendable, Equatable {
        public enum Direction: String, Sendable { case from, to }
        public var screen: Screen
        public var direction: Direction
        public var steps: Int

        public init(screen: Screen, direction: Direction, steps: Int) {
            self.screen = screen
            self.direction = direction
            self.steps = steps
        }
    }

    public var anchor: Anchor?

    public init(anchor: Anchor? = nil) { self.anchor = anchor }

    /// One screen's numbers; `Transition`'s; one tree node's (the sessions whose path passes it,
    /// by the operation of the transition between it and its parent).
    struct Counts: Sendable {
        var sessions = 0
        var count = 0
        var operations = [Int](repeating: 0, count: JourneyOperation.allCases.count)

        mutating func add(_ other: Counts) {
            sessions += other.sessions
            count += other.count
            for index in operations.indices { operations[index] += other.operations[index] }
        }

        var isEmpty: Bool { sessions == 0 && count == 0 && operations.allSatisfy { $0 == 0 } }
    }

    public struct Tally: Sendable {
        var sessions = 0
        var table = ScreenTable()
        /// By screen id: sessions that reached it (in `sessions`) and views (in `count`).
        var screens: [Int32: Counts] = [:]
        /// By `from << 32 | to`.
        var transitions: [UInt64: Counts] = [:]
        /// Sessions that reached the anchor, and the tree's nodes by path from it (`end` for a
        /// session with no screen further out).
        var anchored = 0
        var tree: [[Int32]: Counts] = [:]
        /// Sessions by entry (the first screen other than the session's first, else its first)
        /// and by exit (its last screen).
        var entries: [Int32: Int] = [:]
        var exits: [Int32: Int] = [:]
    }

    /// A tree's node past the end of a session (no screen further out of, or into, the anchor).
    static let end: Int32 = -1

    public func makeTally() -> Tally { Tally() }

    public func add(_ journey: Journey, weight: Int, to tally: inout Tally) {
        tally.sessions += weight
        // The views with consecutive repeats collapsed: (screen, operation of the first view).
        var runs: [(screen: Int32, operation: JourneyOperation)] = []
        var reached = Set<Int32>()
        for view in journey.views {
            let id = tally.table.id(view.screen)
            tally.screens[id, default: Counts()].count += weight
            if reached.insert(id).inserted { tally.screens[id, default: Counts()].sessions += weight }
            if runs.last?.screen != id { runs.append((id, view.operation)) }
        }
        var taken = Set<UInt64>()
        for (from, to) in zip(runs, runs.dropFirst()) {
            let key = UInt64(UInt32(bitPattern: from.screen)) << 32 | UInt64(UInt32(bitPattern: to.screen))
            var counts = tally.transitions[key] ?? Counts()
            counts.count += weight
            counts.operations[to.operation.index] += weight
            if taken.insert(key).inserted { counts.sessions += weight }
            tally.transitions[key] = counts
        }
        if let first = runs.first, let last = runs.last {
            FunnelAnalysis.Counts.add(weight, at: runs.count > 1 ? runs[1].screen : first.screen, in: &tally.entries)
            FunnelAnalysis.Counts.add(weight, at: last.screen, in: &tally.exits)
        }
        for id in reached where tally.screens[id]?.isEmpty == true { tally.screens[id] = nil }
        for key in taken where tally.transitions[key]?.isEmpty == true { tally.transitions[key] = nil }
        if let anchor { addTree(runs, anchor: anchor, weight: weight, to: &tally) }
    }

    /// The session's path from (or into) its first view of the anchor, one node a level.
    private func addTree(
        _ runs: [(screen: Int32, operation: JourneyOperation)], anchor: Anchor, weight: Int, to tally: inout Tally
    ) {
        let id = tally.table.id(anchor.screen)
        guard let first = runs.firstIndex(where: { $0.screen == id }) else { return }
        tally.anchored += weight
        var path: [Int32] = []
        for step in 1...max(anchor.steps, 1) {
            let index = anchor.direction == .from ? first + step : first - step
            var counts = Counts(sessions: weight)
            if runs.indices.contains(index) {
                path.append(runs[index].screen)
                // The transition between this node and its parent.
                let operation = anchor.direction == .from ? runs[index].operation : runs[index + 1].operation
                counts.operations[operation.index] = weight
            } else {
                path.append(Self.end)
            }
            var node = tally.tree[path] ?? Counts()
            node.add(counts)
            tally.tree[path] = node.isEmpty ? nil : node
            if path.last == Self.end { break }
        }
    }

    public func merge(_ other: consuming Tally, into tally: inout Tally) {
        tally.sessions += other.sessions
        tally.anchored += other.anchored
        let ids = other.table.screens.map { tally.table.id($0) }
        func mapped(_ id: Int32) -> Int32 { id == Self.end ? id : ids[Int(id)] }
        for (id, counts) in other.screens {
            var sum = tally.screens[mapped(id)] ?? Counts()
            sum.add(counts)
            tally.screens[mapped(id)] = sum.isEmpty ? nil : sum
        }
        for (key, counts) in other.transitions {
            let from = mapped(Int32(bitPattern: UInt32(key >> 32)))
            let to = mapped(Int32(bitPattern: UInt32(key & 0xFFFF_FFFF)))
            let newKey = UInt64(UInt32(bitPattern: from)) << 32 | UInt64(UInt32(bitPattern: to))
            var sum = tally.transitions[newKey] ?? Counts()
            sum.add(counts)
            tally.transitions[newKey] = sum.isEmpty ? nil : sum
        }
        for (id, count) in other.entries { FunnelAnalysis.Counts.add(count, at: mapped(id), in: &tally.entries) }
        for (id, count) in other.exits { FunnelAnalysis.Counts.add(count, at: mapped(id), in: &tally.exits) }
        for (path, counts) in other.tree {
            let key = path.map(mapped)
            var sum = tally.tree[key] ?? Counts()
            sum.add(counts)
            tally.tree[key] = sum.isEmpty ? nil : sum
        }
    }
}

/// Screens by number: each distinct screen once, so that counts are keyed by small integers.
struct ScreenTable: Sendable {
    private(set) var screens: [Screen] = []
    private var ids: [Screen: Int32] = [:]

    mutating func id(_ screen: Screen) -> Int32 {
        if let id = ids[screen] { return id }
        let id = Int32(screens.count)
        screens.append(screen)
        ids[screen] = id
        return id
    }

    subscript(id: Int32) -> Screen { screens[Int(id)] }
}

extension JourneyOperation {
    /// The operation's position in `allCases`: its counter in a list of counts.
    var index: Int {
        switch self {
        case .start: 0
        case .restore: 1
        case .push: 2
        case .pop: 3
        case .popTo: 4
        case .replace: 5
        case .insert: 6
        case .remove: 7
        case .tab: 8
        case .flow: 9
        case .modalPresent: 10
        case .modalDismiss: 11
        case .command: 12
        case .deepLink: 13
        case .none: 14
        }
    }
}
