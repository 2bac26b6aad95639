import NavEvents
import NavJSON
import NavModel
import NavReplay
import Testing

/// Tests written as docs/events-and-rules.md (or the documented meaning of a `Finding` field) says,
/// which the source does not do yet. Each one states the documented behaviour; they stay failing
/// until the source is fixed, and then they move to the suite of their rule.
@Suite("Contract disagreements")
struct ContractBugTests {
    /// After a `state.mismatch` the fold adopts the event's claimed value (flow, tab, top route), so
    /// that one lost event yields one finding, not a cascade; a claimed top route `null` empties the
    /// stack (docs/events-and-rules.md, "Adopting a claimed value").
    ///
    /// The lost `route_pop {to_root}` is adopted from the push's `from_route: null`, so the stack
    /// was empty in the fold's own reconstruction; the command's reset must count as done.
    /// Actual: `command.postcondition@2` as well ("stack(s) tab1 never emptied"), because
    /// `NavigationFold.noteEmptyStacksForPendingCommands()` looks only at the state after each whole
    /// event, not at the stack emptied by `checkTop(of:claimed:field:)` inside the event.
    @Test func aLostPopToRootInADeepLinkGroupYieldsOneFinding() throws {
        var log = SessionLog.authorized(routes: ["settings"])
        log.group(
            "link", .deepLink("app://tab1/detail/42"),
            .command("goAuthorizedTab1Root", from: "authorized", to: "authorized"),
            // route_pop {to_root} was never logged; the push claims the root.
            .push("tab1", from: nil, to: "list"), .push("tab1", from: "list", to: "detail"))

        let result = try audit(log)

        #expect(summary(result) == ["state.mismatch@3"])
    }

    /// `Finding.witness`: "The earlier event that set up the expectation this one breaks"; for a
    /// `state.mismatch` of a `from_route`, the event that last set that stack's top.
    ///
    /// Actual: the `route_insert` at seq 2, which inserted below the top and left it unchanged,
    /// because `NavigationFold` sets `stackWitness[stack]` on every stack operation
    /// (`applyStackOperation`), not only on those that change the top.
    @Test func theWitnessOfAMismatchIsTheEventThatLastSetTheTop() throws {
        var log = SessionLog.authorized()
        log.add(.push("tab1", from: nil, to: "detail"))
        log.add(.insert("tab1", "list", at: 0))
        log.add(.push("tab1", from: "settings", to: "list"))

        let mismatch = try onlyFinding(.stateMismatch, in: try audit(log))

        #expect(mismatch.witness?.seq == 1)
    }

    /// A correlation group ends at its highest `seq`, and `command.postcondition` is checked at the
    /// group's end (docs/events-and-rules.md, "Correlation groups").
    ///
    /// With `untilSeq` (`replay --until-seq`), the group below ends at seq 3, after the cut, so its
    /// postcondition is not due yet (and it holds at seq 3). Actual: `command.postcondition@1`
    /// ("flow is authorized"), because `SessionAuditor.audit` drops the events after `untilSeq`
    /// before it computes `groupEnd`, so the group is ended at seq 2 (and by `endAllGroups`).
    @Test func replayUntilTheMiddleOfACorrectGroupDoesNotReportItsPostcondition() throws {
        var log = SessionLog.authorized(routes: ["detail"])
        log.group(
            "logout", .command("logoutToOnboarding", from: "authorized", to: "onboarding"),
            .popToRoot("tab1", from: "detail"), .flow(from: "authorized", to: "onboarding"))

        let result = try audit(log, options: SessionAuditOptions(untilSeq: 2))

        #expect(summary(result) == [])
    }
}
