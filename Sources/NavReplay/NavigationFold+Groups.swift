import NavEvents
import NavJSON
import NavModel

extension NavigationFold {
    /// At the end of a group that switched the flow: the routes of the stacks the new flow owns
    /// that stood at their place at the switch and still do, against the positions bound to
    /// flows (`positions[].flows`), reported at the group's last flow switch. A route that entered
    /// after the switch was checked as it entered; positions that hold in every flow were checked
    /// as the routes entered.
    func checkFlowBoundPositions(after flowSwitch: FlowSwitch, correlationID: String) -> [(finding: Finding, before: CondensedState?)] {
        var findings: [(finding: Finding, before: CondensedState?)] = []
        for stack in flowSpec?.ownedStacks ?? [] {
            guard let number = stacks.number(of: stack) else { continue }
            let spec = stacks.specs[number]
            let routes = working.routes[number]
            for requirement in spec.positions where requirement.flows != nil && requirement.index < routes.count {
                let route = routes[requirement.index]
                guard !requirement.allows(route, at: requirement.index, in: working.flow) else { continue }
                let atSwitch = flowSwitch.stacksAtSwitch[number]
                guard requirement.index < atSwitch.count, atSwitch[requirement.index] == route else { continue }
                let oneOf = ListedNames(requirement.oneOf)
                let required = requirement.oneOf.isEmpty ? "no route there" : "one of \(oneOf.joined(separator: ", ")) there"
                let finding = Finding(
                    rule: .routePosition, sessionID: flowSwitch.sessionID, seq: flowSwitch.event.seq,
                    eventID: flowSwitch.event.eventID, location: flowSwitch.event.location,
                    message: "after the switch to flow \(JSONWriter.quoted(working.flow)) (correlation group "
                        + "\(JSONWriter.quoted(correlationID))), stack \(JSONWriter.quoted(stack)) still holds "
                        + "\(JSONWriter.quoted(route)) at index \(requirement.index); the model requires \(required) in that flow",
                    expected: oneOf.json, found: .string(route),
                    witness: stackWitness[number], eventName: .flowSwitch)
                findings.append((finding, flowSwitch.stateBefore))
            }
        }
        return findings
    }

    /// Each stack's routes up to its last position bound to flows: what
    /// `checkFlowBoundPositions` compares at a group's end.
    func routesAtSwitch() -> [[String]] {
        working.routes.indices.map { number in
            let bound = stacks.specs[number].positions.lazy.filter { $0.flows != nil }.map { $0.index + 1 }.max() ?? 0
            return Array(working.routes[number].prefix(bound))
        }
    }

    // MARK: Deep link steps

    /// Whether a step's effect already holds, so that it needs no event.
    func isSatisfied(_ step: DeepLinkStep) -> Bool {
        switch step {
        case .selectTab(let tab): working.tab == tab
        case .push(let stack, let route): top(of: stack) == route
        case .present(let modal, _): working.modals.contains(modal)
        }
    }

    func describe(_ step: DeepLinkStep) -> String {
        switch step {
        case .selectTab(let tab): "tab \(tab)"
        case .push(let stack, let route): "push \(stack)/\(route)"
        case .present(let modal, let style): "present \(modal) (\(style))"
        }
    }

    /// Lands the steps an event carries out (CONTRACT extension, seed 002: a deep link's steps
    /// land in the declared order). An event that carries out a step at or after the next one
    /// lands it; the steps it skips must already hold. Other events of the group (the command's
    /// resets, dismissals, flow and tab switches) are not steps and are passed over.
    func advance(_ link: inout PendingLink, on key: StepKey) {
        let steps = link.link.steps
        if let late = link.skipped.sorted().first(where: { link.stepKeys[$0] == key }) {
            link.skipped.remove(late)
            link.landed.append(late)
            return
        }
        guard link.cursor < steps.count, let hit = (link.cursor..<steps.count).first(where: { link.stepKeys[$0] == key })
        else { return }
        for skipped in link.cursor..<hit {
            if isSatisfied(steps[skipped]) {
                link.landed.append(skipped)
            } else {
                link.skipped.insert(skipped)
                link.problems.append(
                    "step \(hit + 1) (\(describe(steps[hit]))) landed before step \(skipped + 1) (\(describe(steps[skipped])))")
            }
        }
        link.landed.append(hit)
        link.cursor = hit + 1
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

    // MARK: Reporting

    mutating func report(
        _ rule: Rule, _ message: String, expected: JSONValue? = nil, found: JSONValue? = nil,
        witness: EventReference? = nil
    ) {
        guard isApplying else { return }
        captureStateBefore()
        pending.append(
            Finding(
                rule: rule, sessionID: currentSessionID, seq: currentEvent.seq, eventID: currentEvent.eventID,
                location: currentEvent.location, message: message, expected: expected, found: found, witness: witness,
                eventName: currentEvent.name))
    }
}
