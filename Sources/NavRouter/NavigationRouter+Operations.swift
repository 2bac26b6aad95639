public import NavEvents
import NavModel

// MARK: Stack operations (the PoC's flow routing, the space hub's HomePath)

extension NavigationRouter {
    /// Pushes a route on a stack (the active one by default): `route_push`.
    ///
    /// Refused for an unknown or foreign stack, an undeclared route, a singleton already in
    /// the stack (use `openOnce`), a forbidden position or invalid parameters.
    @discardableResult
    public func push(_ route: String, on stack: String? = nil, params: RouteParams? = nil) -> NavigationResult {
        perform { (draft: inout TransitionDraft) throws(NavigationRefusal) in
            try draft.push(route, on: stack, params: params)
        }
    }

    /// Pops `count` routes, clamped to the stack's depth: `min(max(count, 0), depth)` of them.
    ///
    /// With nothing to pop (`count` ≤ 0, or an empty stack) it is `.unchanged`; otherwise it
    /// writes `route_pop` with `count` as requested, so a clamped pop stays visible in the log
    /// (`stack.out_of_range`).
    @discardableResult
    public func pop(_ count: Int = 1, on stack: String? = nil) -> NavigationResult {
        perform { (draft: inout TransitionDraft) throws(NavigationRefusal) in
            try draft.pop(count, on: stack)
        }
    }

    /// Empties a stack, showing its root: `route_pop` with `to_root: true`. `.unchanged` on an
    /// empty stack.
    @discardableResult
    public func popToRoot(on stack: String? = nil) -> NavigationResult {
        perform { (draft: inout TransitionDraft) throws(NavigationRefusal) in
            try draft.popToRoot(on: stack)
        }
    }

    /// Pops back to the last occurrence of a route (the space hub's `popTo`, the PoC's return to a
    /// screen), or the first with the stack's `pop_to: first`; with `identity: value`, the route
    /// with these parameters: `route_pop_to` (or `route_pop {count}` when `route_pop_to`, which
    /// names no parameters, would land elsewhere). `.unchanged` when the route is not in the stack
    /// or already on top; refused while the stack's context shows a modal
    /// (`presentation: contexts`).
    @discardableResult
    public func popTo(_ route: String, params: RouteParams? = nil, on stack: String? = nil) -> NavigationResult {
        perform { (draft: inout TransitionDraft) throws(NavigationRefusal) in
            try draft.popTo(route, params: params, on: stack)
        }
    }

    /// Keeps only the first route above the root (the space hub's `popToFirstOpened`): `route_pop`
    /// with `count` = depth - 1. `.unchanged` at depth 0 or 1.
    @discardableResult
    public func popToFirstOpened(on stack: String? = nil) -> NavigationResult {
        perform { (draft: inout TransitionDraft) throws(NavigationRefusal) in
            try draft.popToFirstOpened(on: stack)
        }
    }

    /// Replaces the top route (the space hub's `replaceLast`): `route_replace`; on an empty stack it
    /// pushes. `.unchanged` when the top already is that route with those parameters.
    @discardableResult
    public func replaceLast(_ route: String, on stack: String? = nil, params: RouteParams? = nil) -> NavigationResult {
        perform { (draft: inout TransitionDraft) throws(NavigationRefusal) in
            try draft.replaceLast(route, on: stack, params: params)
        }
    }

    /// Inserts a route at an index (0 = just above the root, depth = on top): `route_insert`.
    /// Refused outside `0...depth`, and when it would shift a route out of a position the
    /// model requires.
    @discardableResult
    public func insert(
        _ route: String, at index: Int, on stack: String? = nil, params: RouteParams? = nil
    ) -> NavigationResult {
        perform { (draft: inout TransitionDraft) throws(NavigationRefusal) in
            try draft.insert(route, at: index, on: stack, params: params)
        }
    }

    /// Removes every occurrence of a route (the space hub's `remove`), with `identity: value` every
    /// occurrence with these parameters: `route_remove` (or, when the stack also holds the
    /// route with other parameters, a pop and the pushes of the routes kept). `.unchanged` when
    /// it is not in the stack; refused when it would shift a route into a position the model
    /// forbids.
    @discardableResult
    public func remove(_ route: String, params: RouteParams? = nil, from stack: String? = nil) -> NavigationResult {
        perform { (draft: inout TransitionDraft) throws(NavigationRefusal) in
            try draft.remove(route, params: params, from: stack)
        }
    }

    /// Opens a route once (the space hub's `openOnce`): pops back to it if it is in the stack (with
    /// `identity: value`, with these parameters) (`route_pop_to`, or `.unchanged` when it is on
    /// top), else pushes it (`route_push`).
    @discardableResult
    public func openOnce(_ route: String, on stack: String? = nil, params: RouteParams? = nil) -> NavigationResult {
        perform { (draft: inout TransitionDraft) throws(NavigationRefusal) in
            try draft.openOnce(route, on: stack, params: params)
        }
    }

    // MARK: Tabs

    /// Selects a tab of the current flow: `tab_switch`. `.unchanged` if it is selected.
    @discardableResult
    public func selectTab(_ tab: String) -> NavigationResult {
        perform { (draft: inout TransitionDraft) throws(NavigationRefusal) in
            try draft.selectTab(tab)
        }
    }

    // MARK: Modals

    /// Presents a modal over everything: `modal_present`.
    @discardableResult
    public func present(_ modal: String, style: ModalStyle = .sheet) -> NavigationResult {
        perform { (draft: inout TransitionDraft) throws(NavigationRefusal) in
            try draft.present(modal, style: style)
        }
    }

    /// Dismisses a modal, and every modal above it (docs/events-and-rules.md): one `modal_dismiss`.
    @discardableResult
    public func dismiss(_ modal: String) -> NavigationResult {
        perform { (draft: inout TransitionDraft) throws(NavigationRefusal) in
            try draft.dismiss(modal)
        }
    }

    /// Dismisses the top modal; `.unchanged` when none is presented.
    @discardableResult
    public func dismissTop() -> NavigationResult {
        perform { (draft: inout TransitionDraft) throws(NavigationRefusal) in
            if let top = draft.state.modals.last { try draft.dismiss(top) }
        }
    }

    /// The modular tabs system's smart dismiss, from a coordinator's context (the visible one by
    /// default): first the sheet or cover that context presented (`modal_dismiss` of the modal just
    /// above it, which takes those above it along), else a pop of the context's own stack
    /// (`route_pop {count: 1}`), else the context itself is dismissed by its parent
    /// (`modal_dismiss` of the context's modal). A modal without its own stack has nothing to pop:
    /// it is dismissed.
    ///
    /// Refused with `.nothingToDismiss` at the root of the base stack with no modal presented,
    /// so that a dismiss with nothing to dismiss never reaches the log.
    @discardableResult
    public func dismiss(from context: NavigationContext = .visible) -> NavigationResult {
        perform { (draft: inout TransitionDraft) throws(NavigationRefusal) in
            try draft.smartDismiss(from: context)
        }
    }

    /// The modular tabs system's `close`: dismisses the whole modal flow the context is in, the
    /// modal with its own stack and every modal above it, in one `modal_dismiss`. Refused with
    /// `.nothingToDismiss` from the base context.
    @discardableResult
    public func close(from context: NavigationContext = .visible) -> NavigationResult {
        perform { (draft: inout TransitionDraft) throws(NavigationRefusal) in
            try draft.close(from: context)
        }
    }

    // MARK: Transactions

    /// Several operations as one user action: their events share one correlation id, the
    /// visible screen is logged once at the end, and either every operation is applied or, if
    /// one is refused, none is and nothing is written.
    ///
    /// The space hub's `showScreen` in another space is one: rebuild the path for the space, then
    /// open the screen.
    ///
    /// ```swift
    /// router.transaction { tx in
    ///     try tx.apply(command: "openDataSpace")   // command_applied, route_pop {to_root}, …
    ///     try tx.push("widgets")
    ///     try tx.push("editor", params: RouteParams([("object_id", .string("o-1"))]))
    /// }
    /// ```
    ///
    /// The body may throw errors of its own: they abandon the transaction too, and the result
    /// is `.refused(.abandoned(description))`.
    @discardableResult
    public func transaction(_ body: (inout NavigationTransaction) throws -> Void) -> NavigationResult {
        perform { (draft: inout TransitionDraft) throws(NavigationRefusal) in
            var transaction = NavigationTransaction(draft: draft)
            do {
                try body(&transaction)
            } catch let refusal as NavigationRefusal {
                throw refusal
            } catch {
                throw .abandoned(String(describing: error))
            }
            draft = transaction.draft
        }
    }

    // MARK: The global success screen

    /// Shows the global success screen: sets the payload and presents `successModal`.
    ///
    /// Refused when the success screen is already presented, when the flow does not allow it,
    /// or when the action names a command the model does not declare.
    @discardableResult
    public func presentSuccess(_ payload: SuccessPayload, style: ModalStyle = .cover) -> NavigationResult {
        perform { (draft: inout TransitionDraft) throws(NavigationRefusal) in
            if case .command(let command) = payload.primaryAction, draft.model.commands[command] == nil {
                throw .unknownCommand(command)
            }
            try draft.present(draft.successModal, style: style)
            draft.success = payload
        }
    }

    /// The success screen's primary button: clears the payload first
    /// (`modal_dismiss` of the success modal), then, if the action maps to a command, applies
    /// it; `.dismiss` applies none. One action: one correlation group.
    ///
    /// Refused when the success screen is not presented. When it was presented without a
    /// payload (restored from a snapshot, or by `present(_:style:)`), the action is `.dismiss`.
    @discardableResult
    public func handleSuccessPrimary() -> NavigationResult {
        perform { (draft: inout TransitionDraft) throws(NavigationRefusal) in
            let action = draft.success?.primaryAction ?? .dismiss
            try draft.dismiss(draft.successModal)
            draft.success = nil
            if case .command(let command) = action { try draft.applyCommand(command) }
        }
    }

    // MARK: Cross-flow commands

    /// Applies a cross-flow command of the model, the only way the flow changes:
    /// `command_applied`, `route_pop {to_root}` for each non-empty stack it resets,
    /// `modal_dismiss` for the modals it dismisses (top first), `flow_switch` if the flow
    /// changes, `tab_switch` if its tab is not selected, then `screen_view`. Modals the target
    /// flow does not allow are dismissed too, so the command leaves a valid state.
    ///
    /// Refused for a command the model does not declare.
    @discardableResult
    public func apply(command: String) -> NavigationResult {
        perform { (draft: inout TransitionDraft) throws(NavigationRefusal) in
            try draft.applyCommand(command)
        }
    }

    // MARK: Deep links

    /// Opens a deep link through the model's deep link table, in one correlation group that
    /// starts with `deep_link`.
    ///
    /// The URL is `scheme://host/path…`; its segments are the host and the path segments
    /// (percent-decoded; query and fragment ignored). The first pattern that matches gives a
    /// command and steps: `deep_link {outcome: resolved}`, the command's events, the steps'
    /// events (tab switches, pushes, presents), `screen_view`. `:name` segments become the
    /// `route_params` of the last route the link pushes. When the URL is invalid, nothing
    /// matches, or the command or a step would be refused: `deep_link {outcome: fallback}`,
    /// then the model's `fallback_command`, if any (the safe root).
    @discardableResult
    public func open(deepLink url: String) -> DeepLinkResult {
        guard isStarted else { return .refused(.sessionNotStarted) }
        guard !url.isEmpty else { return .refused(.emptyURL) }
        let reason: DeepLinkFallbackReason
        if let parsed = DeepLinkURL(url) {
            if let (link, captures) = model.deepLinks.match(parsed.segments) {
                var attempt = draft()
                attempt.emit(.deepLink(url: url, outcome: .resolved))
                do {
                    try attempt.follow(link, captures: captures)
                    try attempt.checkAllPositions()
                    try attempt.checkNoRepeatedEvent()
                    _ = commit(attempt)
                    return .resolved
                } catch {
                    reason = .refused(error)
                }
            } else {
                reason = .noMatch
            }
        } else {
            reason = .invalidURL
        }
        var fallback = draft()
        fallback.emit(.deepLink(url: url, outcome: .fallback))
        if let command = model.deepLinks.fallbackCommand {
            var withCommand = fallback
            if (try? withCommand.applyCommand(command)) != nil { fallback = withCommand }
        }
        _ = commit(fallback)
        return .fallback(reason)
    }
}
