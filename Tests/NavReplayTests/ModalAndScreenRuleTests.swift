import NavEvents
import NavJSON
import NavModel
import NavReplay
import Testing

/// Modals, screen views and analytics duplicates: `modal.not_allowed`, `modal.already_presented`,
/// `modal.not_presented`, `screen.not_visible` and its resync, `analytics.duplicate`
/// (docs/events-and-rules.md, "Modals", "Adopting a claimed value", "Correlation groups").
@Suite("Modal, screen and analytics rules")
struct ModalAndScreenRuleTests {
    /// Pages with widget overlays, one widget at a time.
    static let widgetModel = """
        {"model_version": 1, "name": "widgets", "initial": {"flow": "pages"},
         "flows": {"pages": {"stack": "pages", "max_modals": 1}, "free": {"stack": "other"}},
         "stacks": {"pages": {"routes": ["home", "article"]}, "other": {}},
         "modals": {"chat": {}, "player": {"flows": ["pages", "free"]}, "share": {"flows": ["free"]}}}
        """

    // MARK: modal_present

    @Test func anUndeclaredModalIsNotAllowedAndStillPresented() throws {
        var log = SessionLog.started()
        log.add(.present("ghost"))

        let result = try audit(log)

        #expect(summary(result) == ["modal.not_allowed@1"])
        let finding = try onlyFinding(.modalNotAllowed, in: result)
        #expect(finding.severity == .error)
        #expect(finding.found == .string("ghost"))
        #expect(result.finalState.modals == ["ghost"])
    }

    @Test func aModalInAFlowItIsNotAllowedInIsNotAllowed() throws {
        var log = SessionLog.authorized()
        log.add(.present("paywall", style: "cover"))

        let result = try audit(log)

        #expect(summary(result) == ["modal.not_allowed@1"])
        let finding = try onlyFinding(.modalNotAllowed, in: result)
        #expect(finding.expected == jsonStrings("onboarding"))
        #expect(finding.found == .string("authorized"))
        #expect(result.finalState.modals == ["paywall"])
    }

    @Test func aModalInAFlowItIsAllowedInIsClean() throws {
        var log = SessionLog.started()
        log.add(.present("paywall", style: "cover"))
        log.add(.present("success", style: "overlay"))
        log.add(.dismiss("success"))
        log.add(.dismiss("paywall"))

        let result = try audit(log)

        #expect(summary(result) == [])
        #expect(result.finalState.modals == [])
    }

    @Test func aModalBeyondTheFlowsMaxModalsIsNotAllowed() throws {
        let model = try makeModel(Self.widgetModel)
        var log = SessionLog.started()
        log.add(.present("chat", style: "overlay"))
        log.add(.present("player", style: "overlay"))

        let result = try audit(log, model: model)

        #expect(summary(result) == ["modal.not_allowed@2"])
        let finding = try onlyFinding(.modalNotAllowed, in: result)
        #expect(finding.expected == .number("1"))
        #expect(finding.found == .number("2"))
    }

    @Test func oneModalAtATimeWithinMaxModalsIsClean() throws {
        let model = try makeModel(Self.widgetModel)
        var log = SessionLog.started()
        log.add(.present("chat", style: "overlay"))
        log.add(.dismiss("chat"))
        log.add(.present("player", style: "overlay"))

        let result = try audit(log, model: model)

        #expect(summary(result) == [])
        #expect(result.finalState.modals == ["player"])
    }

    @Test func aModalPresentedTwiceIsOnlyAlreadyPresentedAndNotAddedTwice() throws {
        var log = SessionLog.started()
        log.add(.present("success"))
        log.add(.present("success"))

        let result = try audit(log)

        #expect(summary(result) == ["modal.already_presented@2"])
        let finding = try onlyFinding(.modalAlreadyPresented, in: result)
        #expect(finding.severity == .warning)
        #expect(finding.witness?.seq == 1)
        #expect(result.finalState.modals == ["success"])
    }

    @Test func aPresentOfAPresentedModalIsOnlyAlreadyPresentedEvenWhereItIsNotAllowed() throws {
        let model = try makeModel(Self.widgetModel)
        var log = SessionLog.started()
        log.add(.present("chat", style: "overlay"))
        log.add(.present("chat", style: "overlay"))  // also at max_modals
        var paywall = SessionLog.authorized(modals: ["paywall"])  // not allowed in authorized: seq 0
        paywall.add(.present("paywall"))

        #expect(summary(try audit(log, model: model)) == ["modal.already_presented@2"])
        #expect(summary(try audit(paywall)) == ["modal.not_allowed@0", "modal.already_presented@1"])
    }

    // MARK: modal_dismiss

    @Test func dismissingAModalBelowTheTopRemovesItAndEveryModalAboveIt() throws {
        let model = try makeModel(
            """
            {"model_version": 1, "name": "m", "initial": {"flow": "f"}, "flows": {"f": {"stack": "s"}},
             "stacks": {"s": {}}, "modals": {"a": {}, "b": {}, "c": {}}}
            """)
        var log = SessionLog.started()
        log.add(.present("a"))
        log.add(.present("b"))
        log.add(.present("c"))
        log.add(.dismiss("b"))
        log.add(.viewModal("a"))

        let result = try audit(log, model: model)

        #expect(summary(result) == [])
        #expect(result.finalState.modals == ["a"])
    }

    @Test func dismissingAModalThatIsNotPresentedIsNotPresented() throws {
        var log = SessionLog.started()
        log.add(.present("paywall"))
        log.add(.dismiss("success"))

        let result = try audit(log)

        #expect(summary(result) == ["modal.not_presented@2"])
        let finding = try onlyFinding(.modalNotPresented, in: result)
        #expect(finding.severity == .error)
        #expect(finding.found == .string("success"))
        #expect(finding.expected == jsonStrings("paywall"))
        #expect(result.finalState.modals == ["paywall"])
    }

    /// Modals the model does not declare are presented anyway (the fold follows the log), so
    /// their list can grow without bound: a finding lists the first 4 and the last 12.
    @Test func manyPresentedModalsAreListedByTheirEnds() throws {
        var log = SessionLog.started()
        let modals = (0..<30).map { "m\($0)" }
        for modal in modals { log.add(.present(modal)) }
        log.add(.dismiss("success"))

        let result = try audit(log)

        let finding = try onlyFinding(.modalNotPresented, in: result)
        let shown = Array(modals.prefix(4)) + ["… 14 more …"] + Array(modals.suffix(12))
        #expect(finding.expected == .array(shown.map(JSONValue.string)))
        #expect(finding.message.hasSuffix("(presented: \(shown.joined(separator: ", ")))"))
        #expect(result.finalState.modals == modals)
    }

    @Test func dismissingTwiceIsNotPresentedTheSecondTime() throws {
        var log = SessionLog.started()
        log.add(.present("paywall"))
        log.add(.dismiss("paywall"))
        log.add(.dismiss("paywall"))

        #expect(summary(try audit(log)) == ["modal.not_presented@3"])
    }

    // MARK: screen_view

    @Test func aScreenViewOfTheVisibleScreenIsClean() throws {
        var log = SessionLog.authorized()
        log.add(.view("tab1", nil))
        log.add(.push("tab1", from: nil, to: "list"))
        log.add(.view("tab1", "list"))
        log.add(.present("success"))
        log.add(.viewModal("success"))
        log.add(.dismiss("success"))
        log.add(.view("tab1", "list"))

        #expect(summary(try audit(log)) == [])
    }

    @Test func aScreenViewIsCheckedAgainstTheStateAfterThePreviousEventInsideAGroup() throws {
        var log = SessionLog.authorized(routes: ["list"])
        log.group("ok", .push("tab1", from: "list", to: "detail"), .view("tab1", "detail"))
        // The view states the screen of the group's start, not the state after the push before it.
        log.group("late", .push("tab1", from: "detail", to: "settings"), .view("tab1", "detail"))

        let result = try audit(log)

        #expect(summary(result) == ["screen.not_visible@4"])
        let finding = try onlyFinding(.screenNotVisible, in: result)
        #expect(finding.severity == .warning)
        #expect(finding.expected == .string("tab1/settings"))
        #expect(finding.found == .string("tab1/detail"))
        #expect(finding.witness?.seq == 3)
        #expect(result.finalState.stacks["tab1"] == ["list", "detail"])
    }

    @Test func aModalClaimMakesThatModalTheTopOne() throws {
        var log = SessionLog.authorized(routes: ["list"])
        log.add(.viewModal("success"))
        log.add(.viewModal("success"))
        log.add(.dismiss("success"))

        let result = try audit(log)

        #expect(summary(result) == ["screen.not_visible@1"])
        let finding = try onlyFinding(.screenNotVisible, in: result)
        #expect(finding.expected == .string("tab1/list"))
        #expect(finding.found == .string("modal:success"))
        #expect(finding.stateAfter?.modals == ["success"])
        #expect(finding.stateAfter?.flow == "authorized")
        #expect(finding.stateAfter?.tab == "tab1")
        #expect(result.finalState.modals == [])
    }

    @Test func aModalClaimOfAModalBelowTheTopRemovesThoseAboveIt() throws {
        var log = SessionLog()
        log.add(.start(snapshot: #"{"flow":"onboarding","tab":null,"stacks":{},"modals":["success","paywall"]}"#))
        log.add(.viewModal("success"))
        log.add(.viewModal("success"))

        let result = try audit(log)

        #expect(summary(result) == ["screen.not_visible@1"])
        #expect(result.finalState.modals == ["success"])
    }

    @Test func aStackClaimEmptiesTheModalsAndAdoptsTheRouteButKeepsFlowAndTab() throws {
        var log = SessionLog.authorized(routes: ["list"], modals: ["success"])
        log.add(.view("tab1", "detail"))
        log.add(.view("tab1", "detail"))
        log.add(.pop("tab1", from: "detail", to: "list"))

        let result = try audit(log)

        #expect(summary(result) == ["screen.not_visible@1"])
        let finding = try onlyFinding(.screenNotVisible, in: result)
        #expect(finding.expected == .string("modal:success"))
        #expect(finding.found == .string("tab1/detail"))
        #expect(
            finding.stateAfter
                == NavigationState(
                    flow: "authorized", tab: "tab1", stacks: ["onboarding": [], "tab1": ["list", "detail"], "tab2": []]))
        #expect(result.finalState.stacks["tab1"] == ["list"])
    }

    @Test func aStackClaimOfTheRootEmptiesThatStack() throws {
        var log = SessionLog.authorized(routes: ["list", "detail"])
        log.add(.view("tab1", nil))
        log.add(.push("tab1", from: nil, to: "settings"))

        let result = try audit(log)

        #expect(summary(result) == ["screen.not_visible@1"])
        #expect(result.finalState.stacks["tab1"] == ["settings"])
    }

    @Test func aStackClaimOfAnInactiveStackDoesNotChangeTheTab() throws {
        var log = SessionLog.authorized(tab: "tab1")
        log.add(.view("tab2", "feed"))
        log.add(.view("tab1", nil))

        let result = try audit(log)

        #expect(summary(result) == ["screen.not_visible@1"])
        let finding = try onlyFinding(.screenNotVisible, in: result)
        #expect(finding.stateAfter?.tab == "tab1")
        #expect(finding.stateAfter?.stacks["tab2"] == ["feed"])
    }

    @Test func withNoActiveStackOnlyTheTopModalIsVisible() throws {
        var log = SessionLog()
        log.add(.start(snapshot: #"{"flow":"authorized","tab":null,"stacks":{},"modals":["success"]}"#))
        log.add(.viewModal("success"))
        log.add(.view("tab1", nil))

        let result = try audit(log)

        #expect(summary(result) == ["tab.invalid@0", "screen.not_visible@2"])
        let finding = try onlyFinding(.screenNotVisible, in: result)
        #expect(finding.expected == .string("modal:success"))
    }

    @Test func withNoActiveStackAndNoModalNothingIsVisible() throws {
        var log = SessionLog()
        log.add(.start(snapshot: #"{"flow":"authorized","tab":null,"stacks":{},"modals":[]}"#))
        log.add(.view("tab1", nil))

        let result = try audit(log)

        #expect(summary(result) == ["tab.invalid@0", "screen.not_visible@1"])
        #expect(try onlyFinding(.screenNotVisible, in: result).expected == .null)
    }

    @Test func theStackUnderAModalIsNotVisible() throws {
        var log = SessionLog.authorized(routes: ["list"], modals: ["success"])
        log.add(.view("tab1", "list"))

        #expect(summary(try audit(log)) == ["screen.not_visible@1"])
    }

    // MARK: analytics.duplicate

    @Test func theSameEventTwiceInOneGroupIsAnAnalyticsDuplicateOnTheLaterCopy() throws {
        var log = SessionLog.authorized()
        log.group("tap", .push("tab1", from: nil, to: "detail"), .view("tab1", "detail"), .view("tab1", "detail"))

        let result = try audit(log)

        #expect(summary(result) == ["analytics.duplicate@3"])
        let finding = try onlyFinding(.analyticsDuplicate, in: result)
        #expect(finding.severity == .warning)
        #expect(finding.eventID == "e3")
        #expect(finding.witness?.seq == 2)
    }

    @Test func theSameContentInDifferentGroupsIsClean() throws {
        var log = SessionLog.authorized()
        log.group("a", .push("tab1", from: nil, to: "detail"), .view("tab1", "detail"))
        log.group("b", .view("tab1", "detail"))

        let result = try audit(log)

        #expect(summary(result) == [])
    }

    @Test func differentEventsOfOneGroupAreClean() throws {
        var log = SessionLog.authorized()
        log.group(
            "tap", .push("tab1", from: nil, to: "list"), .view("tab1", "list"), .push("tab1", from: "list", to: "detail"),
            .view("tab1", "detail"))

        #expect(summary(try audit(log)) == [])
    }

    @Test func aRedeliveryInAGroupIsNotAnAnalyticsDuplicate() throws {
        var log = SessionLog.authorized()
        log.group("tap", .push("tab1", from: nil, to: "list"), .view("tab1", "list"))
        let result = try audit(lines: log.lines + [log.lines[2]])

        #expect(summary(result) == [])
        #expect(result.redeliveries == 1)
    }

    @Test func analyticsDuplicateComparesOptionalFieldsToo() throws {
        var log = SessionLog.authorized()
        log.group("tap", .view("tab1", nil), EventSpec("screen_view", [("stack", "tab1"), ("to_route", nil), ("platform", "ios")]))

        #expect(summary(try audit(log)) == [])
    }
}
