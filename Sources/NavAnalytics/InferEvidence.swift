/// What a session shows about the model it was written under, one fact at a time: `infer`
/// counts the sessions that show each one.
public enum Clue: Hashable, Sendable, Comparable {
    /// A flow named by an event or a snapshot.
    case flow(String)
    /// A stack used (operated on, shown by a `screen_view`, filled by a snapshot) while the flow
    /// was this one (`nil`: the session's initial flow, not named yet).
    case stackInFlow(stack: String, flow: String?)
    /// A stack used while no modal was presented.
    case stackBare(String)
    /// Uses of a stack while modals were presented (counted per use, not per session)…
    case stackUses(String)
    /// …and among them, those while this modal was presented.
    case stackUsesWith(stack: String, modal: String)
    /// A tab selected (or left) while the flow was this one.
    case tab(tab: String, flow: String?)
    /// A tab named by a snapshot.
    case tabName(String)
    case route(stack: String, route: String)
    /// A route that entered the stack with `route_params`.
    case routeParams(String)
    case modal(modal: String, flow: String?)
    case modalStyle(modal: String, style: String)
    case command(String)
    /// The flow a `command_applied` names as its target.
    case commandTarget(command: String, flow: String)
    /// The session started without a snapshot in this flow (the first `from_flow` it names).
    case initialFlow(String)
    /// …with this tab selected (the first `from_tab` it names).
    case initialTab(String)
    /// …showing this stack first.
    case initialStack(String)
    /// Groups of a command (per group, not per session), and what they left behind.
    case commandGroups(String)
    case commandEndedIn(command: String, flow: String)
    case commandEndedOnTab(command: String, tab: String)
    /// Groups that left no modal presented, and those that dismissed one to get there.
    case commandDismissed(String)
    case commandDismissedSome(String)
    /// Groups in which the stack was empty at some point after the `command_applied`, and
    /// those in which the group emptied it.
    case commandEmptied(command: String, stack: String)
    case commandReset(command: String, stack: String)
    /// Groups that changed the tab to the one they ended on.
    case commandChangedTab(String)
    /// A route standing twice in its stack (by the stack's identity).
    case duplicate(stack: String, route: String)
    /// A route entering a stack while the route stood in it, without standing twice: a
    /// session where a second copy could have been seen and was not.
    case singletonChance(stack: String, route: String)
    /// A pop of more routes than its stack held.
    case clampedPop(String)
    /// A `route_pop_to` whose target stood more than once in its stack.
    case ambiguousPopTo(String)

    public static func < (lhs: Clue, rhs: Clue) -> Bool { String(describing: lhs) < String(describing: rhs) }
}

/// How many sessions (or groups, or uses) show a clue, and the first few of them by id.
public struct Support: Sendable, Equatable {
    public var count = 0
    /// At most `Support.examples` session ids, smallest first.
    public var sessions: [String] = []
    public static let examples = 3

    public init(count: Int = 0, sessions: [String] = []) {
        self.count = count
        self.sessions = sessions
    }

    mutating func add(_ session: String, weight: Int, times: Int = 1) {
        count += weight * times
        if weight > 0 {
            guard !sessions.contains(session) else { return }
            if sessions.count < Support.examples {
                sessions.append(session)
                sessions.sort()
            } else if let last = sessions.last, session < last {
                sessions[sessions.count - 1] = session
                sessions.sort()
            }
        } else {
            sessions.removeAll { $0 == session }
        }
    }

    mutating func merge(_ other: Support) {
        count += other.count
        sessions = Array(Set(sessions + other.sessions).sorted().prefix(Support.examples))
    }
}

/// Clues with their support: the additive tally of an inference pass.
public struct Evidence: Sendable, Equatable {
    public var clues: [Clue: Support] = [:]
    /// Sessions seen.
    public var sessions = 0

    public init() {}

    public subscript(_ clue: Clue) -> Int { clues[clue]?.count ?? 0 }

    /// One session's clues: each counted once, or `times` for counted clues.
    mutating func add(session: String, clues found: [Clue: Int], weight: Int) {
        sessions += weight
        for (clue, times) in found {
            clues[clue, default: Support()].add(session, weight: weight, times: times)
            if clues[clue]?.count == 0 { clues[clue] = nil }
        }
    }

    mutating func merge(_ other: Evidence) {
        sessions += other.sessions
        for (clue, support) in other.clues {
            clues[clue, default: Support()].merge(support)
            if clues[clue]?.count == 0 { clues[clue] = nil }
        }
    }

    /// The clues matching a pattern, sorted (as `Clue.<` sorts them: by description, each made
    /// once here; sorting every clue and comparing descriptions made again on each comparison
    /// was most of `infer`'s time between its passes).
    func all<T>(_ pick: (Clue) -> T?) -> [(T, Support)] {
        clues.compactMap { clue, support in pick(clue).map { (key: String(describing: clue), value: $0, support: support) } }
            .sorted { $0.key < $1.key }.map { ($0.value, $0.support) }
    }
}
