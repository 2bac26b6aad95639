public import NavModel
import NavReplay

/// What a router operation did.
///
/// Every operation of `NavigationRouter` returns one (they are `@discardableResult`): the
/// router never crashes on a request it cannot honour and never writes an event for it.
public enum NavigationResult: Sendable, Hashable {
    /// The state changed; the events were written, under one new correlation id.
    case applied
    /// Nothing to do (popping an empty stack, selecting the selected tab, popping to a route
    /// that is not in the stack): no state change, no event.
    case unchanged
    /// The request would break a rule of the model; no state change, no event.
    case refused(NavigationRefusal)

    /// Whether events were written.
    public var isApplied: Bool { self == .applied }

    /// The reason for a refusal, if it is one.
    public var refusal: NavigationRefusal? {
        if case .refused(let reason) = self { reason } else { nil }
    }
}

/// Why the router refused a request: the rule of the model (docs/events-and-rules.md) that it would break.
///
/// The router checks, before it writes anything, what `navreplay` checks afterwards; a refused
/// request leaves no trace in the log, so a valid app produces a log without findings.
public enum NavigationRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// An operation before `start()` or `restore(from:)`: its events would come before
    /// `session_start` (`session.no_start`).
    case sessionNotStarted
    /// `start()` or `restore(from:)` a second time: a session has one `session_start`. Start a
    /// new router (a new session) instead.
    case sessionAlreadyStarted
    /// No stack was named and the current flow shows none (a tabbed flow with no tab selected).
    case noActiveStack(flow: String)
    /// The model does not declare this stack (`stack.unknown`).
    case unknownStack(String)
    /// The current flow does not own this stack (`stack.not_owned`); cross-flow changes go
    /// through a command.
    case stackNotOwned(stack: String, flow: String)
    /// The model does not declare this route for the stack (`route.unknown`), or the name is
    /// empty.
    case unknownRoute(String, stack: String)
    /// The singleton route is already in the stack (`route.singleton`); use `openOnce`.
    case singletonAlreadyPresent(String, stack: String)
    /// The model requires one of `oneOf` at this index of the stack (`route.position`).
    case positionRequired(route: String, stack: String, index: Int, oneOf: [String])
    /// An insert index outside `0...depth` (`stack.out_of_range`).
    case indexOutOfRange(index: Int, depth: Int)
    /// Route parameters that cannot be written as a valid event: a name given twice, or a
    /// number that is not a JSON number.
    case invalidRouteParams(String)
    /// The model does not declare this flow (`flow.unknown`).
    case unknownFlow(String)
    /// A tab switch in a flow without tabs (`tab.invalid`).
    case flowHasNoTabs(String)
    /// The flow has no such tab (`tab.invalid`).
    case unknownTab(String?, flow: String)
    /// The model does not declare this modal (`modal.not_allowed`).
    case unknownModal(String)
    /// The modal may not be presented in this flow (`modal.not_allowed`).
    case modalNotAllowed(String, flow: String)
    /// The flow allows at most `limit` modals at once (`modal.not_allowed`).
    case tooManyModals(limit: Int, flow: String)
    /// The model does not allow this presentation style for the modal (`modal.not_allowed`).
    case modalStyleNotAllowed(String, style: String)
    /// A smart dismiss or a close with nothing to dismiss: no modal above the context, an empty
    /// stack, and a context that is not presented (the modular tabs system flags it, never logs it).
    case nothingToDismiss
    /// A transaction's body threw an error of its own (its description): nothing was applied.
    case abandoned(String)
    /// A transaction or deep link would write the same event twice in one correlation group
    /// (`analytics.duplicate`); the event's name.
    case repeatedEvent(String)
    /// The modal is already presented (`modal.already_presented`).
    case modalAlreadyPresented(String)
    /// The modal is not presented (`modal.not_presented`).
    case modalNotPresented(String)
    /// The model does not declare this command (`command.unknown`).
    case unknownCommand(String)
    /// A deep link's steps would undo what its command must leave behind
    /// (`command.postcondition`).
    case commandPostcondition(command: String)
    /// A deep link URL that cannot be logged (an empty string).
    case emptyURL
    /// The stack holds at most `maxDepth` routes (`stack.out_of_range`; the registry system's sheet slot
    /// holds one view).
    case stackFull(stack: String, maxDepth: Int)
    /// The stack's context shows `modal`, in a flow that presents by context: the app's
    /// coordinator does not pop (`stack.not_owned`).
    case stackCovered(stack: String, modal: String)
    /// The modal cannot be presented here (`modal.not_allowed`): none of the contexts that
    /// present it is shown, its context already shows a modal, or it does not overlay the route
    /// shown.
    case presentationNotAllowed(modal: String, NavigationModel.PresentationProblem)

    public var description: String {
        switch self {
        case .sessionNotStarted: "the session has not started: call start() or restore(from:) first"
        case .sessionAlreadyStarted: "the session has already started; a new session needs a new router"
        case .noActiveStack(let flow): "flow \"\(flow)\" shows no stack (no tab selected); name the stack"
        case .unknownStack(let stack): "the model declares no stack \"\(stack)\""
        case .stackNotOwned(let stack, let flow):
            "stack \"\(stack)\" is not owned by the current flow \"\(flow)\"; use a command to change flows"
        case .unknownRoute(let route, let stack): "the model declares no route \"\(route)\" for stack \"\(stack)\""
        case .singletonAlreadyPresent(let route, let stack):
            "singleton route \"\(route)\" is already in stack \"\(stack)\"; use openOnce"
        case .positionRequired(let route, let stack, let index, let oneOf):
            "route \"\(route)\" cannot stand at index \(index) of stack \"\(stack)\"; the model requires one of "
                + oneOf.joined(separator: ", ")
        case .indexOutOfRange(let index, let depth): "index \(index) is outside 0...\(depth)"
        case .invalidRouteParams(let reason): "invalid route parameters: \(reason)"
        case .unknownFlow(let flow): "the model declares no flow \"\(flow)\""
        case .flowHasNoTabs(let flow): "flow \"\(flow)\" has no tabs"
        case .unknownTab(let tab, let flow): "flow \"\(flow)\" has no tab \(tab.map { "\"\($0)\"" } ?? "null")"
        case .unknownModal(let modal): "the model declares no modal \"\(modal)\""
        case .modalNotAllowed(let modal, let flow): "modal \"\(modal)\" is not allowed in flow \"\(flow)\""
        case .tooManyModals(let limit, let flow): "flow \"\(flow)\" allows at most \(limit) modal(s) at once"
        case .modalStyleNotAllowed(let modal, let style): "modal \"\(modal)\" may not be presented as \(style)"
        case .nothingToDismiss: "there is nothing to dismiss: no modal above, an empty stack, and nothing presented"
        case .abandoned(let reason): "the transaction was abandoned: \(reason)"
        case .repeatedEvent(let name): "the action would write the same \(name) event twice (one action, one event)"
        case .modalAlreadyPresented(let modal): "modal \"\(modal)\" is already presented"
        case .modalNotPresented(let modal): "modal \"\(modal)\" is not presented"
        case .unknownCommand(let command): "the model declares no command \"\(command)\""
        case .commandPostcondition(let command):
            "the deep link's steps would break what command \"\(command)\" must leave behind"
        case .emptyURL: "the deep link URL is empty"
        case .stackFull(let stack, let maxDepth): "stack \"\(stack)\" holds at most \(maxDepth) route(s)"
        case .stackCovered(let stack, let modal):
            "stack \"\(stack)\" does not pop while its context shows modal \"\(modal)\"; dismiss it first"
        case .presentationNotAllowed(let modal, let problem): Self.describe(modal, problem)
        }
    }
}

extension NavigationRefusal {
    /// The refusal of a `modal.not_allowed` problem (`style`: the style asked for).
    init(_ problem: ModalNotAllowed.Problem, modal: String, style: String, flow: String) {
        switch problem {
        case .undeclared: self = .unknownModal(modal)
        case .notInFlow: self = .modalNotAllowed(modal, flow: flow)
        case .style: self = .modalStyleNotAllowed(modal, style: style)
        case .tooMany(let limit): self = .tooManyModals(limit: limit, flow: flow)
        case .presentation(let problem): self = .presentationNotAllowed(modal: modal, problem)
        }
    }

    static func describe(_ modal: String, _ problem: NavigationModel.PresentationProblem) -> String {
        switch problem {
        case .contextNotShown(let from):
            "modal \"\(modal)\" is presented from \(from.map { "\"\($0)\"" }.joined(separator: ", ")), and none of these is shown"
        case .contextShowsModal(let context, let shown):
            "the context of \"\(context)\" already shows modal \"\(shown)\"; a second one in one context is ignored"
        case .notOnRoute(let route, _, let routes):
            "modal \"\(modal)\" overlays only \(routes.map { "\"\($0)\"" }.joined(separator: ", ")), not "
                + (route.map { "\"\($0)\"" } ?? "the root")
        }
    }
}

/// What `restore(from:)` did with a snapshot.
public enum RestoreResult: Sendable, Hashable {
    /// The snapshot was valid; the session starts from it.
    case restored
    /// The snapshot was invalid (the reason is the first problem found); the session starts
    /// from the model's initial state, the safe root that state restoration falls back to.
    case fellBack(NavigationRefusal)
    /// The session had already started; nothing was written.
    case refused(NavigationRefusal)
}

/// What `open(deepLink:)` did.
public enum DeepLinkResult: Sendable, Hashable {
    /// A pattern matched and its command and steps were applied (`deep_link` outcome `resolved`).
    case resolved
    /// The link fell back to the model's `fallback_command`, if any (`deep_link` outcome
    /// `fallback`).
    case fallback(DeepLinkFallbackReason)
    /// Nothing was written (the session has not started, or the URL is empty).
    case refused(NavigationRefusal)
}

/// Why a deep link fell back.
public enum DeepLinkFallbackReason: Sendable, Hashable {
    /// Not a `scheme://host/path` URL, or a bad percent escape.
    case invalidURL
    /// No pattern of the model's deep link table matches.
    case noMatch
    /// A pattern matched but its command or a step would break a rule.
    case refused(NavigationRefusal)
}

/// The global success screen's primary action, mapped to a cross-flow command or none.
public enum SuccessAction: Sendable, Hashable {
    /// Just close the success screen.
    case dismiss
    /// Close it, then apply this cross-flow command of the model.
    case command(String)
}

/// What the global success screen shows: a title, a message and its primary button.
public struct SuccessPayload: Sendable, Hashable {
    public var title: String
    public var message: String
    public var primaryButton: String
    public var primaryAction: SuccessAction

    public init(title: String, message: String, primaryButton: String, primaryAction: SuccessAction) {
        self.title = title
        self.message = message
        self.primaryButton = primaryButton
        self.primaryAction = primaryAction
    }
}

/// Where a smart dismiss or a close starts (in the modular tabs system, each coordinator dismisses
/// from its own context).
public enum NavigationContext: Sendable, Hashable {
    /// The visible context: the top modal, else the flow's stack.
    case visible
    /// The flow's own stack, under every modal (the root coordinator).
    case base
    /// A presented modal (the coordinator of that sheet or cover).
    case modal(String)
}
