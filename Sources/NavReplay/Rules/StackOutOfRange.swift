import NavJSON
public import NavModel

extension RuleDescription {
    static let stackOutOfRange = RuleDescription(
        id: "stack.out_of_range", severity: .warning,
        summary: "A pop count, pop-to target or insert index outside the stack.",
        explanation:
            "The operation asked for more (or fewer) routes than the stack has, a pop to a route the stack does not hold, or an insert past its end. The router clamps it and so does the audit (a pop-to of a missing route does nothing), but the caller computed a wrong count or target.",
        likelyCauses: [
            "a pop count computed from a stale copy of the stack",
            "a pop-to target that was already removed",
        ],
        triggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "route_push", #""stack":"onboarding","from_route":null,"to_route":"welcome""#),
                ExampleLog.event(2, "route_pop", #""stack":"onboarding","from_route":"welcome","to_route":null,"count":2"#))
        ],
        nonTriggeringExamples: [
            ExampleLog.log(
                ExampleLog.start(),
                ExampleLog.event(1, "route_push", #""stack":"onboarding","from_route":null,"to_route":"welcome""#),
                ExampleLog.event(2, "route_pop", #""stack":"onboarding","from_route":"welcome","to_route":null,"count":1"#))
        ])
}

/// `stack.out_of_range`'s checks: depths, counts and indices a stack can hold.
public enum StackOutOfRange {
    /// A route entering `stack` would make it hold `depthAfter` routes: at most `max_depth`.
    public static func check(entering route: String, stack: String, spec: StackSpec, depthAfter: Int) -> Violation? {
        guard let limit = spec.maxDepth, depthAfter > limit else { return nil }
        return Violation(
            .stackOutOfRange,
            "route \(Phrase.quoted(route)) would make stack \(Phrase.quoted(stack)) hold \(depthAfter) routes; "
                + "the model allows at most \(limit)",
            expected: .string("0...\(limit)"), found: .number(String(depthAfter)), setBy: .stack(stack))
    }

    /// A snapshot's stack holds `count` routes: at most `max_depth`.
    public static func check(restoring stack: String, spec: StackSpec, count: Int) -> Violation? {
        guard let limit = spec.maxDepth, count > limit else { return nil }
        return Violation(
            .stackOutOfRange,
            "the snapshot's stack \(Phrase.quoted(stack)) holds \(count) routes; the model allows at most \(limit)",
            expected: .string("0...\(limit)"), found: .number(String(count)))
    }

    /// A `route_pop` of `count` routes off a stack of `depth`: from 1 to the depth, unless the
    /// stack clamps its pops (`clamped_pops`).
    public static func check(popping count: Int64, stack: String, spec: StackSpec, depth: Int) -> Violation? {
        guard count < 1 || count > Int64(depth), !spec.clampedPops else { return nil }
        return Violation(
            .stackOutOfRange,
            "route_pop asks for \(count) route(s) on stack \(Phrase.quoted(stack)), which holds \(depth); "
                + "clamped to \(min(max(count, 0), Int64(depth)))",
            expected: .string("1...\(depth)"), found: .number(String(count)), setBy: .stack(stack))
    }

    /// A `route_pop_to` of a route that `found` did not find in the stack's `routes`.
    public static func check(poppingTo target: String, found: Bool, stack: String, routes: [String]) -> Violation? {
        guard !found else { return nil }
        let listed = ListedNames(routes)
        return Violation(
            .stackOutOfRange,
            "route_pop_to \(Phrase.quoted(target)), which is not in stack \(Phrase.quoted(stack)) "
                + "(\(routes.isEmpty ? "empty" : listed.joined(separator: " › "))); no-op",
            expected: listed.json, found: .string(target), setBy: .stack(stack))
    }

    /// A `route_insert` at `index` of a stack of `count` routes: within `0...count`.
    public static func check(inserting index: Int64, stack: String, count: Int) -> Violation? {
        guard index < 0 || index > Int64(count) else { return nil }
        return Violation(
            .stackOutOfRange,
            "route_insert at index \(index) of stack \(Phrase.quoted(stack)), which holds \(count); "
                + "clamped to \(min(max(index, 0), Int64(count)))",
            expected: .string("0...\(count)"), found: .number(String(index)), setBy: .stack(stack))
    }
}
