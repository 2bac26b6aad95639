import NavEvents
import NavJSON
import NavModel
import NavReplay
import Testing

/// Re-synchronising after a seq gap (docs/events-and-rules.md, "After a gap: re-synchronising"):
/// a finding after the gap adopts all that its event claims, so that a lost event costs the gap
/// and at most one consequence; the same events without a gap fold as before.
@Suite struct ResyncTests {
    /// The documentation's example: the `tab_switch` to tab2 lost (or, with `gap: false`, the same
    /// events numbered without a hole).
    static func lostTabSwitch(gap: Bool) -> SessionLog {
        var log = SessionLog.authorized(tab: "tab1")
        log.add(.view("tab1", nil))
        if gap { log.lose() }
        log.add(.push("tab2", from: nil, to: "post"))
        log.add(.view("tab2", "post"))
        log.add(.tab(from: "tab2", to: "tab1"))
        log.add(.view("tab1", nil))
        return log
    }

    @Test func theDocumentedLostTabSwitchCostsTheGapAndOneScreen() throws {
        let result = try audit(Self.lostTabSwitch(gap: true))
        #expect(summary(result) == ["seq.gap@3", "screen.not_visible@4"])
        #expect(result.findings.allSatisfy { $0.afterGap })
        #expect(result.finalState.tab == "tab1")
        #expect(result.finalState.stacks["tab2"] == ["post"])
    }

    @Test func withoutAGapTheSameEventsFoldAsBefore() throws {
        let result = try audit(Self.lostTabSwitch(gap: false))
        #expect(summary(result) == ["screen.not_visible@3", "state.mismatch@4"])
        #expect(result.findings.allSatisfy { !$0.afterGap })
    }

    @Test func aLostFlowSwitchIsAdoptedFromTheScreenThatShowsTheNewFlow() throws {
        var log = SessionLog.started()
        log.add(.view("onboarding", nil))
        log.add(.command("goAuthorizedTab1Root", from: "onboarding", to: "authorized"), group: "login")
        log.lose()  // the group's flow_switch
        log.add(.view("tab1", nil), group: "login")
        log.add(.push("tab1", from: nil, to: "list"))
        log.add(.view("tab1", "list"))

        let result = try audit(log)

        #expect(summary(result) == ["screen.not_visible@4", "seq.gap@4"])
        #expect(result.finalState.flow == "authorized")
    }

    /// A command group whose last event (its flow switch) is lost: its postcondition, found at its
    /// end before the gap, is after the gap, and what the command does is adopted when the gap is
    /// found, so that the events after it agree.
    @Test func aGroupWhoseLastEventIsLostIsAfterTheGapAndAdopted() throws {
        var log = SessionLog.started()
        log.group("login", .command("goAuthorizedTab1Root", from: "onboarding", to: "authorized"))
        log.lose()  // the group's flow_switch
        log.add(.push("tab1", from: nil, to: "list"))
        log.add(.view("tab1", "list"))

        let result = try audit(log)

        #expect(summary(result) == ["command.postcondition@1", "seq.gap@3"])
        #expect(result.findings.allSatisfy { $0.afterGap })
        #expect(result.finalState.flow == "authorized")
    }

    /// A command group that spans the gap: its postcondition, at its command before the gap, is
    /// after the gap.
    @Test func aGroupSpanningTheGapIsAfterTheGap() throws {
        var log = SessionLog.authorized(routes: ["list"])
        log.add(.command("logoutToOnboarding", from: "authorized", to: "onboarding"), group: "logout")
        log.lose()  // the pop of tab1 to its root
        log.add(.flow(from: "authorized", to: "onboarding"), group: "logout")
        log.add(.view("onboarding", nil))

        let result = try audit(log)

        #expect(summary(result) == ["command.postcondition@1", "seq.gap@3"])
        let postcondition = try onlyFinding(.commandPostcondition, in: result)
        #expect(postcondition.afterGap)
        #expect(result.finalState.stacks["tab1"] == [], "the command's reset is adopted")
    }

    /// A lost replace, seen by the screen: the route is pushed, and the route under it is
    /// doubtful; the pop that names the route below it removes it without a finding.
    @Test func aLostReplaceIsResolvedByThePopThatComesBackBelowIt() throws {
        var log = SessionLog.authorized(routes: ["list", "detail"])
        log.lose()  // route_replace detail → settings
        log.add(.view("tab1", "settings"))
        log.add(.pop("tab1", from: "settings", to: "list"))
        log.add(.view("tab1", "list"))

        let result = try audit(log)

        #expect(summary(result) == ["screen.not_visible@2", "seq.gap@2"])
        #expect(result.finalState.stacks["tab1"] == ["list"])
    }

    /// A pop's claimed top after a gap is adopted as the history its to_route agrees with.
    @Test func aPopsToRouteChoosesBetweenALostPushAndALostReplace() throws {
        var replaced = SessionLog.authorized(routes: ["list", "detail"])
        replaced.lose()  // route_replace detail → settings
        replaced.add(.pop("tab1", from: "settings", to: "list"))
        let afterReplace = try audit(replaced)
        #expect(summary(afterReplace) == ["seq.gap@2", "state.mismatch@2"])
        #expect(afterReplace.finalState.stacks["tab1"] == ["list"])

        var pushed = SessionLog.authorized(routes: ["list", "detail"])
        pushed.lose()  // route_push settings
        pushed.add(.pop("tab1", from: "settings", to: "detail"))
        let afterPush = try audit(pushed)
        #expect(summary(afterPush) == ["seq.gap@2", "state.mismatch@2"])
        #expect(afterPush.finalState.stacks["tab1"] == ["list", "detail"])
    }

    /// A lost present of a modal with its own stack, seen by a push onto that stack: the modal is
    /// presented, and the screen, its dismiss and the next modal (within max_modals) agree.
    @Test func aLostModalPresentIsAdoptedFromAPushOntoItsStack() throws {
        let model = try makeModel(
            """
            {"model_version": 1, "name": "m", "initial": {"flow": "app"},
             "flows": {"app": {"stack": "main", "max_modals": 1}},
             "stacks": {"main": {"routes": ["a", "b"]}, "sheet": {"routes": ["x", "y"]}},
             "modals": {"editor": {"stack": "sheet"}, "menu": {}}}
            """)
        var log = SessionLog.started()
        log.add(.view("main", nil))
        log.lose()  // modal_present editor
        log.add(.push("sheet", from: nil, to: "x"))
        log.add(.view("sheet", "x"))
        log.add(.dismiss("editor"))
        log.add(.present("menu"))

        let result = try audit(log, model: model)

        #expect(summary(result) == ["seq.gap@3", "stack.not_owned@3"])
        #expect(result.finalState.modals == ["menu"])
    }
}
