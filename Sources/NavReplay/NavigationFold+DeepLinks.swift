import NavEvents
import NavJSON
import NavModel

/// `deep_link`: a resolved link (or a fallback) must apply its model command and land its steps
/// in order in its correlation group, judged at the group's end (`command.postcondition`).
extension NavigationFold {
    /// What an event must be to land a deep link step: a tab switch to its tab, a push of its route
    /// on its stack (or a pop back to it: a singleton is opened once), a present of its modal.
    enum StepKey: Hashable, Sendable {
        case tab(String)
        case route(stack: String, route: String)
        case modal(String)

        init(_ step: DeepLinkStep) {
            switch step {
            case .selectTab(let tab): self = .tab(tab)
            case .push(let stack, let route): self = .route(stack: stack, route: route)
            case .present(let modal, _): self = .modal(modal)
            }
        }

        /// The step an event can land, if any: other events pass the group's links by.
        init?(_ payload: NavigationEvent.Payload) {
            switch payload {
            case .tabSwitch(_, let to): self = .tab(to)
            case .routePush(let stack, _, let to, _): self = .route(stack: stack, route: to)
            case .routePopTo(let stack, _, let to?): self = .route(stack: stack, route: to)
            case .modalPresent(let modal, _): self = .modal(modal)
            default: return nil
            }
        }
    }

    /// A deep link whose model command must be applied, and steps land in order, in its group:
    /// a resolved link that matches a pattern, or a fallback (`link` is then the model's
    /// `fallback_command`, with no pattern and no steps).
    struct PendingLink: Sendable {
        var url: String
        var link: DeepLink
        var isFallback = false
        var event: EventReference
        var sessionID: String
        /// With `keepsStates`: the state at the link, for its finding's explanation.
        var stateAtLink: CondensedState?
        /// What lands each of `link.steps`.
        var stepKeys: [StepKey] = []
        /// The next step to land.
        var cursor = 0
        /// Steps that landed, in the order they did.
        var landed: [Int] = []
        /// Steps passed over without holding: they may still land, late.
        var skipped: Set<Int> = []
        /// What went wrong, for the finding.
        var problems: [String] = []

        /// Whether an event of `key` can still land one of its steps (late, or at or after the next).
        func awaits(_ key: StepKey) -> Bool {
            skipped.contains { stepKeys[$0] == key } || stepKeys[cursor...].contains(key)
        }
    }

    mutating func applyDeepLink(_ url: String, outcome: DeepLinkOutcome, event: NavigationEvent, reference: EventReference) {
        latestGroup.authorizesFlowSwitch = true
        // A deep link maps to a command plus its route payload (the steps); an
        // unsupported one falls back to the safe root (`fallback_command`). A resolved URL no
        // pattern matches is not checked (the model's table may be incomplete).
        if outcome == .resolved, let segments = DeepLinkURL(url)?.segments,
            let (link, _) = model.deepLinks.match(segments), !link.steps.isEmpty || link.command != nil
        {
            let stepKeys = link.steps.map(StepKey.init)
            for key in Set(stepKeys) {
                latestGroup.linksAwaiting[key, default: []].append(latestGroup.pendingLinks.count)
            }
            latestGroup.pendingLinks.append(
                PendingLink(
                    url: url, link: link, event: reference, sessionID: event.sessionID, stateAtLink: heldState(),
                    stepKeys: stepKeys))
        } else if outcome == .fallback, let fallback = model.deepLinks.fallbackCommand {
            latestGroup.pendingLinks.append(
                PendingLink(
                    url: url, link: DeepLink(pattern: "", command: fallback, steps: []), isFallback: true, event: reference,
                    sessionID: event.sessionID, stateAtLink: heldState()))
        }
    }

    /// Whether a step's effect already holds, so that it needs no event.
    func isSatisfied(_ step: DeepLinkStep) -> Bool {
        switch step {
        case .selectTab(let tab): working.tab == tab
        case .push(let stack, let route): top(of: stack) == route
        case .present(let modal, _): working.modals.contains(modal)
        }
    }

    /// Lands the steps an event carries out (a model-language extension, from the modular tabs
    /// system: a deep link's steps land in the declared order). An event that carries out a step at
    /// or after the next one lands it; the steps it skips must already hold. Other events of the
    /// group (the command's resets, dismissals, flow and tab switches) are not steps and are passed
    /// over.
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
                    "step \(hit + 1) (\(CommandPostcondition.describe(steps[hit]))) landed before step \(skipped + 1) "
                        + "(\(CommandPostcondition.describe(steps[skipped])))")
            }
        }
        link.landed.append(hit)
        link.cursor = hit + 1
    }

    /// At a group's end: its deep links that did not apply their command or land their steps.
    func linkFindings(of group: GroupTracker, correlationID: String) -> [(finding: Finding, before: CondensedState?)] {
        guard !group.pendingLinks.isEmpty else { return [] }
        // The group's commands, listed once for all its links (a group may hold thousands of each).
        let appliedSet = Set(group.appliedCommands)
        let applied = ListedNames(group.appliedCommands)
        let appliedText = group.appliedCommands.isEmpty ? "none" : applied.shown.map(JSONWriter.quoted).joined(separator: ", ")
        var findings: [(finding: Finding, before: CondensedState?)] = []
        for var link in group.pendingLinks {
            // Steps that never landed as events must hold at the end (already there).
            for index in link.cursor..<link.link.steps.count {
                if isSatisfied(link.link.steps[index]) {
                    link.landed.append(index)
                } else {
                    link.problems.append("step \(index + 1) (\(CommandPostcondition.describe(link.link.steps[index]))) never landed")
                }
            }
            guard
                let violation = CommandPostcondition.check(
                    deepLink: link.url, link: link.link, isFallback: link.isFallback, landed: link.landed, problems: link.problems,
                    applied: applied, appliedSet: appliedSet, appliedText: appliedText, correlationID: correlationID)
            else { continue }
            findings.append((finding(violation, at: link.event, sessionID: link.sessionID, .deepLink), link.stateAtLink))
        }
        return findings
    }
}
