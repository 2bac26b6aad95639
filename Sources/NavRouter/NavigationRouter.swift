public import NavEvents
public import NavModel
public import NavReplay

/// The app-side router of the PoC (its `AppRouter`), generalised by a `NavigationModel`: it
/// holds the navigation state, carries out every navigation operation, and writes each
/// transition as contract v1 events to a sink, at the moment it decides it.
///
/// ```swift
/// let sink = InMemoryEventSink()
/// let router = NavigationRouter(appVersion: "1.4.0", platform: "ios", sink: sink)
/// router.start()                                   // session_start, screen_view
/// router.apply(command: "goAuthorizedTab1Root")    // command_applied, flow_switch, screen_view
/// router.push("detail")                            // route_push, screen_view
/// router.pop(5)                                    // route_pop {count: 5}: clamped to 1
/// ```
///
/// **Isolation.** The router is a plain class, not `Sendable`: create and use it from one
/// isolation domain, typically the main actor of an app (wrap it in an `@MainActor`
/// observable object for SwiftUI). It needs neither SwiftUI nor UIKit nor Foundation.
///
/// **Events.** Each operation is one user action: its events share a fresh `correlation_id`,
/// have consecutive `seq`s and one timestamp, and end with a `screen_view` when the visible
/// screen (the top modal, else the top of the active stack, with its route parameters)
/// changed. Timestamps never go backwards: if the clock steps back, the last time is reused.
///
/// **Refusals.** An operation that would break a rule of the model is refused: it returns
/// `.refused(reason)` and writes nothing. Refused are: an unknown stack, a stack the current
/// flow does not own, a route the stack does not declare (or an empty name), a singleton route
/// already in its stack (use `openOnce`), a route at a position the model forbids, an insert
/// index outside `0...depth`, invalid route parameters, a tab switch in a flow without tabs or
/// to a tab it does not have, a modal that is undeclared, not allowed in the flow, beyond the
/// flow's `max_modals`, already presented or in a style the model does not allow for it, the
/// dismissal of a modal that is not presented, an operation on the own stack of a modal that is
/// not presented, an unknown command, an action that would leave a stack breaking a position
/// of the (new) flow, a transaction or deep link that would write the same event twice, a
/// smart dismiss or close with nothing to dismiss, and anything before
/// `start()`/`restore(from:)`; and, under the keys of model language 1.1, a route beyond its
/// stack's `max_depth`, a pop of a stack whose context shows a modal (`presentation:
/// contexts`), and a modal that is not presented from one of its contexts (`from`), whose
/// context already shows one, or that does not overlay the route shown (`routes`). Requests with nothing
/// to do (popping an empty stack, `pop(0)`, popping to a route not in the stack, selecting the
/// selected tab) return `.unchanged` and write nothing. `pop(n)` with `n` above the depth is
/// not refused: it clamps to the stack's depth and logs `count` as requested, which
/// `navreplay` reports as a `stack.out_of_range` warning unless the stack declares
/// `clamped_pops`. The modals bound to a page (`modals.<name>.routes`) go with it: an operation
/// that takes the page off the top dismisses them first, in the same action.
///
/// **Live checks.** With `liveChecks: true` (meant for debug builds), every event written is
/// also folded by a `NavigationFold`, the rules `navreplay` applies offline; anything it finds
/// is appended to `violations` and passed to `onViolation`. A correct router finds nothing.
public final class NavigationRouter {
    /// The navigation model the router follows.
    public let model: NavigationModel
    /// The session every event belongs to.
    public let sessionID: String
    public let appVersion: String
    public let platform: String?
    /// The modal that shows the global success screen, which any flow can open.
    public let successModal: String
    /// Whether events are folded live (see the type's documentation).
    public let liveChecks: Bool

    /// The current navigation state (docs/events-and-rules.md).
    public private(set) var state: NavigationState
    /// The `seq` the next event gets.
    public private(set) var nextSeq: Int64 = 0
    /// Whether `start()` or `restore(from:)` has written `session_start`.
    public private(set) var isStarted = false
    /// What the global success screen shows while it is presented.
    public private(set) var successPayload: SuccessPayload?
    /// The findings of the live checks, in the order found (empty without `liveChecks`).
    public private(set) var violations: [Finding] = []
    /// Called with each live-check finding as it is found (for example, an `assertionFailure`).
    public var onViolation: ((Finding) -> Void)?

    /// The parameters of each route, parallel to `state.stacks`.
    private var params: [String: [RouteParams?]] = [:]
    private let sink: any NavigationEventSink
    private let clock: () -> Int64
    private let makeID: () -> String
    private var lastMilliseconds: Int64 = .min
    private var fold: NavigationFold?

    /// Creates a router in the model's initial state; call `start()` or `restore(from:)` next.
    ///
    /// - Parameters:
    ///   - model: the app's navigation model; the PoC router's, with its deep links, by default.
    ///   - sessionID: the session id (1-128 characters, no control characters); a new id from
    ///     `makeID` by default.
    ///   - appVersion: written on every event (`session_start` requires it).
    ///   - platform: written on every event when given.
    ///   - sink: where the events go.
    ///   - liveChecks: fold every event live and collect `violations` (debug builds).
    ///   - successModal: the model's modal for the global success screen.
    ///   - clock: milliseconds since the epoch; the wall clock by default.
    ///   - makeID: event and correlation ids; random UUIDs by default.
    public init(
        model: NavigationModel = .pocWithDeepLinks, sessionID: String? = nil, appVersion: String, platform: String? = nil,
        sink: any NavigationEventSink, liveChecks: Bool = false, successModal: String = "success",
        clock: @escaping () -> Int64 = SystemSources.epochMilliseconds,
        makeID: @escaping () -> String = SystemSources.uuid
    ) {
        self.model = model
        self.sessionID = sessionID ?? makeID()
        self.appVersion = appVersion
        self.platform = platform
        self.sink = sink
        self.liveChecks = liveChecks
        self.successModal = successModal
        self.clock = clock
        self.makeID = makeID
        self.state = model.initialState
        if liveChecks { fold = NavigationFold(model: model) }
    }

    // MARK: Reading the state

    /// The stack that operations without a stack name act on: the own stack of the top-most
    /// presented modal that has one (`modals.<name>.stack`), else the current flow's own stack
    /// or the selected tab's.
    public var activeStack: String? {
        model.activeStack(in: state)
    }

    /// The visible screen: the top modal, else the top of the active stack.
    public var visibleScreen: Screen? {
        model.visibleScreen(in: state)
    }

    /// The parameters of each route of a stack, bottom first, parallel to its routes.
    public func routeParams(on stack: String) -> [RouteParams?] {
        draft().routeParams(of: stack)
    }

    /// The state to persist for state restoration; route parameters are not kept.
    public func snapshot() -> NavigationState {
        state
    }

    // MARK: Starting a session

    /// Starts the session from the model's initial state: `session_start`, then `screen_view`.
    @discardableResult
    public func start() -> NavigationResult {
        guard !isStarted else { return .refused(.sessionAlreadyStarted) }
        begin(from: model.initialState, snapshot: nil)
        return .applied
    }

    /// Starts the session from a persisted snapshot (state restoration).
    ///
    /// The snapshot is checked against the model (declared flow, tab, stacks, routes and
    /// modals, singletons once, modals allowed in its flow and within `max_modals`). A valid
    /// one is adopted, completed with the stacks it omits, and written as `session_start`'s
    /// `snapshot`; an invalid one is dropped for the model's initial state (the safe root) and
    /// `session_start` has no snapshot. Either way `screen_view` follows.
    @discardableResult
    public func restore(from snapshot: NavigationState) -> RestoreResult {
        guard !isStarted else { return .refused(.sessionAlreadyStarted) }
        switch TransitionDraft.validate(snapshot, model: model) {
        case .success(let restored):
            begin(from: restored, snapshot: restored)
            return .restored
        case .failure(let reason):
            begin(from: model.initialState, snapshot: nil)
            return .fellBack(reason)
        }
    }

    private func begin(from start: NavigationState, snapshot: NavigationState?) {
        isStarted = true
        state = start
        params = [:]
        successPayload = nil
        var payloads: [NavigationEvent.Payload] = [.sessionStart(snapshot: snapshot)]
        let visible = visible(in: draft())
        if let screenView = visible.screenView { payloads.append(screenView) }
        emit(payloads)
    }

    // MARK: Performing operations

    func draft() -> TransitionDraft {
        TransitionDraft(
            model: model, successModal: successModal, state: state, params: params, success: successPayload)
    }

    /// Runs an operation on a draft; commits it (state and events) if it completes.
    func perform(_ operation: (inout TransitionDraft) throws(NavigationRefusal) -> Void) -> NavigationResult {
        guard isStarted else { return .refused(.sessionNotStarted) }
        var draft = draft()
        do {
            try operation(&draft)
            try draft.checkAllPositions()
            try draft.checkNoRepeatedEvent()
        } catch {
            return .refused(error)
        }
        return commit(draft)
    }

    /// Adopts a completed draft and writes its events, with a closing `screen_view` when the
    /// visible screen changed.
    func commit(_ draft: TransitionDraft) -> NavigationResult {
        guard !draft.payloads.isEmpty else { return .unchanged }
        let before = visible(in: self.draft())
        let after = visible(in: draft)
        var payloads = draft.payloads
        if after != before, let screenView = after.screenView { payloads.append(screenView) }
        state = draft.state
        params = draft.params
        successPayload = draft.success
        emit(payloads)
        return .applied
    }

    /// What is visible, with the visible route's parameters.
    struct Visible: Equatable {
        var screen: Screen?
        var params: RouteParams?

        var screenView: NavigationEvent.Payload? {
            switch screen {
            case .modal(let modal): .screenView(.modal(modal), params: nil)
            case .stack(let stack, let route): .screenView(.stack(stack, route: route), params: params)
            case nil: nil
            }
        }
    }

    func visible(in draft: TransitionDraft) -> Visible {
        let screen = model.visibleScreen(in: draft.state)
        guard case .stack(let stack, let route)? = screen, route != nil else { return Visible(screen: screen) }
        return Visible(screen: screen, params: draft.routeParams(of: stack).last ?? nil)
    }

    // MARK: Writing events

    /// Writes one action's events: one correlation id, one timestamp, consecutive seqs.
    private func emit(_ payloads: [NavigationEvent.Payload]) {
        guard !payloads.isEmpty else { return }
        let correlationID = makeID()
        lastMilliseconds = max(clock(), lastMilliseconds)
        let timestamp = Timestamp(epochMilliseconds: lastMilliseconds)
        for payload in payloads {
            let event = NavigationEvent(
                eventID: makeID(), sessionID: sessionID, seq: nextSeq, timestamp: timestamp,
                correlationID: correlationID, appVersion: appVersion, platform: platform, payload: payload)
            nextSeq += 1
            sink.write(event)
            if fold != nil { check(event) }
        }
        if fold != nil { record(fold?.endGroup(correlationID) ?? []) }
    }

    /// Folds one written event live, through its canonical line, as `navreplay` would read it.
    private func check(_ event: NavigationEvent) {
        switch EventDecoder().decode(event.canonicalJSON) {
        case .success(let decoded):
            record(fold?.apply(decoded.event, contentIdentity: decoded.contentIdentity) ?? [])
        case .failure(let error):
            record([
                Finding(
                    rule: .schemaInvalid, sessionID: event.sessionID, seq: event.seq, eventID: event.eventID,
                    location: nil, message: "the router wrote a line that is not a valid v1 event: \(error)",
                    eventName: event.name)
            ])
        }
    }

    private func record(_ findings: [Finding]) {
        for finding in findings {
            violations.append(finding)
            onViolation?(finding)
        }
    }

    /// Writes events as they are, without any check or state change: for testing that live
    /// checks catch a bad event. Not for use in an app.
    @_spi(Testing)
    public func emitUnchecked(_ payloads: [NavigationEvent.Payload]) {
        emit(payloads)
    }
}
