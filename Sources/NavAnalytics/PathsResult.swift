public import NavModel

/// What `navreplay paths` shows: a tally's rows, sorted.
public struct PathsResult: Sendable, Equatable {
    public struct ScreenRow: Sendable, Equatable {
        public var screen: Screen
        public var sessions: Int
        public var views: Int
    }

    public struct TransitionRow: Sendable, Equatable {
        public var from: Screen
        public var to: Screen
        public var sessions: Int
        public var count: Int
        /// The operations that caused it, in `JourneyOperation.allCases` order, none zero; they
        /// add up to `count`.
        public var operations: [(operation: JourneyOperation, count: Int)]

        public static func == (a: Self, b: Self) -> Bool {
            (a.from, a.to, a.sessions, a.count) == (b.from, b.to, b.sessions, b.count)
                && a.operations.map(\.operation) == b.operations.map(\.operation) && a.operations.map(\.count) == b.operations.map(\.count)
        }
    }

    /// A node of a `--from`/`--to` tree: a screen (`nil`: the session has no screen further
    /// out, or further in), the sessions whose path passes it, by the operation of the
    /// transition between it and its parent, and its children, which add up to it.
    public struct Node: Sendable, Equatable {
        public var screen: Screen?
        public var sessions: Int
        public var operations: [JourneyOperation: Int]
        public var children: [Node]
    }

    public struct Tree: Sendable, Equatable {
        public var anchor: PathsAnalysis.Anchor
        /// Sessions that reached the anchor: the root, which its children add up to.
        public var sessions: Int
        public var children: [Node]
    }

    public var sessions: Int
    /// By views, most first, then by label.
    public var screens: [ScreenRow]
    /// By count, most first, then by the labels.
    public var transitions: [TransitionRow]
    public var tree: Tree?
    /// Sessions by where they entered (the first screen after the initial one: the first view
    /// whose screen differs from the session's first view's; a session that never leaves its
    /// first screen enters there) and by their last screen; most first, then by label. Not in
    /// `json()`: the report shows them.
    public var entries: [(screen: Screen, sessions: Int)]
    public var exits: [(screen: Screen, sessions: Int)]

    public static func == (a: Self, b: Self) -> Bool {
        (a.sessions, a.screens, a.transitions, a.tree) == (b.sessions, b.screens, b.transitions, b.tree)
            && a.entries.map(\.screen) == b.entries.map(\.screen) && a.entries.map(\.sessions) == b.entries.map(\.sessions)
            && a.exits.map(\.screen) == b.exits.map(\.screen) && a.exits.map(\.sessions) == b.exits.map(\.sessions)
    }

    public init(_ tally: PathsAnalysis.Tally, anchor: PathsAnalysis.Anchor?) {
        sessions = tally.sessions
        let table = tally.table
        screens = tally.screens.map { ScreenRow(screen: table[$0.key], sessions: $0.value.sessions, views: $0.value.count) }
            .sorted { ($1.views, $0.screen.label) < ($0.views, $1.screen.label) }
        transitions = tally.transitions.map { key, counts in
            TransitionRow(
                from: table[Int32(bitPattern: UInt32(key >> 32))], to: table[Int32(bitPattern: UInt32(key & 0xFFFF_FFFF))],
                sessions: counts.sessions, count: counts.count, operations: counts.operationList)
        }
        .sorted { ($1.count, $0.from.label, $0.to.label) < ($0.count, $1.from.label, $1.to.label) }
        func ranked(_ counts: [Int32: Int]) -> [(screen: Screen, sessions: Int)] {
            counts.map { (table[$0.key], $0.value) }.sorted { ($1.sessions, $0.screen.label) < ($0.sessions, $1.screen.label) }
        }
        entries = ranked(tally.entries)
        exits = ranked(tally.exits)
        if let anchor {
            var byParent: [[Int32]: [(Int32, PathsAnalysis.Counts)]] = [:]
            for (path, counts) in tally.tree { byParent[Array(path.dropLast()), default: []].append((path.last!, counts)) }
            let children = Self.children(of: [], byParent, table: tally.table)
            tree = Tree(anchor: anchor, sessions: tally.anchored, children: children)
        }
    }

    /// The nodes under `path`, most sessions first, then by label (the end last among equals).
    private static func children(
        of path: [Int32], _ byParent: [[Int32]: [(Int32, PathsAnalysis.Counts)]], table: ScreenTable
    ) -> [Node] {
        (byParent[path] ?? []).map { id, counts in
            Node(
                screen: id == PathsAnalysis.end ? nil : table[id], sessions: counts.sessions,
                operations: Dictionary(uniqueKeysWithValues: counts.operationList.map { ($0.operation, $0.count) }),
                children: id == PathsAnalysis.end ? [] : children(of: path + [id], byParent, table: table))
        }
        .sorted { ($1.sessions, $0.screen?.label ?? "\u{10FFFF}") < ($0.sessions, $1.screen?.label ?? "\u{10FFFF}") }
    }
}

extension PathsAnalysis.Counts {
    var operationList: [(operation: JourneyOperation, count: Int)] {
        JourneyOperation.allCases.compactMap { operations[$0.index] == 0 ? nil : ($0, operations[$0.index]) }
    }
}

extension Screen {
    /// A screen as the command line names it: `STACK/ROUTE`, `STACK/(root)`, or `modal:NAME`
    /// (the `label` form); `nil` for any other text.
    public init?(label: String) {
        if label.hasPrefix("modal:") {
            let name = String(label.dropFirst(6))
            guard !name.isEmpty else { return nil }
            self = .modal(name)
            return
        }
        guard let slash = label.firstIndex(of: "/") else { return nil }
        let stack = String(label[..<slash])
        let route = String(label[label.index(after: slash)...])
        guard !stack.isEmpty, !route.isEmpty else { return nil }
        self = .stack(stack, route: route == "(root)" ? nil : route)
    }
}
