import NavEvents
import NavJSON
import NavModel

/// `flow_switch` and `tab_switch`: the rules of flows and tabs, through their checks in `Rules/`.
extension NavigationFold {
    mutating func setFlow(_ flow: String) {
        working.flow = flow
        flowSpec = model.flows[flow]
    }

    /// Checks a claimed current flow; on a mismatch, adopts it.
    mutating func checkFlow(claimed: String, field: String) {
        guard
            let violation = StateMismatch.check(
                claimedFlow: claimed, field: field, flow: working.flow, event: isApplying ? currentEvent.name.rawValue : "event")
        else { return }
        report(violation)
        setFlow(claimed)
    }

    mutating func applyFlowSwitch(from: String, to: String, event: NavigationEvent, reference: EventReference) {
        if let violation = FlowWithoutCommand.check(
            from: from, to: to, authorized: latestGroup.authorizesFlowSwitch, correlationID: event.correlationID)
        {
            report(violation)
        }
        checkFlow(claimed: from, field: "from_flow")
        if let violation = FlowUnknown.check(to, in: .flowSwitch, model: model) { report(violation) }
        latestGroup.flowSwitch = FlowSwitch(
            event: reference, sessionID: event.sessionID,
            stateBefore: latestGroup.flowSwitch?.stateBefore ?? heldStateBefore(), stacksAtSwitch: routesAtSwitch())
        setFlow(to)
        flowWitness = reference
    }

    mutating func applyTabSwitch(from: String?, to: String, reference: EventReference) {
        if let violation = StateMismatch.check(claimedTab: from, tab: working.tab) {
            report(violation)
            working.tab = from
        }
        if let problem = TabInvalid.check(switchingTo: to, flowSpec: flowSpec) {
            report(TabInvalid.violation(problem, switchingTo: to, flow: working.flow))
            if resynchronising { adoptFlow(ofTab: to, reference: reference) }
        }
        working.tab = to
        tabWitness = reference
    }
}
