import NavEvents
import NavJSON
import NavModel
import NavReplay
import Testing

/// Flows, tabs and commands: `flow.without_command`, `flow.unknown`, `command.unknown`,
/// `command.postcondition`, `tab.invalid`, and the `state.mismatch` of `from_flow`, `from_tab`
/// and a command's `to_flow` (docs/events-and-rules.md, "Correlation groups").
@Suite("Flow, tab and command rules")
struct FlowAndCommandRuleTests {
    // MARK: flow.without_command

    @Test func aBareFlowSwitchIsFlowWithoutCommandAndStillApplied() throws {
        var log = SessionLog.started()
        log.add(.flow(from: "onboarding", to: "authorized"))

        let result = try audit(log)

        #expect(summary(result) == ["flow.without_command@1"])
        let finding = try onlyFinding(.flowWithoutCommand, in: result)
        #expect(finding.severity == .error)
        #expect(finding.eventName == .flowSwitch)
        #expect(result.finalState.flow == "authorized")
    }

    @Test func aFlowSwitchAfterACommandOfTheSameGroupIsClean() throws {
        var log = SessionLog.started()
        log.group(
            "login", .command("goAuthorizedTab1Root", from: "onboarding", to: "authorized"),
            .flow(from: "onboarding", to: "authorized"))

        let result = try audit(log)

        #expect(summary(result) == [])
        #expect(result.finalState.flow == "authorized")
    }

    @Test func aFlowSwitchAfterADeepLinkOfTheSameGroupIsClean() throws {
        var log = SessionLog.started()
        log.group("link", .deepLink("app://tab1"), .flow(from: "onboarding", to: "authorized"))

        let result = try audit(log)

        #expect(summary(result) == [])
        #expect(result.finalState.flow == "authorized")
    }

    @Test func aCommandInAnotherGroupDoesNotAuthoriseAFlowSwitch() throws {
        var log = SessionLog.started()
        log.add(.command("goAuthorizedTab1Root", from: "onboarding", to: "authorized"), group: "a")
        log.add(.flow(from: "onboarding", to: "authorized"), group: "b")

        let result = try audit(log)

        #expect(summary(result) == ["command.postcondition@1", "flow.without_command@2"])
    }

    @Test func aCommandAfterTheFlowSwitchInItsGroupDoesNotAuthoriseIt() throws {
        var log = SessionLog.started()
        log.group(
            "login", .flow(from: "onboarding", to: "authorized"),
            .command("goAuthorizedTab1Root", from: "authorized", to: "authorized"))

        let result = try audit(log)

        #expect(summary(result) == ["flow.without_command@1"])
    }

    // MARK: flow.unknown, command.unknown, state.mismatch of flows

    @Test func aFlowSwitchToAnUndeclaredFlowIsFlowUnknownAndApplied() throws {
        var log = SessionLog.started()
        log.group("link", .deepLink("app://x"), .flow(from: "onboarding", to: "ghost"))

        let result = try audit(log)

        #expect(summary(result) == ["flow.unknown@2"])
        let finding = try onlyFinding(.flowUnknown, in: result)
        #expect(finding.severity == .error)
        #expect(finding.found == .string("ghost"))
        #expect(result.finalState.flow == "ghost")
    }

    @Test func anUndeclaredCommandIsCommandUnknownAndItsUndeclaredFlowIsFlowUnknown() throws {
        var log = SessionLog.started()
        log.add(.command("goNowhere", from: "onboarding", to: "ghost"))

        let result = try audit(log)

        #expect(summary(result) == ["command.unknown@1", "flow.unknown@1"])
        let unknown = try onlyFinding(.commandUnknown, in: result)
        #expect(unknown.severity == .error)
        #expect(unknown.found == .string("goNowhere"))
        #expect(try onlyFinding(.flowUnknown, in: result).found == .string("ghost"))
    }

    @Test func anUndeclaredCommandToADeclaredFlowIsOnlyCommandUnknown() throws {
        var log = SessionLog.started()
        log.group(
            "g", .command("goSomewhere", from: "onboarding", to: "authorized"),
            .flow(from: "onboarding", to: "authorized"))

        let result = try audit(log)

        #expect(summary(result) == ["command.unknown@1"])
    }

    @Test func aDeclaredCommandToAnUndeclaredFlowIsFlowUnknownAndAMismatch() throws {
        var log = SessionLog.started()
        log.group(
            "g", .command("goAuthorizedTab1Root", from: "onboarding", to: "ghost"),
            .flow(from: "onboarding", to: "authorized"))

        let result = try audit(log)

        #expect(summary(result) == ["flow.unknown@1", "state.mismatch@1"])
    }

    @Test func aCommandWhoseToFlowIsNotTheModelsIsAStateMismatch() throws {
        var log = SessionLog.started()
        log.group(
            "g", .command("goAuthorizedTab1Root", from: "onboarding", to: "onboarding"),
            .flow(from: "onboarding", to: "authorized"))

        let result = try audit(log)

        #expect(summary(result) == ["state.mismatch@1"])
        let mismatch = try onlyFinding(.stateMismatch, in: result)
        #expect(mismatch.expected == .string("authorized"))
        #expect(mismatch.found == .string("onboarding"))
    }

    @Test func aCommandsWrongFromFlowIsAMismatchAndTheClaimIsAdopted() throws {
        var log = SessionLog.started()
        log.group(
            "g", .command("logoutToOnboarding", from: "authorized", to: "onboarding"),
            .flow(from: "authorized", to: "onboarding"))

        let result = try audit(log)

        #expect(summary(result) == ["state.mismatch@1"])
        let mismatch = try onlyFinding(.stateMismatch, in: result)
        #expect(mismatch.expected == .string("onboarding"))
        #expect(mismatch.found == .string("authorized"))
        #expect(mismatch.stateAfter?.flow == "authorized")
    }

    @Test func aFlowSwitchsWrongFromFlowIsAMismatchThenApplied() throws {
        var log = SessionLog.authorized()
        log.group(
            "g", .command("goAuthorizedTab1Root", from: "authorized", to: "authorized"),
            .flow(from: "onboarding", to: "authorized"))

        let result = try audit(log)

        #expect(summary(result) == ["state.mismatch@2"])
        let mismatch = try onlyFinding(.stateMismatch, in: result)
        #expect(mismatch.expected == .string("authorized"))
        #expect(mismatch.found == .string("onboarding"))
        #expect(result.finalState.flow == "authorized")
    }

    // MARK: tab_switch

    @Test func aTabSwitchInAFlowWithoutTabsIsTabInvalid() throws {
        var log = SessionLog()
        log.add(.start(snapshot: #"{"flow":"onboarding","tab":null,"stacks":{},"modals":[]}"#))
        log.add(.tab(from: nil, to: "tab2"))

        let result = try audit(log)

        #expect(summary(result) == ["tab.invalid@1"])
        let invalid = try onlyFinding(.tabInvalid, in: result)
        #expect(invalid.severity == .error)
        #expect(invalid.found == .string("tab2"))
    }

    @Test func aTabSwitchToATabTheFlowDoesNotHaveIsTabInvalid() throws {
        var log = SessionLog.authorized()
        log.add(.tab(from: "tab1", to: "onboarding"))

        let result = try audit(log)

        #expect(summary(result) == ["tab.invalid@1"])
        let invalid = try onlyFinding(.tabInvalid, in: result)
        #expect(invalid.expected == jsonStrings("tab1", "tab2"))
        #expect(invalid.found == .string("onboarding"))
    }

    @Test func aTabSwitchBetweenTheFlowsTabsIsClean() throws {
        var log = SessionLog.authorized()
        log.add(.tab(from: "tab1", to: "tab2"))
        log.add(.push("tab2", from: nil, to: "feed"))
        log.add(.view("tab2", "feed"))
        log.add(.tab(from: "tab2", to: "tab1"))
        log.add(.view("tab1", nil))

        let result = try audit(log)

        #expect(summary(result) == [])
        #expect(result.finalState.tab == "tab1")
    }

    @Test func aWrongFromTabIsAMismatchAndTheClaimIsAdopted() throws {
        var log = SessionLog.authorized(tab: "tab1")
        log.add(.tab(from: "tab2", to: "tab1"))
        log.add(.tab(from: "tab1", to: "tab2"))

        let result = try audit(log)

        #expect(summary(result) == ["state.mismatch@1"])
        let mismatch = try onlyFinding(.stateMismatch, in: result)
        #expect(mismatch.expected == .string("tab1"))
        #expect(mismatch.found == .string("tab2"))
        #expect(result.finalState.tab == "tab2")
    }

    // MARK: command.postcondition

    @Test func theLogoutSequenceOfContractSection3IsClean() throws {
        var log = SessionLog.authorized(routes: ["detail"])
        log.group(
            "logout", .command("logoutToOnboarding", from: "authorized", to: "onboarding"),
            .popToRoot("tab1", from: "detail"), .flow(from: "authorized", to: "onboarding"))
        log.add(.view("onboarding", nil))

        let result = try audit(log)

        #expect(summary(result) == [])
        #expect(
            result.finalState
                == NavigationState(
                    flow: "onboarding", tab: "tab1", stacks: ["onboarding": [], "tab1": [], "tab2": []], modals: []))
    }

    @Test func theLogoutSequenceWithAModalDismissedIsClean() throws {
        var log = SessionLog.authorized(routes: ["detail"], modals: ["success"])
        log.group(
            "logout", .command("logoutToOnboarding", from: "authorized", to: "onboarding"), .dismiss("success"),
            .popToRoot("tab1", from: "detail"), .flow(from: "authorized", to: "onboarding"))

        #expect(summary(try audit(log)) == [])
    }

    struct Postcondition: CustomTestStringConvertible, Sendable {
        var id: String
        var start: SessionLog
        var group: [EventSpec]
        var key: String
        var expected: JSONValue
        var found: JSONValue
        var testDescription: String { id }
    }

    static let postconditions: [Postcondition] = [
        Postcondition(
            id: "the command's flow is not reached", start: .started(),
            group: [.command("goAuthorizedTab1Root", from: "onboarding", to: "authorized")], key: "flow",
            expected: .string("authorized"), found: .string("onboarding")),
        Postcondition(
            id: "the command's tab is not selected", start: .authorized(tab: "tab1"),
            group: [.command("goAuthorizedTab2Root", from: "authorized", to: "authorized")], key: "tab",
            expected: .string("tab2"), found: .string("tab1")),
        Postcondition(
            id: "modals are not dismissed", start: .authorized(modals: ["success"]),
            group: [
                .command("logoutToOnboarding", from: "authorized", to: "onboarding"),
                .flow(from: "authorized", to: "onboarding"),
            ], key: "modals", expected: .array([]), found: jsonStrings("success")),
        Postcondition(
            id: "a reset stack is never emptied", start: .authorized(routes: ["detail"]),
            group: [.command("goAuthorizedTab1Root", from: "authorized", to: "authorized")], key: "reset",
            expected: jsonStrings("tab1"), found: .array([jsonStrings("detail")])),
        Postcondition(
            id: "a reset stack popped but not to the root", start: .authorized(routes: ["list", "detail"]),
            group: [
                .command("goAuthorizedTab1Root", from: "authorized", to: "authorized"),
                .pop("tab1", from: "detail", to: "list"),
            ], key: "reset", expected: jsonStrings("tab1"), found: .array([jsonStrings("list")])),
    ]

    @Test("command.postcondition at the group's end", arguments: postconditions)
    func commandPostcondition(_ test: Postcondition) throws {
        var log = test.start
        let commandSeq = log.nextSeq
        for spec in test.group { log.add(spec, group: "cmd") }
        log.add(.view("tab1", nil))  // after the group, in a group of its own

        let result = try audit(log)

        let finding = try onlyFinding(.commandPostcondition, in: result)
        #expect(finding.severity == .error)
        #expect(finding.seq == commandSeq)
        #expect(finding.eventID == "e\(commandSeq)")
        #expect(finding.eventName == .commandApplied)
        #expect(finding.location == LineLocation(file: 0, line: commandSeq + 1))
        #expect(finding.expected?.objectValue?.keys == [test.key])
        #expect(finding.found?.objectValue?.keys == [test.key])
        #expect(finding.expected?.objectValue?[test.key] == test.expected)
        #expect(finding.found?.objectValue?[test.key] == test.found)
    }

    @Test func aDeepLinkMayResetAStackAndThenPushItsTarget() throws {
        var log = SessionLog.authorized(routes: ["settings"])
        log.group(
            "link", .deepLink("app://tab1/detail/42"),
            .command("goAuthorizedTab1Root", from: "authorized", to: "authorized"), .popToRoot("tab1", from: "settings"),
            .push("tab1", from: nil, to: "list"), .push("tab1", from: "list", to: "detail"))

        let result = try audit(log)

        #expect(summary(result) == [])
        #expect(result.finalState.stacks["tab1"] == ["list", "detail"])
    }

    @Test func aStepPassedOverStillLandsLate() throws {
        // `tab2/post/:id` pushes feed, then post. Post lands first (feed passed over: a
        // problem), then feed lands late: the finding lists both, in the order they landed.
        var log = SessionLog.authorized(tab: "tab2")
        let link = log.group(
            "link", .deepLink("app://tab2/post/7"), .command("goAuthorizedTab2Root", from: "authorized", to: "authorized"),
            .push("tab2", from: nil, to: "post"), .push("tab2", from: "post", to: "feed"))

        let finding = try onlyFinding(.commandPostcondition, in: try audit(log, model: .pocWithDeepLinks))

        #expect(finding.seq == link)
        #expect(finding.message.hasSuffix(": step 2 (push tab2/post) landed before step 1 (push tab2/feed)"))
        #expect(finding.found?.objectValue?["steps"] == .array([.string("push tab2/post"), .string("push tab2/feed")]))
    }

    @Test func deepLinkStepsAreCheckedOnlyWithAModelThatDeclaresTheLinks() throws {
        // the default model declares no deep links: a resolved link whose command
        // holds is clean. The PoC router's own model (`NavigationModel.pocWithDeepLinks`) says that
        // `tab1/list` pushes `list`, so the same group misses a step there.
        var log = SessionLog.started()
        let link = log.group(
            "link", .deepLink("app://tab1/list"), .command("goAuthorizedTab1Root", from: "onboarding", to: "authorized"),
            .flow(from: "onboarding", to: "authorized"))

        #expect(summary(try audit(log)) == [])
        #expect(summary(try audit(log, model: .pocWithDeepLinks)) == ["command.postcondition@\(link)"])
    }

    @Test func aStackAlreadyEmptyAtTheCommandCountsAsReset() throws {
        var log = SessionLog.authorized()
        log.group(
            "link", .command("goAuthorizedTab1Root", from: "authorized", to: "authorized"),
            .push("tab1", from: nil, to: "list"))

        #expect(summary(try audit(log)) == [])
    }

    @Test func aStackEmptiedOnlyBeforeTheCommandDoesNotCount() throws {
        var log = SessionLog.authorized(routes: ["list"])
        log.add(.pop("tab1", from: "list", to: nil))
        log.add(.push("tab1", from: nil, to: "detail"))
        log.add(.command("goAuthorizedTab1Root", from: "authorized", to: "authorized"))

        #expect(summary(try audit(log)) == ["command.postcondition@3"])
    }

    @Test func eachCommandOfAGroupIsCheckedOnItsOwn() throws {
        var log = SessionLog.authorized(tab: "tab1")
        log.group(
            "two", .command("goAuthorizedTab1Root", from: "authorized", to: "authorized"),
            .command("goAuthorizedTab2Root", from: "authorized", to: "authorized"), .tab(from: "tab1", to: "tab2"))

        let result = try audit(log)

        #expect(summary(result) == ["command.postcondition@1"])
        let finding = try onlyFinding(.commandPostcondition, in: result)
        #expect(finding.expected?.objectValue?["tab"] == .string("tab1"))
        #expect(finding.found?.objectValue?["tab"] == .string("tab2"))
    }

    @Test func thePostconditionIsCheckedAtTheGroupsHighestSeqNotAtTheCommand() throws {
        var log = SessionLog.started()
        log.add(.command("goAuthorizedTab1Root", from: "onboarding", to: "authorized"), group: "login")
        log.add(.view("onboarding", nil), group: "other")
        log.add(.flow(from: "onboarding", to: "authorized"), group: "login")

        #expect(summary(try audit(log)) == [])
    }

    @Test func aPostconditionCarriesTheStateAtTheCommandAndAtTheGroupsEnd() throws {
        var log = SessionLog.authorized(routes: ["detail"])
        log.group(
            "g", .command("goAuthorizedTab2Root", from: "authorized", to: "authorized"), .push("tab1", from: "detail", to: "list"))

        let result = try audit(log)

        let finding = try onlyFinding(.commandPostcondition, in: result)
        #expect(finding.seq == 1)
        #expect(finding.stateBefore?.stacks["tab1"] == ["detail"])
        #expect(finding.stateAfter?.stacks["tab1"] == ["detail", "list"])
        #expect(finding.expected?.objectValue?["tab"] == .string("tab2"))
    }
}
