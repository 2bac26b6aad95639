import NavJSON
public import NavModel

extension RuleDescription {
    static let routeUnknown = RuleDescription(
        id: "route.unknown", severity: .error,
        summary: "A route the model does not declare for that stack.",
        explanation:
            "Each stack declares the routes it may hold. A route outside that list entered the stack; it is applied, so the session goes on folding as written.",
        likelyCauses: [
            "a route pushed on the wrong stack",
            "a destination that is not registered in the model (a new screen, or a model file older than the app)",
        ],
        triggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "route_push", #""stack":"onboarding","from_route":null,"to_route":"checkout""#))
        ],
        nonTriggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "route_push", #""stack":"onboarding","from_route":null,"to_route":"welcome""#))
        ])
}

/// `route.unknown`'s check: a stack holds only the routes the model declares for it.
public enum RouteUnknown {
    /// A route entering stack `number` (`stack`).
    public static func check(_ route: String, stack: String, number: Int, model: NavigationModel) -> Violation? {
        guard !model.stackTable.accepts(route, number: number) else { return nil }
        let declared = model.stackTable.specs[number].routes.map(ListedNames.init)
        return Violation(
            .routeUnknown,
            "route \(Phrase.quoted(route)) is not declared for stack \(Phrase.quoted(stack))"
                + (declared.map { " (declared: \($0.joined(separator: ", ")))" } ?? ""),
            expected: declared?.json, found: .string(route))
    }

    /// A route a snapshot's stack holds.
    public static func check(restoring route: String, stack: String, spec: StackSpec) -> Violation? {
        guard !spec.accepts(route) else { return nil }
        return Violation(
            .routeUnknown,
            "the snapshot's stack \(Phrase.quoted(stack)) holds \(Phrase.quoted(route)), a route the model does not declare for it",
            found: .string(route))
    }
}
