import NavJSON
public import NavModel

extension RuleDescription {
    static let routePosition = RuleDescription(
        id: "route.position", severity: .error,
        summary: "A stack position holds a route the model does not allow there.",
        explanation:
            "A stack may require certain routes at a position (a `positions` entry in the model file), for example the screen just above a hub that depends on what the hub shows, possibly only in some flows. A route entered a position that does not allow it; it is applied.",
        likelyCauses: [
            "a screen opened from the wrong place, skipping the one that must come first",
            "a flow switch that left a stack whose positions the new flow constrains differently",
        ],
        triggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "route_push", #""stack":"hub","from_route":null,"to_route":"space""#),
                ExampleLog.event(2, "route_push", #""stack":"hub","from_route":"space","to_route":"docs""#))
        ],
        nonTriggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "route_push", #""stack":"hub","from_route":null,"to_route":"space""#),
                ExampleLog.event(2, "route_push", #""stack":"hub","from_route":"space","to_route":"widgets""#))
        ],
        exampleModel: """
            {"model_version": 1, "name": "hub", "initial": {"flow": "main"},
             "flows": {"main": {"stack": "hub"}},
             "stacks": {"hub": {"routes": ["space", "widgets", "chat", "docs"],
                                "positions": [{"index": 1, "one_of": ["widgets", "chat"]}]}}}
            """)
}

/// `route.position`'s checks: the routes a stack's positions require (`positions`).
public enum RoutePosition {
    /// The requirements of stack `spec` that `route` at `index` breaks while `flow` is active
    /// (usually none: an empty list, no allocation).
    public static func check(_ route: String, at index: Int, spec: StackSpec, flow: String) -> [PositionRequirement] {
        var broken: [PositionRequirement] = []
        for requirement in spec.positions where !requirement.allows(route, at: index, in: flow) { broken.append(requirement) }
        return broken
    }

    /// The requirements that a whole stack's `routes` break while `flow` is active, with the
    /// index each judges; `flowBoundOnly`: only those bound to flows (`positions[].flows`).
    public static func check(
        stack routes: [String], spec: StackSpec, flow: String, flowBoundOnly: Bool = false
    ) -> [PositionRequirement] {
        var broken: [PositionRequirement] = []
        for requirement in spec.positions where requirement.index < routes.count && (!flowBoundOnly || requirement.flows != nil) {
            if !requirement.allows(routes[requirement.index], at: requirement.index, in: flow) { broken.append(requirement) }
        }
        return broken
    }

    static func required(_ requirement: PositionRequirement) -> (oneOf: ListedNames, text: String) {
        let oneOf = ListedNames(requirement.oneOf)
        return (oneOf, requirement.oneOf.isEmpty ? "no route there" : "one of \(oneOf.joined(separator: ", ")) there")
    }

    /// The finding of a route entering (or a snapshot holding) `route` at `index` of `stack`.
    public static func violation(
        _ requirement: PositionRequirement, route: String, index: Int, stack: String, flow: String
    ) -> Violation {
        let (oneOf, required) = required(requirement)
        return Violation(
            .routePosition,
            "route \(Phrase.quoted(route)) at index \(index) of stack \(Phrase.quoted(stack)); the model requires "
                + required + (requirement.flows == nil ? "" : " in flow \(Phrase.quoted(flow))"),
            expected: oneOf.json, found: .string(route), setBy: requirement.flows == nil ? .none : .flow)
    }

    /// The finding of a route that stands where it stood at a flow switch, which the new flow's
    /// requirements forbid (reported at the end of the switch's correlation group).
    public static func violation(
        afterSwitch requirement: PositionRequirement, route: String, stack: String, flow: String, correlationID: String
    ) -> Violation {
        let (oneOf, required) = required(requirement)
        return Violation(
            .routePosition,
            "after the switch to flow \(Phrase.quoted(flow)) (correlation group \(Phrase.quoted(correlationID))), stack "
                + "\(Phrase.quoted(stack)) still holds \(Phrase.quoted(route)) at index \(requirement.index); the model "
                + "requires \(required) in that flow",
            expected: oneOf.json, found: .string(route), setBy: .stack(stack))
    }
}
