public import NavEvents
public import NavReplay

extension Journey {
    /// The journey of a session folded with its steps (`SessionAuditOptions.recordSteps`, best
    /// with `outlineSteps`: a journey reads no more of each state than its outline).
    ///
    /// Throws only what walking the steps again from disk throws (a session too large to hold,
    /// `SessionAudit.forEachStep`). A session folded without steps has no views and no flows.
    public init(_ audit: SessionAudit) throws {
        self.init(
            sessionID: audit.sessionID, start: audit.start?.epochMilliseconds, end: audit.end?.epochMilliseconds, events: audit.events)
        for finding in audit.findings { findingsByRule[finding.rule, default: 0] += 1 }
        for (rule, count) in audit.droppedFindings { findingsByRule[rule, default: 0] += count }
        var walk = Walk()
        try audit.forEachOutlinedStep { step, outline in walk.step(step.event, outline: outline, into: &self) }
    }

    /// The state a walk carries from one step to the next: the correlation group in progress.
    private struct Walk {
        var group: String?
        var operation: JourneyOperation?
        var command: String?
        var sawStart = false

        mutating func step(_ event: NavigationEvent, outline: StepOutline, into journey: inout Journey) {
            if event.correlationID != group {
                group = event.correlationID
                operation = nil
                command = nil
            }
            // One switch over the payload: each `if case` on it copied it.
            switch event.payload {
            case .sessionStart:
                if !sawStart {
                    sawStart = true
                    journey.appVersion = event.appVersion
                    if event.platform != nil { journey.platform = event.platform }
                }
                if operation == nil { operation = JourneyOperation(of: event.payload) }
            case .commandApplied(let name, _, _):
                if command == nil { command = name }
                if operation == nil { operation = .command }
            case .screenView(let claim, _):
                journey.views.append(
                    JourneyView(
                        screen: claim.screen, seq: event.seq, time: event.timestamp.epochMilliseconds,
                        operation: operation ?? .none, command: command, flow: outline.flow, tab: outline.tab,
                        modals: outline.modals))
            default:
                if operation == nil { operation = JourneyOperation(of: event.payload) }
            }
            if journey.platform == nil { journey.platform = event.platform }
            if journey.flows.last != outline.flow { journey.flows.append(outline.flow) }
            journey.deepestStack = max(journey.deepestStack, outline.deepestStack)
        }
    }
}

extension JourneyOperation {
    /// The operation of a state-changing event; `nil` for a `screen_view`, which changes nothing.
    public init?(of payload: NavigationEvent.Payload) {
        switch payload {
        case .sessionStart(let snapshot): self = snapshot == nil ? .start : .restore
        case .routePush: self = .push
        case .routePop: self = .pop
        case .routePopTo: self = .popTo
        case .routeReplace: self = .replace
        case .routeInsert: self = .insert
        case .routeRemove: self = .remove
        case .flowSwitch: self = .flow
        case .tabSwitch: self = .tab
        case .commandApplied: self = .command
        case .modalPresent: self = .modalPresent
        case .modalDismiss: self = .modalDismiss
        case .deepLink: self = .deepLink
        case .screenView: return nil
        }
    }
}
