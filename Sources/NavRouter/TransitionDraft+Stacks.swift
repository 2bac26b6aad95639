import NavEvents
import NavModel
import NavReplay

// MARK: Stack operations (the PoC's flow routing, the space hub's HomePath)

extension TransitionDraft {
    /// The checks where a route enters a stack (push, replace, insert): declared, not a second
    /// copy of a singleton among the routes at `below` (by name, or by value with
    /// `identity: value`), allowed at that position, within the stack's `max_depth`.
    func checkEntering(
        _ route: String, params routeParams: RouteParams?, stack: String, spec: StackSpec, below: Range<Int>, index: Int,
        depthAfter: Int
    ) throws(NavigationRefusal) {
        // An empty name is no route for the router.
        guard !route.isEmpty, let number = StackUnknown.check(stack, model: model),
            RouteUnknown.check(route, stack: stack, number: number, model: model) == nil
        else { throw .unknownRoute(route, stack: stack) }
        if RouteSingleton.check(
            route, params: routeParams, stack: stack, spec: spec, routes: routes(of: stack), params: self.routeParams(of: stack),
            below: below) != nil
        {
            throw .singletonAlreadyPresent(route, stack: stack)
        }
        if let requirement = RoutePosition.check(route, at: index, spec: spec, flow: state.flow).first {
            throw .positionRequired(route: route, stack: stack, index: index, oneOf: requirement.oneOf)
        }
        if StackOutOfRange.check(entering: route, stack: stack, spec: spec, depthAfter: depthAfter) != nil {
            throw .stackFull(stack: stack, maxDepth: spec.maxDepth ?? depthAfter)
        }
    }

    /// Whether the route at `index` of a stack's `routes` (and `list` of parameters) is
    /// `route` (`RouteSingleton.sameRoute`).
    static func matches(
        _ routes: [String], _ list: [RouteParams?], at index: Int, _ route: String, _ routeParams: RouteParams?, _ spec: StackSpec
    ) -> Bool {
        RouteSingleton.sameRoute(routes, list, at: index, route, routeParams, spec)
    }

    /// The index `popTo` goes back to: the first or the last match (`pop_to`), by name or by value.
    func target(of route: String, params routeParams: RouteParams?, in stack: String, spec: StackSpec) -> Int? {
        let (routes, list) = (routes(of: stack), self.routeParams(of: stack))
        let isMatch = { (index: Int) in Self.matches(routes, list, at: index, route, routeParams, spec) }
        return spec.popTo == .first ? routes.indices.first(where: isMatch) : routes.indices.last(where: isMatch)
    }

    /// In a flow that presents by context, a stack whose context shows a modal does not pop
    /// (the modular tabs system's coordinator's `pop()` does nothing then).
    func checkNotCovered(_ stack: String) throws(NavigationRefusal) {
        if case .covered(let modal)? = StackNotOwned.check(
            popping: stack, flow: state.flow, flowSpec: model.flows[state.flow], presented: state.modals, model: model)
        {
            throw .stackCovered(stack: stack, modal: modal)
        }
    }

    /// Before a stack's top changes to `newTop`: dismisses the modals bound to routes
    /// (`modals.<name>.routes`) that cover the stack and do not overlay `newTop` (pages with widgets: a
    /// page's widgets go with the page), with those above them.
    mutating func dismissModalsLeaving(_ stack: String, newTop: String?) throws(NavigationRefusal) {
        let off = ModalNotAllowed.modalsOffTheirRoutes(
            covering: stack, flow: state.flow, tab: state.tab, presented: state.modals, model: model,
            top: { $0 == stack ? newTop : state.stacks[$0]?.last })
        if let first = off.first { try dismiss(first.modal) }
    }

    mutating func push(_ route: String, on name: String?, params routeParams: RouteParams?) throws(NavigationRefusal) {
        let (stack, spec) = try resolve(name)
        try checkParams(routeParams)
        var routes = routes(of: stack)
        var list = self.routeParams(of: stack)
        try checkEntering(
            route, params: routeParams, stack: stack, spec: spec, below: 0..<routes.count, index: routes.count,
            depthAfter: routes.count + 1)
        try dismissModalsLeaving(stack, newTop: route)
        emit(.routePush(stack: stack, from: routes.last, to: route, params: routeParams))
        routes.append(route)
        list.append(routeParams)
        set(stack, routes: routes, params: list)
    }

    /// Pops clamp to the stack's depth: `min(max(n, 0), depth)`; the event carries `n` as requested.
    mutating func pop(_ count: Int, on name: String?) throws(NavigationRefusal) {
        let (stack, _) = try resolve(name)
        var routes = routes(of: stack)
        var list = routeParams(of: stack)
        let effective = min(max(count, 0), routes.count)
        guard effective > 0 else { return }
        try checkNotCovered(stack)
        let from = routes.last
        routes.removeLast(effective)
        list.removeLast(effective)
        try dismissModalsLeaving(stack, newTop: routes.last)
        emit(.routePop(stack: stack, from: from, to: routes.last, amount: .count(Int64(count))))
        set(stack, routes: routes, params: list)
    }

    mutating func popToRoot(on name: String?) throws(NavigationRefusal) {
        let (stack, _) = try resolve(name)
        let routes = routes(of: stack)
        guard !routes.isEmpty else { return }
        try dismissModalsLeaving(stack, newTop: nil)
        emit(.routePop(stack: stack, from: routes.last, to: nil, amount: .toRoot))
        set(stack, routes: [], params: [])
    }

    /// The space hub's `popTo`, the PoC's return to a screen: back to the last occurrence of the
    /// route, or the first with `pop_to: first`; with `identity: value`, of the route with these
    /// parameters. A no-op when it is not in the stack or already on top.
    ///
    /// `route_pop_to` names a route without parameters, and the fold goes back to its first or
    /// last occurrence by name: when that is not the route meant (two chats, the second one
    /// meant), the router writes the pop as `route_pop {count}` instead, so that the log
    /// rebuilds the app's path.
    mutating func popTo(_ route: String, params routeParams: RouteParams? = nil, on name: String?) throws(NavigationRefusal) {
        let (stack, spec) = try resolve(name)
        var routes = routes(of: stack)
        var list = self.routeParams(of: stack)
        guard let index = target(of: route, params: routeParams, in: stack, spec: spec), index != routes.count - 1 else { return }
        try checkNotCovered(stack)
        let byName = spec.popTo == .first ? routes.firstIndex(of: route) : routes.lastIndex(of: route)
        let from = routes.last
        let removed = routes.count - 1 - index
        routes.removeSubrange((index + 1)...)
        list.removeSubrange((index + 1)...)
        try dismissModalsLeaving(stack, newTop: route)
        if byName == index {
            emit(.routePopTo(stack: stack, from: from, to: route))
        } else {
            emit(.routePop(stack: stack, from: from, to: route, amount: .count(Int64(removed))))
        }
        set(stack, routes: routes, params: list)
    }

    /// The space hub's `popToFirstOpened`: keeps the first route above the root.
    mutating func popToFirstOpened(on name: String?) throws(NavigationRefusal) {
        let (stack, _) = try resolve(name)
        let depth = routes(of: stack).count
        guard depth > 1 else { return }
        try pop(depth - 1, on: stack)
    }

    /// The space hub's `replaceLast`; on an empty stack it pushes (docs/events-and-rules.md).
    /// Replacing the top with the same route and parameters is a no-op.
    mutating func replaceLast(_ route: String, on name: String?, params routeParams: RouteParams?) throws(NavigationRefusal) {
        let (stack, spec) = try resolve(name)
        try checkParams(routeParams)
        var routes = routes(of: stack)
        var list = self.routeParams(of: stack)
        let below = max(routes.count - 1, 0)
        try checkEntering(
            route, params: routeParams, stack: stack, spec: spec, below: 0..<below, index: below, depthAfter: max(routes.count, 1))
        if routes.last == route, list.last == routeParams { return }
        try dismissModalsLeaving(stack, newTop: route)
        emit(.routeReplace(stack: stack, from: routes.last, to: route, params: routeParams))
        if routes.isEmpty {
            routes.append(route)
            list.append(routeParams)
        } else {
            routes[routes.count - 1] = route
            list[list.count - 1] = routeParams
        }
        set(stack, routes: routes, params: list)
    }

    /// The space hub's `insert`: index 0 is just above the root; `depth` appends. Outside `0...depth`
    /// it is refused (the fold would clamp it and warn), and so is a shift that moves a route
    /// out of a required position.
    mutating func insert(
        _ route: String, at index: Int, on name: String?, params routeParams: RouteParams?
    ) throws(NavigationRefusal) {
        let (stack, spec) = try resolve(name)
        try checkParams(routeParams)
        var routes = routes(of: stack)
        var list = self.routeParams(of: stack)
        if StackOutOfRange.check(inserting: Int64(index), stack: stack, count: routes.count) != nil {
            throw .indexOutOfRange(index: index, depth: routes.count)
        }
        try checkEntering(
            route, params: routeParams, stack: stack, spec: spec, below: 0..<routes.count, index: index, depthAfter: routes.count + 1)
        let onTop = index == routes.count
        routes.insert(route, at: index)
        list.insert(routeParams, at: index)
        try checkPositions(routes, stack: stack, spec: spec)
        if onTop { try dismissModalsLeaving(stack, newTop: route) }
        emit(.routeInsert(stack: stack, route: route, index: Int64(index), params: routeParams))
        set(stack, routes: routes, params: list)
    }

    /// The space hub's `remove`: every occurrence (with `identity: value`, every occurrence with these
    /// parameters); a no-op when it is not in the stack; refused when it would move a route
    /// into a position the model forbids.
    ///
    /// `route_remove` removes every route of the name: when the stack also holds the name with
    /// other parameters, the router writes the removal as a pop to below the first occurrence
    /// and pushes of the routes it keeps above it.
    mutating func remove(_ route: String, params routeParams: RouteParams? = nil, from name: String?) throws(NavigationRefusal) {
        let (stack, spec) = try resolve(name)
        let routes = routes(of: stack)
        let list = self.routeParams(of: stack)
        let removed = routes.indices.filter { Self.matches(routes, list, at: $0, route, routeParams, spec) }
        guard let first = removed.first else { return }
        let kept = routes.indices.filter { !removed.contains($0) }
        try checkPositions(kept.map { routes[$0] }, stack: stack, spec: spec)
        if removed.last == routes.count - 1 { try dismissModalsLeaving(stack, newTop: kept.last.map { routes[$0] }) }
        if removed.count == routes.filter({ $0 == route }).count {
            emit(.routeRemove(stack: stack, route: route))
        } else {
            try checkNotCovered(stack)
            var below = first
            emit(
                .routePop(
                    stack: stack, from: routes.last, to: first > 0 ? routes[first - 1] : nil, amount: .count(Int64(routes.count - first))))
            for index in kept where index > first {
                emit(.routePush(stack: stack, from: below > 0 ? routes[below - 1] : nil, to: routes[index], params: list[index]))
                below = index + 1
            }
        }
        set(stack, routes: kept.map { routes[$0] }, params: kept.map { list[$0] })
    }

    /// The space hub's `openOnce`: back to the route if it is in the stack (by name, or by value with
    /// `identity: value`), else push it.
    mutating func openOnce(_ route: String, on name: String?, params routeParams: RouteParams?) throws(NavigationRefusal) {
        let (stack, spec) = try resolve(name)
        if target(of: route, params: routeParams, in: stack, spec: spec) != nil {
            try popTo(route, params: routeParams, on: stack)
        } else {
            try push(route, on: stack, params: routeParams)
        }
    }
}
