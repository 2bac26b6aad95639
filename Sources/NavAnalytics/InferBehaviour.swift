public import NavModel
public import NavReplay
import NavEvents

/// The second pass of `infer`: each session folded with the skeleton, read with the state after
/// every event (the parts it needs, through the cursor): what each command's correlation group left behind, which routes stood twice in
/// their stack and which could have and did not, pops beyond a stack's depth, and returns to a
/// route that stood twice.
public struct InferBehaviour: SessionAnalysis {
    public let model: NavigationModel

    public init(model: NavigationModel) { self.model = model }

    public func makeTally() -> Evidence { Evidence() }

    public func merge(_ other: consuming Evidence, into tally: inout Evidence) { tally.merge(other) }

    public func add(_ audit: SessionAudit, weight: Int, to tally: inout Evidence) throws {
        var walk = Walk(model: model)
        try audit.forEachStep { step, cursor in walk.step(step, cursor) }
        walk.closeGroup()
        tally.add(session: audit.sessionID, clues: walk.clues, weight: weight)
    }

    /// A command's correlation group in progress: the state at its `command_applied`, as far as
    /// what the group leaves behind is judged against it.
    struct OpenCommand {
        var name: String
        var tabBefore: String?
        var modalsBefore: Bool
        /// The model's stacks empty at the `command_applied`…
        var emptyBefore: Set<String>
        /// …and those empty at some step of the group since.
        var emptied: Set<String>
    }

    /// Reads each step's state through the cursor, a part at a time: rebuilding every stack's
    /// names after every event was most of this pass.
    struct Walk {
        let model: NavigationModel
        var clues: [Clue: Int] = [:]
        var group: String?
        var open: [OpenCommand] = []
        /// What the group's last step left: its flow, tab, and whether modals were presented.
        var last: (flow: String, tab: String?, modals: Bool)?
        /// Whether a step came before the current one.
        var stepped = false
        /// The `route_params` of each stack's routes, beside the fold's names.
        var params: [String: [RouteParams?]] = [:]

        init(model: NavigationModel) { self.model = model }

        mutating func count(_ clue: Clue) { clues[clue, default: 0] += 1 }
        mutating func once(_ clue: Clue) { clues[clue] = 1 }

        func emptyStacks(_ cursor: StepStates.Cursor) -> Set<String> {
            Set(model.stackNames.filter { cursor.depth(of: $0) == 0 })
        }

        mutating func closeGroup() {
            guard let state = last else { return }
            for command in open {
                let name = command.name
                count(.commandGroups(name))
                count(.commandEndedIn(command: name, flow: state.flow))
                if let tab = state.tab { count(.commandEndedOnTab(command: name, tab: tab)) }
                if command.tabBefore != state.tab { count(.commandChangedTab(name)) }
                if !state.modals {
                    count(.commandDismissed(name))
                    if command.modalsBefore { count(.commandDismissedSome(name)) }
                }
                for stack in command.emptied {
                    count(.commandEmptied(command: name, stack: stack))
                    if !command.emptyBefore.contains(stack) { count(.commandReset(command: name, stack: stack)) }
                }
            }
            open = []
        }

        mutating func step(_ step: ReplayStep, _ cursor: StepStates.Cursor) {
            let event = step.event
            if event.correlationID != group {
                closeGroup()
                group = event.correlationID
            }
            last = (cursor.currentFlow, cursor.currentTab, cursor.modalCount > 0)
            var empty: Set<String>?
            if !open.isEmpty {
                let now = emptyStacks(cursor)
                empty = now
                for index in open.indices { open[index].emptied.formUnion(now) }
            }
            switch event.payload {
            case .commandApplied(let command, _, _):
                let now = empty ?? emptyStacks(cursor)
                open.append(
                    OpenCommand(
                        name: command, tabBefore: cursor.currentTab, modalsBefore: cursor.modalCount > 0, emptyBefore: now, emptied: now))
            case .routePop(let stack, _, _, .count):
                if step.findings.contains(where: { $0.rule == .stackOutOfRange }) { once(.clampedPop(stack)) }
            case .routePopTo(let stack, _, let route?):
                if stepped, let before = cursor.routesBefore(of: stack), before.filter({ $0 == route }).count > 1 {
                    once(.ambiguousPopTo(stack))
                }
                once(.singletonChance(stack: stack, route: route))
            default:
                break
            }
            track(event.payload, cursor)
            stepped = true
        }

        /// Keeps each stack's parameters beside its names, and notes routes standing twice
        /// (by the stack's identity) or entering beside one of their name.
        mutating func track(_ payload: NavigationEvent.Payload, _ cursor: StepStates.Cursor) {
            var entered: (stack: String, route: String, index: Int)?
            if case .sessionStart = payload { params = [:] }
            cursor.forEachStackDepth { stack, depth in
                // A stack the event leaves alone keeps its parameters, at its depth.
                var target: String?
                switch payload {
                case .routePush(let name, _, _, _), .routeReplace(let name, _, _, _), .routeInsert(let name, _, _, _): target = name
                default: break
                }
                guard target == stack || (params[stack]?.count ?? 0) != depth else { return }
                var list = params.removeValue(forKey: stack) ?? []
                switch payload {
                case .routePush(stack, _, let route, let value):
                    list.append(value)
                    entered = (stack, route, depth - 1)
                case .routeReplace(stack, _, let route, let value):
                    if list.isEmpty { list.append(value) } else { list[list.count - 1] = value }
                    entered = (stack, route, depth - 1)
                case .routeInsert(stack, let route, let index, let value):
                    let at = min(max(Int(index), 0), list.count)
                    list.insert(value, at: at)
                    entered = (stack, route, at)
                default:
                    break
                }
                if list.count > depth { list.removeLast(list.count - depth) }
                while list.count < depth { list.append(nil) }
                params[stack] = list
            }
            guard let entered, let names = cursor.routes(of: entered.stack), entered.index < names.count else { return }
            let byValue = model.stacks[entered.stack]?.identity == .value
            let list = params[entered.stack] ?? []
            var seen: Set<String> = []
            var twice: Set<String> = []
            for (index, route) in names.enumerated() {
                let key = byValue ? route + "\u{0}" + String(describing: list[index]) : route
                if !seen.insert(key).inserted { twice.insert(route) }
            }
            for route in twice { once(.duplicate(stack: entered.stack, route: route)) }
            for route in Set(names) where !twice.contains(route) && names.count > 1 {
                once(.singletonChance(stack: entered.stack, route: route))
            }
        }
    }
}

extension InferBehaviour {
    /// The skeleton with what the second pass supports: commands' postconditions (each part
    /// that every group of the command met, and at least one group brought about), singletons
    /// (routes never standing twice, with `minSupport` sessions where they could have), and
    /// clamped pops.
    public static func refine(
        _ skeleton: DraftModel, with evidence: Evidence, minSupport: Int, keeping base: DraftModel? = nil
    ) -> DraftModel {
        var draft = skeleton
        for name in draft.commands.keys.sorted() where base?.commands[name] == nil {
            let groups = evidence[.commandGroups(name)]
            guard groups > 0, var spec = draft.commands[name] else { continue }
            let ends = evidence.all { if case .commandEndedIn(name, let flow) = $0 { flow } else { nil } }
            if let flow = InferStructure.mostSupported(ends), draft.flows[flow] != nil { spec.flow = flow }
            let tabs = evidence.all { if case .commandEndedOnTab(name, let tab) = $0 { tab } else { nil } }
            if tabs.count == 1, let (tab, support) = tabs.first, support.count == groups, evidence[.commandChangedTab(name)] > 0,
                draft.flows[spec.flow]?.tabs?.contains(tab) ?? true
            {
                spec.tab = tab
            }
            spec.dismissModals = evidence[.commandDismissed(name)] == groups && evidence[.commandDismissedSome(name)] > 0
            // A modal's own stack empties with its modal: a dismissal, not a reset.
            let ownStacks = Set(draft.modals.values.compactMap(\.stack))
            spec.reset = draft.stacks.keys.sorted().filter { !ownStacks.contains($0) }.filter {
                evidence[.commandEmptied(command: name, stack: $0)] == groups && evidence[.commandReset(command: name, stack: $0)] > 0
            }
            draft.commands[name] = spec
        }
        for stack in draft.stacks.keys.sorted() {
            guard var spec = draft.stacks[stack] else { continue }
            for route in spec.routes ?? [] where evidence[.duplicate(stack: stack, route: route)] == 0 && base?.stacks[stack] == nil {
                if evidence[.singletonChance(stack: stack, route: route)] >= max(minSupport, 2) { spec.singletons.insert(route) }
            }
            if evidence[.clampedPop(stack)] > 0 { spec.clampedPops = true }
            draft.stacks[stack] = spec
        }
        return draft
    }
}
