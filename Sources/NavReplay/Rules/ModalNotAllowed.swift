public import NavJSON
public import NavEvents
public import NavModel

extension RuleDescription {
    static let modalNotAllowed = RuleDescription(
        id: "modal.not_allowed", severity: .error,
        summary: "A modal presented where the model does not allow it.",
        explanation:
            "The model says in which flows each modal may appear, in which styles, and how many modals a flow may show at once. A modal outside those limits (or one the model does not declare) was presented; it is applied.",
        likelyCauses: [
            "a modal presented from a screen of another flow, or after a flow switch it should not survive",
            "a new modal, or a model file older than the app",
            "a second modal stacked where the flow allows one",
        ],
        triggeringExamples: [
            ExampleLog.log(
                [ExampleLog.start()] + ExampleLog.login(at: 1)
                    + [ExampleLog.event(3, "modal_present", #""modal":"paywall","style":"sheet""#)]),
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "modal_present", #""modal":"promo","style":"sheet""#)),
        ],
        nonTriggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "modal_present", #""modal":"paywall","style":"sheet""#))
        ])
}

/// `modal.not_allowed`'s checks: where and how the model lets a modal be presented.
public enum ModalNotAllowed {
    /// Why a modal may not be presented.
    public enum Problem: Sendable, Hashable {
        /// The model does not declare the modal.
        case undeclared
        /// The flow is not one of the modal's `flows`.
        case notInFlow(allowed: [String])
        /// The style is not one of the modal's `styles`.
        case style(allowed: [String])
        /// The flow's `max_modals` are already presented.
        case tooMany(limit: Int)
        /// A presentation key of model language 1.1 forbids it.
        case presentation(NavigationModel.PresentationProblem)
    }

    /// At a `modal_present` of a modal not presented yet (`modal.already_presented` comes
    /// first), over `presented` (bottom first) in `flow` with `tab` selected; `top` gives a
    /// stack's top route, for the presentation keys of model language 1.1.
    public static func check(
        presenting modal: String, style: ModalStyle, flow: String, tab: String?, presented: [String],
        model: NavigationModel, top: (String) -> String?
    ) -> Problem? {
        guard let spec = model.modals[modal] else { return .undeclared }
        if !spec.isAllowed(in: flow) { return .notInFlow(allowed: spec.flows ?? []) }
        if !spec.allowsStyle(style.rawValue) { return .style(allowed: spec.styles ?? []) }
        if let limit = model.flows[flow]?.maxModals, presented.count >= limit { return .tooMany(limit: limit) }
        guard spec.from != nil || spec.routes != nil else { return nil }
        return model.presentationProblem(of: modal, flow: flow, tab: tab, presented: presented, top: top)
            .map(Problem.presentation)
    }

    /// A `session_start` snapshot's modal, listed after `presented` others, in the snapshot's
    /// flow. A snapshot has no styles and no presentation order: those are not checked.
    public static func check(restoring modal: String, flow: String, presented: Int, model: NavigationModel) -> Problem? {
        guard let spec = model.modals[modal] else { return .undeclared }
        if !spec.isAllowed(in: flow) { return .notInFlow(allowed: spec.flows ?? []) }
        if let limit = model.flows[flow]?.maxModals, presented >= limit { return .tooMany(limit: limit) }
        return nil
    }

    /// The finding of `check(presenting:…)`'s problem; `visible`: the visible screen.
    public static func violation(
        _ problem: Problem, presenting modal: String, style: ModalStyle, flow: String, presented: [String], visible: Screen?
    ) -> Violation {
        let name = Phrase.quoted(modal)
        switch problem {
        case .undeclared:
            return Violation(.modalNotAllowed, "modal \(name) is not declared in the model", found: .string(modal))
        case .notInFlow(let allowed):
            let listed = ListedNames(allowed)
            return Violation(
                .modalNotAllowed,
                "modal \(name) is not allowed in flow \(Phrase.quoted(flow)) (allowed in: \(listed.joined(separator: ", ")))",
                expected: listed.json, found: .string(flow), setBy: .flow)
        case .style(let allowed):
            let listed = ListedNames(allowed)
            return Violation(
                .modalNotAllowed,
                "modal \(name) is presented as \(style.rawValue); the model allows " + listed.joined(separator: ", "),
                expected: listed.json, found: .string(style.rawValue))
        case .tooMany(let limit):
            return Violation(
                .modalNotAllowed,
                "flow \(Phrase.quoted(flow)) allows at most \(limit) modal(s) at once; "
                    + "\(presented.count) already presented (\(ListedNames(presented).joined(separator: ", ")))",
                expected: .number(String(limit)), found: .number(String(presented.count + 1)),
                setBy: presented.last.map(Violation.Setter.modal) ?? .none)
        case .presentation(let problem):
            return violation(problem, presenting: modal, flow: flow, visible: visible)
        }
    }

    private static func violation(
        _ problem: NavigationModel.PresentationProblem, presenting modal: String, flow: String, visible: Screen?
    ) -> Violation {
        let name = Phrase.quoted(modal)
        switch problem {
        case .contextNotShown(let from):
            let listed = ListedNames(from)
            return Violation(
                .modalNotAllowed,
                "modal \(name) is presented from the context of \(listed.joined(separator: ", ")), and none of these stacks is shown",
                expected: listed.json, found: visible.map { .string($0.label) } ?? .null, setBy: .flow)
        case .contextShowsModal(let context, let shown):
            return Violation(
                .modalNotAllowed,
                "modal \(name) is presented from the context of \(Phrase.quoted(context)), which already "
                    + "shows modal \(Phrase.quoted(shown)): flow \(Phrase.quoted(flow)) presents one sheet or cover "
                    + "per context, and the app ignores a second one",
                expected: .null, found: .string(shown), setBy: .modal(shown))
        case .notOnRoute(let route, let stack, let routes):
            let listed = ListedNames(routes)
            return Violation(
                .modalNotAllowed,
                "modal \(name) overlays only \(listed.joined(separator: ", ")); "
                    + "\(stack.map { "stack \(Phrase.quoted($0)) shows \(Phrase.top(route))" } ?? "no stack is shown")",
                expected: listed.json, found: .optionalString(route), setBy: stack.map(Violation.Setter.stack) ?? .none)
        }
    }

    /// The finding of `check(restoring:…)`'s problem.
    public static func violation(_ problem: Problem, restoring modal: String, flow: String, presented: Int) -> Violation {
        switch problem {
        case .undeclared:
            Violation(.modalNotAllowed, "the snapshot's modal \(Phrase.quoted(modal)) is not declared in the model", found: .string(modal))
        case .notInFlow, .style, .presentation:
            Violation(
                .modalNotAllowed, "the snapshot's modal \(Phrase.quoted(modal)) is not allowed in flow \(Phrase.quoted(flow))",
                found: .string(modal))
        case .tooMany(let limit):
            Violation(
                .modalNotAllowed, "the snapshot presents more than \(limit) modal(s) in flow \(Phrase.quoted(flow))",
                expected: .number(String(limit)), found: .number(String(presented + 1)))
        }
    }

    /// After a stack operation on `stack`: the presented modals bound to routes
    /// (`modals.<name>.routes`) that cover it and no longer stand over one of their routes (a
    /// page's widgets go with the page). `top` gives a stack's top route.
    public static func modalsOffTheirRoutes(
        covering stack: String, flow: String, tab: String?, presented: [String], model: NavigationModel,
        top: (String) -> String?
    ) -> [(modal: String, route: String?)] {
        var off: [(modal: String, route: String?)] = []
        for (modal, covered, route) in model.modalsOffTheirRoutes(flow: flow, tab: tab, presented: presented, top: top)
        where covered == stack {
            off.append((modal, route))
        }
        return off
    }

    /// The finding of a modal that `modalsOffTheirRoutes` returns.
    public static func violation(offRoutes modal: String, stack: String, route: String?, model: NavigationModel) -> Violation {
        let listed = ListedNames(model.modals[modal]?.routes ?? [])
        return Violation(
            .modalNotAllowed,
            "modal \(Phrase.quoted(modal)) stays presented while stack \(Phrase.quoted(stack)) shows "
                + "\(Phrase.top(route)); it overlays only \(listed.joined(separator: ", ")) and goes with its page",
            expected: listed.json, found: .optionalString(route), setBy: .modal(modal))
    }
}
