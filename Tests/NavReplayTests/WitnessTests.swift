import NavEvents
import NavJSON
import NavModel
import NavReplay
import Testing

/// The witness of a `state.mismatch` of the flow or the tab: the event that last set what the
/// claim contradicts (docs/events-and-rules.md, Findings). Stacks have theirs in `StackRuleTests`.
@Suite struct WitnessTests {
    static func reference(_ seq: Int64, _ name: EventName) -> EventReference {
        EventReference(seq: seq, eventID: "e\(seq)", name: name, location: LineLocation(file: 0, line: seq + 1))
    }

    // MARK: Tabs

    @Test func aWrongFromTabIsWitnessedByTheTabSwitchThatSelectedTheTab() throws {
        var log = SessionLog.authorized(tab: "tab1")
        log.add(.tab(from: "tab1", to: "tab2"))
        log.add(.view("tab2", nil))
        log.add(.tab(from: "tab1", to: "tab2"))

        let result = try audit(log)

        let mismatch = try onlyFinding(.stateMismatch, in: result)
        #expect(mismatch.seq == 3)
        #expect(mismatch.expected == .string("tab2"))
        #expect(mismatch.found == .string("tab1"))
        #expect(mismatch.witness == Self.reference(1, .tabSwitch))
    }

    @Test func theLatestOfSeveralTabSwitchesIsTheWitness() throws {
        var log = SessionLog.authorized(tab: "tab1")
        log.add(.tab(from: "tab1", to: "tab2"))
        log.add(.tab(from: "tab2", to: "tab1"))
        log.add(.tab(from: "tab2", to: "tab1"))

        let result = try audit(log)

        let mismatch = try onlyFinding(.stateMismatch, in: result)
        #expect(mismatch.witness == Self.reference(2, .tabSwitch))
    }

    @Test func aTabRestoredByASnapshotIsWitnessedByItsSessionStart() throws {
        var log = SessionLog.authorized(tab: "tab1")
        log.add(.push("tab1", from: nil, to: "list"))
        log.add(.tab(from: "tab2", to: "tab1"))

        let result = try audit(log)

        let mismatch = try onlyFinding(.stateMismatch, in: result)
        #expect(mismatch.witness == Self.reference(0, .sessionStart))
    }

    // MARK: Flows

    @Test func aWrongFromFlowIsWitnessedByTheFlowSwitchThatSetTheFlow() throws {
        var log = SessionLog.started()
        log.group(
            "login", .command("goAuthorizedTab1Root", from: "onboarding", to: "authorized"),
            .flow(from: "onboarding", to: "authorized"))
        log.add(.view("tab1", nil))
        // The command's claim is adopted: the flow switch after it agrees with it.
        log.group(
            "logout", .command("logoutToOnboarding", from: "onboarding", to: "onboarding"),
            .flow(from: "onboarding", to: "onboarding"))

        let result = try audit(log)

        let mismatch = try onlyFinding(.stateMismatch, in: result)
        #expect(mismatch.seq == 4)
        #expect(mismatch.expected == .string("authorized"))
        #expect(mismatch.found == .string("onboarding"))
        #expect(mismatch.witness == Self.reference(2, .flowSwitch))
    }

    @Test func aFlowSwitchsWrongFromFlowIsWitnessedByTheEarlierFlowSwitch() throws {
        var log = SessionLog.started()
        log.group(
            "login", .command("goAuthorizedTab1Root", from: "onboarding", to: "authorized"),
            .flow(from: "onboarding", to: "authorized"))
        log.group(
            "again", .command("goAuthorizedTab1Root", from: "authorized", to: "authorized"),
            .flow(from: "onboarding", to: "authorized"))

        let result = try audit(log)

        let mismatch = try onlyFinding(.stateMismatch, in: result)
        #expect(mismatch.seq == 4)
        #expect(mismatch.witness == Self.reference(2, .flowSwitch))
    }

    @Test func aFlowRestoredByASnapshotIsWitnessedByItsSessionStart() throws {
        var log = SessionLog.authorized()
        log.group(
            "g", .command("logoutToOnboarding", from: "onboarding", to: "onboarding"),
            .flow(from: "authorized", to: "onboarding"))

        let result = try audit(log)

        let mismatch = try #require(result.findings.first { $0.rule == .stateMismatch })
        #expect(mismatch.seq == 1)
        #expect(mismatch.witness == Self.reference(0, .sessionStart))
    }
}
