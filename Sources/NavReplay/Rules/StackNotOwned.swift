import NavJSON
public import NavEvents
public import NavModel

extension RuleDescription {
    static let stackNotOwned = RuleDescription(
        id: "stack.not_owned", severity: .error,
        summary: "A stack operation on a stack the current flow does not own.",
        explanation:
            "Only the active flow (or a presented modal with its own stack) may change a stack; the model says which flow owns which stack. The operation is applied to the stack all the same, so that the rest of the session folds as written.",
        likelyCauses: [
            "a stale coordinator still receiving actions after a flow switch",
            "a screen of one flow that pushes onto another flow's stack",
        ],
        triggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "route_push", #""stack":"tab1","from_route":null,"to_route":"list""#))
        ],
        nonTriggeringExamples: [
            ExampleLog.log(
                [ExampleLog.start()] + ExampleLog.login(at: 1)
                    + [ExampleLog.event(3, "route_push", #""stack":"tab1","from_route":null,"to_route":"list""#)])
        ])
}

/// `stack.not_owned`'s checks: who may change a stack.
public enum StackNotOwned {
    /// Why a stack may not be changed now.
    public enum Problem: Sendable, Hashable {
        /// The stack is a modal's own, and the modal is not presented.
        case modalNotPresented(String)
        /// The current flow does not own the stack; `owner`: the first flow that does.
        case notOwned(owner: String?)
        /// In a flow that presents by context, the stack's context shows this modal: it does not pop.
        case covered(by: String)
    }

    /// Whether stack `number` (`stack`) may be changed in `flow` (`flowSpec`, its spec) with
    /// `presented` modals: a modal's own stack while its modal is presented, else a stack the
    /// flow owns. `exempt`: a `to_root` pop of a stack that a command of the group resets.
    public static func check(
        _ stack: String, number: Int, flowSpec: FlowSpec?, presented: [String], model: NavigationModel, exempt: Bool = false
    ) -> Problem? {
        if let modal = model.stackTable.owningModals[number] {
            return presented.contains(modal) ? nil : .modalNotPresented(modal)
        }
        if owns(flowSpec, stack) || exempt { return nil }
        return .notOwned(owner: model.owningFlow(of: stack))
    }

    /// Whether a flow owns a stack: its own stack, or one of its tabs'.
    public static func owns(_ flowSpec: FlowSpec?, _ stack: String) -> Bool {
        guard let flowSpec else { return false }
        switch flowSpec.kind {
        case .stack(let own): return own == stack
        case .tabs(let tabs): return tabs.contains(stack)
        }
    }

    /// A pop (`route_pop` with a count, `route_pop_to` of a route; a pop to the root still
    /// clears) of a stack whose context shows a modal, in a flow (`flowSpec`) that presents by
    /// context: the app's coordinator does not pop then.
    public static func check(
        popping stack: String, flow: String, flowSpec: FlowSpec?, presented: [String], model: NavigationModel
    ) -> Problem? {
        guard flowSpec?.presentation == .contexts, !presented.isEmpty else { return nil }
        return model.modalCovering(stack, flow: flow, presented: presented).map(Problem.covered)
    }

    /// The finding of an operation's problem.
    public static func violation(
        _ problem: Problem, operation: EventName, stack: String, flow: String, presented: [String]
    ) -> Violation {
        let what = "\(operation.rawValue) on stack \(Phrase.quoted(stack))"
        switch problem {
        case .modalNotPresented(let modal):
            return Violation(
                .stackNotOwned,
                "\(what) of modal \(Phrase.quoted(modal)), which is not presented (presented: \(Phrase.listOrNone(presented)))",
                expected: .string(modal), found: ListedNames(presented).json, setBy: .modal(modal))
        case .notOwned(let owner):
            return Violation(
                .stackNotOwned,
                "\(what) while flow \(Phrase.quoted(flow)) is active"
                    + (owner.map { " (the stack belongs to flow \(Phrase.quoted($0)))" } ?? ""),
                expected: .optionalString(owner), found: .string(flow), setBy: .flow)
        case .covered(let modal):
            return Violation(
                .stackNotOwned,
                "\(what) while its context shows modal \(Phrase.quoted(modal)): in flow \(Phrase.quoted(flow)) "
                    + "a stack does not pop until the modal of its context is dismissed",
                expected: .null, found: .string(modal), setBy: .modal(modal))
        }
    }

    /// A snapshot's stack `number` that holds `routes`: if it is a modal's own, the modal is
    /// among the snapshot's `modals`.
    public static func check(restoring number: Int, routes: [String], modals: [String], model: NavigationModel) -> Problem? {
        guard let modal = model.stackTable.owningModals[number], !routes.isEmpty, !modals.contains(modal) else { return nil }
        return .modalNotPresented(modal)
    }

    /// The finding of a snapshot's problem.
    public static func violation(_ problem: Problem, restoring stack: String, modals: [String]) -> Violation {
        let modal: String
        switch problem {
        case .modalNotPresented(let name), .covered(let name): modal = name
        case .notOwned(let owner): modal = owner ?? ""
        }
        return Violation(
            .stackNotOwned,
            "the snapshot's stack \(Phrase.quoted(stack)) holds routes, but its modal \(Phrase.quoted(modal)) is not presented",
            expected: .string(modal), found: ListedNames(modals).json)
    }
}
