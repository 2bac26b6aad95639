import NavModel
import NavReplay
import Testing

/// A finding keeps the states around it condensed: every list past `ListedNames.limit` names
/// shows its first 4 and last 12 names. Whole, each finding on a deep stack held a copy of the
/// stack (a snapshot of 120,000 routes and 600 pushes with a finding each: 1.1 GB in the text
/// audit, 1.9 GB written by `--format json`).
@Suite("Deep states in findings")
struct DeepStateTests {
    /// A snapshot with `depth` routes on tab1 in flow onboarding, then `pushes` pushes on tab1:
    /// a `stack.not_owned` at each.
    static func deepLog(depth: Int, pushes: Int) -> SessionLog {
        var log = SessionLog()
        let routes = Array(repeating: "\"list\"", count: depth).joined(separator: ",")
        log.add(.start(snapshot: #"{"flow":"onboarding","tab":null,"stacks":{"tab1":[\#(routes)]},"modals":[]}"#))
        for _ in 0..<pushes { log.add(.push("tab1", from: "list", to: "list")) }
        return log
    }

    static func names(in state: NavigationState?) -> Int {
        guard let state else { return 0 }
        return state.stacks.values.reduce(state.modals.count) { $0 + $1.count }
    }

    @Test func findingsOnADeepStackHoldCondensedStates() throws {
        let result = try audit(Self.deepLog(depth: 2_000, pushes: 50))
        #expect(result.findings.count == 50)
        #expect(result.findings.allSatisfy { $0.rule == .stackNotOwned })
        // Whole, each finding held two states of about 2,000 names (200,000 in all).
        let held = result.findings.reduce(0) { $0 + Self.names(in: $1.stateBefore) + Self.names(in: $1.stateAfter) }
        #expect(held <= 50 * 2 * (ListedNames.limit + 1))  // each list: 16 names and the marker
        let first = try #require(result.findings.first)
        #expect(
            first.stateBefore?.stacks["tab1"] == ["list", "list", "list", "list", "… 1984 more …"] + Array(repeating: "list", count: 12))
        #expect(first.stateAfter?.stacks["tab1"]?[4] == "… 1985 more …")
        // What changed is found on the whole states, and listed condensed.
        #expect(
            first.changes.map(\.description) == [
                "tab1: [list, list, list, list, … 1984 more …, \(Array(repeating: "list", count: 12).joined(separator: ", "))] → "
                    + "[list, list, list, list, … 1985 more …, \(Array(repeating: "list", count: 12).joined(separator: ", "))]"
            ])
        // The fold's working state is whole.
        #expect(result.finalState.stacks["tab1"]?.count == 2_050)
    }

    /// A state held until its group ends (a command's) is condensed too; a change within the
    /// part a condensed list leaves out is still a change (the whole lists' fingerprints differ).
    @Test func aChangeInTheLeftOutMiddleOfAHeldStateIsStillAChange() throws {
        var log = SessionLog()
        var routes = Array(repeating: "list", count: 20)
        func snapshot(_ routes: [String]) -> String {
            let listed = routes.map { "\"\($0)\"" }.joined(separator: ",")
            return #"{"flow":"onboarding","tab":null,"stacks":{"tab1":[\#(listed)]},"modals":[]}"#
        }
        log.add(.start(snapshot: snapshot(routes)))
        routes[5] = "detail"  // within the 4 names a 20-route list leaves out
        log.group(
            "g", .command("goAuthorizedTab1Root", from: "onboarding", to: "authorized"), .start(snapshot: snapshot(routes)))
        let result = try audit(log)
        let postcondition = try onlyFinding(.commandPostcondition, in: result)
        #expect(postcondition.stateBefore?.stacks["tab1"] == postcondition.stateAfter?.stacks["tab1"])
        #expect(postcondition.changes.contains { if case .stack("tab1", _, _) = $0 { true } else { false } })
        // The same state again is no change.
        var same = SessionLog()
        same.add(.start(snapshot: snapshot(routes)))
        same.group(
            "g", .command("goAuthorizedTab1Root", from: "onboarding", to: "authorized"), .start(snapshot: snapshot(routes)))
        let unchanged = try onlyFinding(.commandPostcondition, in: try audit(same))
        #expect(unchanged.changes.isEmpty)
    }

    /// Without `keepStates`, nothing of the states is held.
    @Test func withoutStatesAFindingHoldsNone() throws {
        let result = try audit(Self.deepLog(depth: 100, pushes: 5), options: SessionAuditOptions(keepStates: false))
        #expect(result.findings.count == 5)
        #expect(result.findings.allSatisfy { $0.stateBefore == nil && $0.stateAfter == nil && $0.changes.isEmpty })
    }

    /// A shallow state is kept whole, and its changes are `NavigationState.changes(to:)`.
    @Test func aShallowStateIsKeptWhole() throws {
        let result = try audit(Self.deepLog(depth: 15, pushes: 2))
        let first = try #require(result.findings.first)
        #expect(first.stateBefore?.stacks["tab1"]?.count == 15)
        #expect(first.stateAfter?.stacks["tab1"]?.count == 16)
        #expect(first.changes == first.stateBefore!.changes(to: first.stateAfter!))
        let second = try #require(result.findings.last)
        #expect(second.stateAfter?.stacks["tab1"]?.count == 17)  // 17 routes: 16 and the marker
        #expect(second.stateAfter?.stacks["tab1"]?[4] == "… 1 more …")
    }
}
