import NavJSON
public import NavEvents
public import NavModel

extension RuleDescription {
    static let routeSingleton = RuleDescription(
        id: "route.singleton", severity: .error,
        summary: "A singleton route would stand twice in its stack.",
        explanation:
            "The model marks some routes as singletons: they may stand once in their stack. Opening one again should pop back to it, not push a copy. The copy is applied.",
        likelyCauses: [
            "a button that pushes the screen without checking whether it is already open",
            "a deep link that pushes its target on top of an existing copy",
        ],
        triggeringExamples: [
            ExampleLog.log(
                [ExampleLog.start()] + ExampleLog.login(at: 1) + [
                    ExampleLog.event(3, "route_push", #""stack":"tab1","from_route":null,"to_route":"settings""#),
                    ExampleLog.event(4, "route_push", #""stack":"tab1","from_route":"settings","to_route":"settings""#),
                ])
        ],
        nonTriggeringExamples: [
            ExampleLog.log(
                [ExampleLog.start()] + ExampleLog.login(at: 1) + [
                    ExampleLog.event(3, "route_push", #""stack":"tab1","from_route":null,"to_route":"settings""#),
                    ExampleLog.event(4, "route_push", #""stack":"tab1","from_route":"settings","to_route":"detail""#),
                ])
        ])
}

/// `route.singleton`'s check: a singleton route stands at most once in its stack.
public enum RouteSingleton {
    /// A route (with its parameters) entering a stack whose `routes` (and, for a stack that
    /// compares routes by value, their `params`, parallel to them) hold it in `below`.
    public static func check(
        _ route: String, params: RouteParams?, stack: String, spec: StackSpec, routes: [String], params list: [RouteParams?],
        below: Range<Int>
    ) -> Violation? {
        guard applies(to: route, spec: spec) else { return nil }
        let held: Bool
        if spec.identity == .value {
            held = below.contains { sameRoute(routes, list, at: $0, route, params, spec) }
        } else {
            held = routes[below].contains(route)
        }
        guard held else { return nil }
        let listed = ListedNames(routes[below])
        let what = spec.identity == .value ? "with the same route_params " : ""
        return Violation(
            .routeSingleton,
            "singleton route \(Phrase.quoted(route)) \(what)is already in stack \(Phrase.quoted(stack)) "
                + "(\(listed.joined(separator: " › "))); open it once: pop back to it instead",
            expected: listed.json, found: .string(route), setBy: .stack(stack))
    }

    /// Whether the rule concerns `route` at all: whether it is one of the stack's singletons. Most
    /// stacks have none: then neither a hash nor a search of the stack (a search at every push
    /// made a deep stack quadratic). The fold asks first, before it makes the stack's names.
    public static func applies(to route: String, spec: StackSpec) -> Bool {
        !spec.singletons.isEmpty && spec.singletons.contains(route)
    }

    /// Whether the route at `index` of a stack's `routes` (and `list` of parameters) is `route`:
    /// its name, and with `identity: value` its parameters too (no parameters and empty ones are
    /// the same).
    public static func sameRoute(
        _ routes: [String], _ list: [RouteParams?], at index: Int, _ route: String, _ params: RouteParams?, _ spec: StackSpec
    ) -> Bool {
        guard routes[index] == route else { return false }
        guard spec.identity == .value else { return true }
        return normalized(list[index]) == normalized(params)
    }

    static func normalized(_ params: RouteParams?) -> RouteParams? {
        params.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A route a snapshot's stack holds, after the routes `seen` below it. A snapshot names
    /// routes without their parameters: under `identity: value` two routes of one name may be
    /// two values, so its singletons are not checked.
    public static func check(restoring route: String, stack: String, spec: StackSpec, seen: Set<String>) -> Violation? {
        guard spec.identity == .name, spec.singletons.contains(route), seen.contains(route) else { return nil }
        return Violation(
            .routeSingleton, "the snapshot's stack \(Phrase.quoted(stack)) holds singleton \(Phrase.quoted(route)) twice",
            found: .string(route))
    }
}
