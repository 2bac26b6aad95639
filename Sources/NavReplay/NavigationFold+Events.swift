import NavEvents
import NavJSON
import NavModel

/// The events that are not stack operations, one method each, as `apply` dispatches them.
extension NavigationFold {
    mutating func applyFlowSwitch(from: String, to: String, event: NavigationEvent, reference: EventReference) {
        if !latestGroup.authorizesFlowSwitch {
            report(
                .flowWithoutCommand,
                "flow_switch \(JSONWriter.quoted(from)) → \(JSONWriter.quoted(to)) has no command_applied or "
                    + "deep_link before it in its correlation group (\(JSONWriter.quoted(event.correlationID)))")
        }
        checkFlow(claimed: from, field: "from_flow")
        if model.flows[to] == nil {
            report(
                .flowUnknown, "flow_switch to \(JSONWriter.quoted(to)), a flow the model does not declare",
                found: .string(to))
        }
        latestGroup.flowSwitch = FlowSwitch(
            event: reference, sessionID: event.sessionID,
            stateBefore: latestGroup.flowSwitch?.stateBefore ?? heldStateBefore(), stacksAtSwitch: routesAtSwitch())
        setFlow(to)
        flowWitness = reference
    }

    mutating func applyTabSwitch(from: String?, to: String, reference: EventReference) {
        if from != working.tab {
            report(
                .stateMismatch,
                "tab_switch claims from_tab \(describe(from)) but the selected tab is \(describe(working.tab))",
                expected: .optionalString(working.tab), found: .optionalString(from), witness: tabWitness)
            working.tab = from
        }
        if let tabs = flowSpec?.tabs {
            if !tabs.contains(to) {
                let listed = ListedNames(tabs)
                report(
                    .tabInvalid,
                    "flow \(JSONWriter.quoted(working.flow)) has no tab \(JSONWriter.quoted(to)) "
                        + "(its tabs: \(listed.joined(separator: ", ")))",
                    expected: listed.json, found: .string(to))
            }
        } else {
            report(
                .tabInvalid, "tab_switch to \(JSONWriter.quoted(to)) in flow \(JSONWriter.quoted(working.flow)), which has no tabs",
                found: .string(to), witness: flowWitness)
        }
        working.tab = to
        tabWitness = reference
    }

    mutating func applyCommand(
        _ command: String, fromFlow: String, toFlow: String, event: NavigationEvent, reference: EventReference
    ) {
        latestGroup.authorizesFlowSwitch = true
        latestGroup.appliedCommands.append(command)
        let spec = model.commands[command]
        if spec == nil {
            report(.commandUnknown, "command \(JSONWriter.quoted(command)) is not declared in the model", found: .string(command))
        }
        checkFlow(claimed: fromFlow, field: "from_flow")
        if model.flows[toFlow] == nil {
            report(
                .flowUnknown, "command_applied names to_flow \(JSONWriter.quoted(toFlow)), a flow the model does not declare",
                found: .string(toFlow))
        }
        if let spec {
            if spec.flow != toFlow {
                report(
                    .stateMismatch,
                    "command \(JSONWriter.quoted(command)) goes to flow \(JSONWriter.quoted(spec.flow)) in the model, "
                        + "but the event claims to_flow \(JSONWriter.quoted(toFlow))",
                    expected: .string(spec.flow), found: .string(toFlow))
            }
            latestGroup.resetStacks.formUnion(spec.reset)
            for (position, stack) in spec.reset.enumerated() {
                latestGroup.resetsAwaitingEmpty[stack, default: []].append(
                    ResetSlot(command: latestGroup.pendingCommands.count, position: position))
            }
            latestGroup.pendingCommands.append(
                PendingCommand(
                    name: command, spec: spec, event: reference, sessionID: event.sessionID,
                    stateAtCommand: heldState(), resetSeenEmpty: Array(repeating: false, count: spec.reset.count)))
        }
    }

    mutating func applyPresent(_ modal: String, style: ModalStyle, reference: EventReference) {
        if working.modals.contains(modal) {
            report(
                .modalAlreadyPresented, "modal \(JSONWriter.quoted(modal)) is already presented; it is not added twice",
                witness: modalWitness[modal])
        } else {
            if model.modals[modal] == nil {
                report(.modalNotAllowed, "modal \(JSONWriter.quoted(modal)) is not declared in the model", found: .string(modal))
            } else if let spec = model.modals[modal], !spec.isAllowed(in: working.flow) {
                let listed = ListedNames(spec.flows ?? [])
                report(
                    .modalNotAllowed,
                    "modal \(JSONWriter.quoted(modal)) is not allowed in flow \(JSONWriter.quoted(working.flow))"
                        + " (allowed in: \(listed.joined(separator: ", ")))",
                    expected: listed.json, found: .string(working.flow),
                    witness: flowWitness)
            } else if let spec = model.modals[modal], !spec.allowsStyle(style.rawValue) {
                let listed = ListedNames(spec.styles ?? [])
                report(
                    .modalNotAllowed,
                    "modal \(JSONWriter.quoted(modal)) is presented as \(style.rawValue); the model allows "
                        + listed.joined(separator: ", "),
                    expected: listed.json, found: .string(style.rawValue))
            } else if let limit = flowSpec?.maxModals, working.modals.count >= limit {
                report(
                    .modalNotAllowed,
                    "flow \(JSONWriter.quoted(working.flow)) allows at most \(limit) modal(s) at once; "
                        + "\(working.modals.count) already presented (\(ListedNames(working.modals).joined(separator: ", ")))",
                    expected: .number(String(limit)), found: .number(String(working.modals.count + 1)),
                    witness: working.modals.last.flatMap { modalWitness[$0] })
            } else if usesPresentationKeys {
                checkPresentation(of: modal)
            }
            working.modals.append(modal)
            modalWitness[modal] = reference
            // A modal's own stack starts at its root each time it is presented.
            if let stack = model.modals[modal]?.stack, depth(of: stack) > 0 {
                empty(stack, reference: reference)
            }
        }
    }

    mutating func applyDismiss(_ modal: String, reference: EventReference) {
        if let index = working.modals.lastIndex(of: modal) {
            for removed in working.modals[index...] { modalWitness[removed] = reference }
            closeStacks(of: Array(working.modals[index...]), reference: reference)
            working.modals.removeSubrange(index...)
        } else {
            let listed = ListedNames(working.modals)
            report(
                .modalNotPresented,
                "modal_dismiss of \(JSONWriter.quoted(modal)), which is not presented (presented: "
                    + "\(working.modals.isEmpty ? "none" : listed.joined(separator: ", ")))",
                expected: listed.json, found: .string(modal),
                witness: modalWitness[modal])
        }
    }

    mutating func applyDeepLink(_ url: String, outcome: DeepLinkOutcome, event: NavigationEvent, reference: EventReference) {
        latestGroup.authorizesFlowSwitch = true
        // Seed 001 §7.11: a link maps to a command plus its route payload (the steps); an
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
}
