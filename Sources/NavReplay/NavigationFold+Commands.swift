import NavEvents
import NavJSON
import NavModel

/// Correlation groups and `command_applied`: a group's commands are checked at its end
/// (`command.postcondition`), with the positions a flow switch of the group binds
/// (`route.position`), through their checks in `Rules/`.
extension NavigationFold {
    /// What is open in one correlation group while its events arrive.
    struct GroupTracker: Sendable {
        var authorizesFlowSwitch = false
        var resetStacks: Set<String> = []
        var pendingCommands: [PendingCommand] = []
        /// The reset stacks of `pendingCommands` not yet seen empty, by stack: each event looks
        /// at these stacks, not at every command (a group of thousands of commands looked at each
        /// of them at every event: quadratic).
        var resetsAwaitingEmpty: [String: [ResetSlot]] = [:]
        var pendingLinks: [PendingLink] = []
        /// The links of `pendingLinks` (their indices, ascending) with a step still to land, by
        /// the kind of event that lands it: an event looks at the links it can advance, not at
        /// every link (a group of thousands of links looked at each of them at every push).
        var linksAwaiting: [StepKey: [Int]] = [:]
        /// Every command the group's `command_applied` events name, declared or not.
        var appliedCommands: [String] = []
        /// The group's last flow switch, the state before the group's first one and the stacks
        /// at the last one: flow-bound positions are checked at the group's end.
        var flowSwitch: FlowSwitch?
        var contentIdentities = ContentIdentities()

        /// Marks the reset stacks that are empty now, or were emptied at some moment of the event
        /// just applied, as seen empty, and stops watching them.
        mutating func noteEmptyResets(in state: FoldState, _ table: StackTable, emptied: [String]) {
            var seenEmpty: [String] = []
            for stack in resetsAwaitingEmpty.keys
            where state.depth(of: stack, in: table) == 0 || emptied.contains(stack) {
                seenEmpty.append(stack)
            }
            for stack in seenEmpty {
                for slot in resetsAwaitingEmpty.removeValue(forKey: stack) ?? [] {
                    pendingCommands[slot.command].resetSeenEmpty[slot.position] = true
                }
            }
        }
    }

    /// One reset stack of a pending command: `pendingCommands[command].spec.reset[position]`.
    struct ResetSlot: Sendable {
        var command: Int
        var position: Int
    }

    /// A flow switch whose group must leave the new flow's positions satisfied.
    struct FlowSwitch: Sendable {
        var event: EventReference
        var sessionID: String
        /// The state before the group's first flow switch, with `keepsStates`.
        var stateBefore: CondensedState?
        /// Each stack's routes at the last switch, up to its last position bound to flows (the
        /// routes above are never compared): a whole copy of a deep stack per open group grew
        /// with depth x groups.
        var stacksAtSwitch: [[Symbol]]
    }

    struct PendingCommand: Sendable {
        var name: String
        var spec: CommandSpec
        var event: EventReference
        var sessionID: String
        /// With `keepsStates`: the state at the command, for its finding's explanation.
        var stateAtCommand: CondensedState?
        /// Whether each of `spec.reset` has been seen empty.
        var resetSeenEmpty: [Bool]
        /// The depth of each of `spec.reset` at the command: the routes a reset removes (a
        /// re-synchronisation after a gap removes them when the group did not).
        var resetDepths: [Int] = []
    }

    mutating func applyCommand(
        _ command: String, fromFlow: String, toFlow: String, event: NavigationEvent, reference: EventReference
    ) {
        latestGroup.authorizesFlowSwitch = true
        latestGroup.appliedCommands.append(command)
        let spec = CommandUnknown.check(command, model: model)
        if spec == nil { report(CommandUnknown.violation(command)) }
        checkFlow(claimed: fromFlow, field: "from_flow")
        if let violation = FlowUnknown.check(toFlow, in: .command, model: model) { report(violation) }
        if let spec {
            if let violation = StateMismatch.check(command: command, goesTo: spec.flow, claimed: toFlow) { report(violation) }
            latestGroup.resetStacks.formUnion(spec.reset)
            for (position, stack) in spec.reset.enumerated() {
                latestGroup.resetsAwaitingEmpty[stack, default: []].append(
                    ResetSlot(command: latestGroup.pendingCommands.count, position: position))
            }
            latestGroup.pendingCommands.append(
                PendingCommand(
                    name: command, spec: spec, event: reference, sessionID: event.sessionID,
                    stateAtCommand: heldState(), resetSeenEmpty: Array(repeating: false, count: spec.reset.count),
                    resetDepths: spec.reset.map { depth(of: $0) }))
        }
    }

    // MARK: Groups

    /// Makes `latestGroup` the group of the event being applied: taken out of `openGroups`, or new.
    mutating func selectGroup(_ correlationID: String) {
        if latestGroupID == correlationID { return }
        parkLatestGroup()
        if !openGroups.isEmpty, let group = openGroups.removeValue(forKey: correlationID) {
            if !group.resetsAwaitingEmpty.isEmpty { groupsWithCommands.remove(correlationID) }
            latestGroup = group
        }
        latestGroupID = correlationID
    }

    mutating func takeLatestGroup() -> GroupTracker {
        var group = GroupTracker()
        swap(&group, &latestGroup)
        return group
    }

    /// Moves the latest group into `openGroups`.
    mutating func parkLatestGroup() {
        guard let id = latestGroupID else { return }
        latestGroupID = nil
        let group = takeLatestGroup()
        if !group.resetsAwaitingEmpty.isEmpty { groupsWithCommands.insert(id) }
        openGroups[id] = group
    }

    /// Ends a correlation group: checks each of its commands' postconditions (docs/events-and-rules.md).
    ///
    /// Offline, the auditor calls it after the group's highest `seq`; a live router calls it
    /// when it has emitted everything for one action.
    public mutating func endGroup(_ correlationID: String) -> [Finding] {
        let group: GroupTracker
        if latestGroupID == correlationID {
            latestGroupID = nil
            if latestGroup.pendingCommands.isEmpty && latestGroup.pendingLinks.isEmpty && latestGroup.flowSwitch == nil {
                latestGroup = GroupTracker()  // nothing to check: most groups
                return []
            }
            group = takeLatestGroup()
        } else {
            guard !openGroups.isEmpty, let parked = openGroups.removeValue(forKey: correlationID) else { return [] }
            groupsWithCommands.remove(correlationID)
            group = parked
        }
        // Each finding with the state it judges from (at its command, link or flow switch).
        var findings: [(finding: Finding, before: CondensedState?)] = commandFindings(of: group, correlationID: correlationID)
        let failed = group.pendingCommands.filter { command in findings.contains { $0.finding.eventID == command.event.eventID } }
        if let flowSwitch = group.flowSwitch {
            findings += checkFlowBoundPositions(after: flowSwitch, correlationID: correlationID)
        }
        findings += linkFindings(of: group, correlationID: correlationID)
        defer {
            // After a gap, what the group's commands claim is adopted; without one yet, it may
            // still come at the next event (the group's lost events were its last ones).
            if resynchronising { adoptPostconditions(of: failed) } else { failedAtLastGroupEnd = failed }
        }
        guard keepsStates, findings.contains(where: { $0.before != nil }) else { return findings.map(\.finding) }
        let stateAtEnd = CondensedState(state)
        return findings.map { finding, before in
            var finding = finding
            if let before { finding.explain(StateExplanation(before: before, after: stateAtEnd)) }
            return finding
        }
    }

    /// The postconditions of a group's commands that do not hold at its end (docs/events-and-rules.md).
    func commandFindings(of group: GroupTracker, correlationID: String) -> [(finding: Finding, before: CondensedState?)] {
        var findings: [(finding: Finding, before: CondensedState?)] = []
        // The closure captures these, not `self`: capturing the fold copies it whole (a retain and
        // a release of each of its fields) at every group with a command.
        let (state, table, names) = (working, stacks, symbols)
        for command in group.pendingCommands {
            let notReset = zip(command.spec.reset, command.resetSeenEmpty).filter { !$0.1 }.map(\.0)
            guard
                let violation = CommandPostcondition.check(
                    command: command.name, spec: command.spec, flow: working.flow, tab: working.tab, modals: working.modals,
                    notReset: notReset, correlationID: correlationID, routes: { state.routeNames(of: $0, in: table, names) })
            else { continue }
            findings.append(
                (finding(violation, at: command.event, sessionID: command.sessionID, .commandApplied), command.stateAtCommand))
        }
        return findings
    }

    /// At the end of a group that switched the flow: the routes of the stacks the new flow owns
    /// that stood at their place at the switch and still do, against the positions bound to
    /// flows (`positions[].flows`), reported at the group's last flow switch. A route that entered
    /// after the switch was checked as it entered; positions that hold in every flow were checked
    /// as the routes entered.
    func checkFlowBoundPositions(after flowSwitch: FlowSwitch, correlationID: String) -> [(finding: Finding, before: CondensedState?)] {
        var findings: [(finding: Finding, before: CondensedState?)] = []
        for stack in flowSpec?.ownedStacks ?? [] {
            guard let number = stacks.number(of: stack) else { continue }
            guard !stacks.specs[number].positions.isEmpty else { continue }
            let routes = symbols.names(working.routes[number])
            let atSwitch = flowSwitch.stacksAtSwitch[number]
            for requirement in RoutePosition.check(stack: routes, spec: stacks.specs[number], flow: working.flow, flowBoundOnly: true) {
                let route = routes[requirement.index]
                guard requirement.index < atSwitch.count, atSwitch[requirement.index] == working.routes[number][requirement.index]
                else { continue }
                let violation = RoutePosition.violation(
                    afterSwitch: requirement, route: route, stack: stack, flow: working.flow, correlationID: correlationID)
                findings.append(
                    (finding(violation, at: flowSwitch.event, sessionID: flowSwitch.sessionID, .flowSwitch), flowSwitch.stateBefore))
            }
        }
        return findings
    }

    /// Each stack's routes up to its last position bound to flows: what
    /// `checkFlowBoundPositions` compares at a group's end.
    func routesAtSwitch() -> [[Symbol]] {
        working.routes.indices.map { number in
            let bound = stacks.specs[number].positions.lazy.filter { $0.flows != nil }.map { $0.index + 1 }.max() ?? 0
            return Array(working.routes[number].prefix(bound))
        }
    }

    /// Ends every open group (at the end of a session), in correlation id order.
    public mutating func endAllGroups() -> [Finding] {
        parkLatestGroup()
        return openGroups.keys.sorted().flatMap { endGroup($0) }
    }

    /// Marks, for every pending command, the reset stacks that are empty now or were emptied at
    /// some moment of the event just applied (an adoption may empty a stack, then a push fills it).
    mutating func noteEmptyStacksForPendingCommands() {
        if latestGroupID != nil, !latestGroup.resetsAwaitingEmpty.isEmpty {
            latestGroup.noteEmptyResets(in: working, stacks, emptied: emptiedDuringEvent)
        }
        guard !groupsWithCommands.isEmpty else { return }
        var settled: [String] = []
        for key in groupsWithCommands {
            openGroups[key]?.noteEmptyResets(in: working, stacks, emptied: emptiedDuringEvent)
            if openGroups[key]?.resetsAwaitingEmpty.isEmpty ?? true { settled.append(key) }
        }
        for key in settled { groupsWithCommands.remove(key) }
    }
}
