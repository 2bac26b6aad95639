public import NavReplay
import NavEvents
import NavModel

/// The first pass of `infer`: the names each session's events give (flows, tabs, stacks and
/// their routes, modals, commands), and where each was used, read from the events alone with a
/// light state of flow, tab and modals. The session's initial flow, before an event names it, is
/// `nil`, and is settled once the session names it.
public struct InferNames: SessionAnalysis {
    public init() {}

    public var readsStates: Bool { false }

    public func makeTally() -> Evidence { Evidence() }

    public func merge(_ other: consuming Evidence, into tally: inout Evidence) { tally.merge(other) }

    public func add(_ audit: SessionAudit, weight: Int, to tally: inout Evidence) throws {
        var walk = Walk()
        try audit.forEachOutlinedStep { step, _ in walk.step(step.event) }
        walk.settle()
        tally.add(session: audit.sessionID, clues: walk.clues, weight: weight)
    }

    struct Walk {
        var clues: [Clue: Int] = [:]
        var flow: String?
        var modals: [String] = []
        var started = false
        /// Without a snapshot: the initial flow not named yet, the first view not seen yet.
        var unnamedStart = false
        var firstView = true
        var tabNamed = false
        var noSnapshot = false

        /// Uses are counted one by one; every other clue once a session.
        mutating func note(_ clue: Clue, _ times: Int = 1) {
            switch clue {
            case .stackInFlow, .stackUses, .stackUsesWith: clues[clue, default: 0] += times
            default: clues[clue] = 1
            }
        }

        /// Inside a command's or deep link's group, before its flow switch: a stack operated on
        /// there is the command's reset, not the current flow's own.
        var commandGroup: String?

        mutating func use(_ stack: String) {
            if commandGroup == nil { note(.stackInFlow(stack: stack, flow: flow)) }
            if modals.isEmpty {
                note(.stackBare(stack))
            } else {
                note(.stackUses(stack))
                for modal in Set(modals) { note(.stackUsesWith(stack: stack, modal: modal)) }
            }
        }

        mutating func enter(_ stack: String, _ route: String, _ params: RouteParams?) {
            use(stack)
            note(.route(stack: stack, route: route))
            if let params, !params.isEmpty { note(.routeParams(stack)) }
        }

        /// The flow the session is leaving: the initial one, if not named yet.
        mutating func leave(_ from: String) {
            note(.flow(from))
            if flow == nil, unnamedStart {
                note(.initialFlow(from))
                // Clues of the initial flow so far belong to this flow.
                for (clue, times) in clues {
                    switch clue {
                    case .stackInFlow(let stack, nil): move(clue, .stackInFlow(stack: stack, flow: from), times)
                    case .tab(let tab, nil): move(clue, .tab(tab: tab, flow: from), times)
                    case .modal(let modal, nil): move(clue, .modal(modal: modal, flow: from), times)
                    default: break
                    }
                }
                unnamedStart = false
            }
        }

        mutating func move(_ old: Clue, _ new: Clue, _ times: Int) {
            clues[old] = nil
            clues[new, default: 0] += times
        }

        mutating func step(_ event: NavigationEvent) {
            if event.correlationID != commandGroup { commandGroup = nil }
            switch event.payload {
            case .commandApplied, .deepLink: commandGroup = event.correlationID
            case .flowSwitch: commandGroup = nil
            default: break
            }
            if case .screenView = event.payload {} else { firstView = false }
            switch event.payload {
            case .sessionStart(let snapshot):
                started = true
                firstView = true
                if let snapshot {
                    flow = snapshot.flow
                    note(.flow(snapshot.flow))
                    modals = snapshot.modals
                    unnamedStart = false
                    noSnapshot = false
                    if let tab = snapshot.tab { note(.tabName(tab)) }
                    for modal in snapshot.modals { note(.modal(modal: modal, flow: flow)) }
                    for (stack, routes) in snapshot.stacks where !routes.isEmpty {
                        for route in routes { note(.route(stack: stack, route: route)) }
                    }
                } else {
                    flow = nil
                    modals = []
                    unnamedStart = true
                    noSnapshot = true
                    tabNamed = false
                }
            case .routePush(let stack, _, let to, let params), .routeReplace(let stack, _, let to, let params):
                enter(stack, to, params)
            case .routeInsert(let stack, let route, _, let params):
                enter(stack, route, params)
            case .routePop(let stack, _, _, _), .routePopTo(let stack, _, _), .routeRemove(let stack, _):
                use(stack)
            case .flowSwitch(let from, let to):
                leave(from)
                flow = to
                note(.flow(to))
            case .commandApplied(let command, let from, let to):
                leave(from)
                note(.flow(to))
                note(.command(command))
                note(.commandTarget(command: command, flow: to))
            case .tabSwitch(let from, let to):
                if let from {
                    note(.tab(tab: from, flow: flow))
                    if noSnapshot, !tabNamed { note(.initialTab(from)) }
                }
                tabNamed = true
                note(.tab(tab: to, flow: flow))
            case .modalPresent(let modal, let style):
                note(.modal(modal: modal, flow: flow))
                note(.modalStyle(modal: modal, style: style.rawValue))
                if !modals.contains(modal) { modals.append(modal) }
            case .modalDismiss(let modal):
                if let index = modals.firstIndex(of: modal) { modals.removeSubrange(index...) }
            case .screenView(let claim, _):
                if case .stack(let stack, _) = claim {
                    if firstView, unnamedStart { note(.initialStack(stack)) }
                    use(stack)
                }
                firstView = false
            case .deepLink:
                break
            }
        }

        /// The session ends: what it left unnamed stays `nil`, settled across sessions.
        mutating func settle() {}
    }
}
