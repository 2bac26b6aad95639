import NavEvents
import NavJSON
import NavModel
import NavReplay
import Testing

/// docs/events-and-rules.md, Sequence: `seq.gap` and `after_gap`, `session.no_start`, `clock.regression`.
@Suite("Session sequence")
struct SessionSequenceTests {
    @Test func aCompleteSessionHasNoFindings() throws {
        var log = SessionLog.started()
        log.add(.push("onboarding", from: nil, to: "welcome"))
        log.add(.view("onboarding", "welcome"))

        let result = try audit(log)

        #expect(summary(result) == [])
        #expect(result.events == 3)
        #expect(result.firstSeq == 0)
        #expect(result.lastSeq == 2)
    }

    @Test func eachHoleIsOneGapAtTheFirstSeqAfterIt() throws {
        var log = SessionLog.started()
        log.add(.push("onboarding", from: nil, to: "welcome"))
        log.lose()
        log.add(.push("onboarding", from: "welcome", to: "signup"))
        log.lose(3)
        log.add(.push("onboarding", from: "signup", to: "permissions"))

        let result = try audit(log)

        #expect(summary(result) == ["seq.gap@3", "seq.gap@7"])
        let gaps = result.findings.filter { $0.rule == .seqGap }
        #expect(gaps.map(\.severity) == [.warning, .warning])
        #expect(gaps.map(\.expected) == [.number("2"), .number("4")])
        #expect(gaps.map(\.found) == [.number("3"), .number("7")])
        #expect(gaps.map(\.afterGap) == [true, true])
        #expect(gaps.map { $0.witness?.seq } == [1, 3])
    }

    @Test func findingsAtAndAfterTheFirstGapCarryAfterGapAndEarlierOnesDoNot() throws {
        var log = SessionLog.started()
        log.add(.push("onboarding", from: "signup", to: "welcome"))  // 1: mismatch, before the gap
        log.lose()
        log.add(.push("onboarding", from: "permissions", to: "signup"))  // 3: the gap and a mismatch
        log.add(.dismiss("paywall"))  // 4: later

        let result = try audit(log)

        #expect(summary(result) == ["state.mismatch@1", "seq.gap@3", "state.mismatch@3", "modal.not_presented@4"])
        #expect(result.findings.map(\.afterGap) == [false, true, true, true])
    }

    @Test func seqsMissingBeforeTheLowestAreNotAGap() throws {
        var log = SessionLog()
        log.nextSeq = 3
        log.add(.push("onboarding", from: nil, to: "welcome"))
        log.add(.push("onboarding", from: "welcome", to: "signup"))

        let result = try audit(log)

        #expect(summary(result) == ["session.no_start@3"])
        let noStart = try onlyFinding(.sessionNoStart, in: result)
        #expect(noStart.severity == .warning)
        #expect(noStart.afterGap == false)
        #expect(result.finalState.stacks["onboarding"] == ["welcome", "signup"])
        #expect(result.finalState.flow == "onboarding")
    }

    @Test func aSessionWithoutSessionStartFoldsFromTheInitialState() throws {
        var log = SessionLog()
        log.add(.push("onboarding", from: nil, to: "welcome"))

        let result = try audit(log)

        #expect(summary(result) == ["session.no_start@0"])
        #expect(result.finalState == NavigationModel.poc.initialState.with(stack: "onboarding", ["welcome"]))
    }

    @Test func aSessionStartAtTheLowestSeqAboveZeroIsANoStart() throws {
        var log = SessionLog()
        log.nextSeq = 2
        log.add(.start())
        log.add(.push("onboarding", from: nil, to: "welcome"))

        let result = try audit(log)

        #expect(summary(result) == ["session.no_start@2"])
    }

    @Test func aSessionStartAfterSeqZeroIsANoStartAndResetsTheState() throws {
        var log = SessionLog.authorized(routes: ["list", "detail"], modals: ["success"])
        log.add(.start())
        log.add(.push("onboarding", from: nil, to: "welcome"))

        let result = try audit(log)

        #expect(summary(result) == ["session.no_start@1"])
        let noStart = try onlyFinding(.sessionNoStart, in: result)
        #expect(noStart.stateAfter == NavigationModel.poc.initialState)
        #expect(result.finalState == NavigationModel.poc.initialState.with(stack: "onboarding", ["welcome"]))
    }

    @Test func aTimestampBeforeThePreviousEventsIsAClockRegression() throws {
        var log = SessionLog.started()
        log.add(.push("onboarding", from: nil, to: "welcome"), timestamp: "2026-11-20T10:00:05Z")
        log.add(.push("onboarding", from: "welcome", to: "signup"), timestamp: "2026-11-20T10:00:04.999Z")
        log.add(.push("onboarding", from: "signup", to: "permissions"), timestamp: "2026-11-20T10:00:05Z")

        let result = try audit(log)

        #expect(summary(result) == ["clock.regression@2"])
        let regression = try onlyFinding(.clockRegression, in: result)
        #expect(regression.severity == .warning)
        #expect(regression.expected == .string("2026-11-20T10:00:05Z"))
        #expect(regression.found == .string("2026-11-20T10:00:04.999Z"))
        #expect(regression.witness?.seq == 1)
    }

    struct ClockCase: CustomTestStringConvertible, Sendable {
        var id: String
        var previous: String
        var next: String
        var regresses: Bool
        var testDescription: String { id }
    }

    static let clockCases: [ClockCase] = [
        ClockCase(
            id: "+01:00 is an hour earlier than the same wall time in Z", previous: "2026-11-20T09:30:00Z",
            next: "2026-11-20T10:00:00+01:00", regresses: true),
        ClockCase(
            id: "a smaller text can be a later instant", previous: "2026-11-20T10:00:00+01:00",
            next: "2026-11-20T09:30:00Z", regresses: false),
        ClockCase(
            id: "the same instant in two offsets", previous: "2026-11-20T10:30:00+01:00", next: "2026-11-20T09:30:00Z",
            regresses: false),
        ClockCase(
            id: "-00:00 is UTC", previous: "2026-11-20T09:30:00.5-00:00", next: "2026-11-20T09:30:00.25Z",
            regresses: true),
        ClockCase(
            id: "equal timestamps", previous: "2026-11-20T09:30:00Z", next: "2026-11-20T09:30:00Z", regresses: false),
        ClockCase(
            id: "across midnight with an offset", previous: "2026-11-20T23:30:00-02:00",
            next: "2026-11-21T01:45:00Z", regresses: false),
    ]

    @Test("clock.regression compares instants", arguments: clockCases)
    func clockRegressionComparesInstants(_ clock: ClockCase) throws {
        var log = SessionLog()
        log.add(.start(), timestamp: clock.previous)
        log.add(.push("onboarding", from: nil, to: "welcome"), timestamp: clock.next)

        let result = try audit(log)

        #expect(summary(result) == (clock.regresses ? ["clock.regression@1"] : []))
    }

    @Test func clockRegressionComparesWithThePreviousFoldedEventNotADuplicateLoser() throws {
        var log = SessionLog.started()
        log.add(.push("onboarding", from: nil, to: "welcome"), timestamp: "2026-11-20T10:00:01Z")
        // A loser at seq 1 stamped much later: it is not folded, so seq 2 does not go back in time.
        log.add(
            .push("onboarding", from: nil, to: "signup"), seq: 1, eventID: "z", timestamp: "2026-11-20T10:30:00Z")
        log.add(.push("onboarding", from: "welcome", to: "signup"), timestamp: "2026-11-20T10:00:02Z")

        let result = try audit(log)

        #expect(summary(result) == ["seq.duplicate@1"])
    }

    @Test func maxFindingsKeepsTheFirstInOutputOrderAndCountsTheRest() throws {
        var log = SessionLog.started()
        log.add(.dismiss("paywall"))
        log.add(.dismiss("success"))
        log.add(.push("tab9", from: nil, to: "x"))

        let result = try audit(log, options: SessionAuditOptions(maxFindings: 1))

        #expect(summary(result) == ["modal.not_presented@1"])
        #expect(result.droppedFindings == [.modalNotPresented: 1, .stackUnknown: 1])
        #expect(result.findingCount == 3)
    }

    /// Findings past the cap are dropped as they pile up (at twice the cap, 1,024 at least), not
    /// held to the session's end: the kept ones and the counts are those of keeping them all.
    @Test(arguments: [0, 10, 600, 3000])
    func findingsPastTheCapAreDroppedAsTheyComeWithTheSameResult(cap: Int) throws {
        var log = SessionLog.authorized(routes: ["list"])
        for index in 0..<2500 {
            // A finding each, and a postcondition found at its group's end: out of seq order.
            if index % 500 == 0 {
                _ = log.group("g\(index)", .command("logoutToOnboarding", from: "authorized", to: "onboarding"), .dismiss("success"))
            } else {
                log.add(.dismiss(index.isMultiple(of: 2) ? "success" : "paywall"))
            }
        }

        let all = try audit(log)
        let capped = try audit(log, options: SessionAuditOptions(maxFindings: cap))

        #expect(all.findings.count > 2500)
        #expect(summary(capped) == Array(summary(all).prefix(cap)))
        #expect(capped.findings.map(\.message) == Array(all.findings.prefix(cap).map(\.message)))
        #expect(capped.findingCount == all.findingCount)
        var dropped: [Rule: Int] = [:]
        for finding in all.findings.dropFirst(cap) { dropped[finding.rule, default: 0] += 1 }
        #expect(capped.droppedFindings == dropped)
    }

    @Test func recordedStepsGiveTheStateAndChangesAfterEachEvent() throws {
        var log = SessionLog.authorized(routes: ["detail"])
        log.group(
            "logout", .command("logoutToOnboarding", from: "authorized", to: "onboarding"),
            .flow(from: "authorized", to: "onboarding"))

        let result = try audit(log, options: SessionAuditOptions(recordSteps: true))

        #expect(result.steps.map(\.event.seq) == [0, 1, 2])
        let states = result.states.materialized
        #expect(states.count == 3)
        #expect(states[1].changes == [])
        #expect(states[2].changes == [.flow(from: "authorized", to: "onboarding")])
        #expect(states[2].state == result.finalState)
        // The postcondition is raised when the group ends, so it belongs to the group's last step.
        #expect(result.steps.map { $0.findings.map(\.rule) } == [[], [], [.commandPostcondition]])
    }

    @Test func untilSeqStopsTheFold() throws {
        var log = SessionLog.started()
        log.add(.push("onboarding", from: nil, to: "welcome"))
        log.add(.push("onboarding", from: "nope", to: "signup"))

        let result = try audit(log, options: SessionAuditOptions(untilSeq: 1))

        #expect(summary(result) == [])
        #expect(result.finalState.stacks["onboarding"] == ["welcome"])
    }
}

extension NavigationState {
    /// This state with one stack replaced.
    func with(stack: String, _ routes: [String]) -> NavigationState {
        var copy = self
        copy.stacks[stack] = routes
        return copy
    }
}
