import NavEvents
import NavJSON
import NavModel
import NavReplay
import Testing

/// Findings come out by seq, then rule id (docs/events-and-rules.md, "Output order"), whatever order the fold
/// raised them in; and the fold can be driven directly, one event at a time.
@Suite("Finding order and the fold")
struct FindingOrderTests {
    @Test func findingsAreOrderedBySeqThenRule() throws {
        var log = SessionLog.started()
        // Raised by the fold as without_command, mismatch, unknown.
        log.add(.flow(from: "authorized", to: "ghost"))
        // Raised at the group's end, after the findings of seq 3.
        log.add(.command("goAuthorizedTab1Root", from: "ghost", to: "authorized"), group: "g")
        log.add(.push("tab9", from: nil, to: "x"))
        // Raised before the fold runs, though its seq is the highest.
        log.add(.view("onboarding", nil), group: "g", eventID: "e1")

        let result = try audit(log)

        #expect(
            summary(result) == [
                "flow.unknown@1", "flow.without_command@1", "state.mismatch@1", "command.postcondition@2",
                "stack.unknown@3", "event_id.conflict@4", "screen.not_visible@4",
            ])
        let keys = result.findings.map { ($0.seq ?? -1, $0.rule.rawValue) }
        let inOrder = zip(keys, keys.dropFirst()).allSatisfy { $0 <= $1 }
        #expect(inOrder)
    }

    @Test func sortForOutputPutsSessionlessFindingsFirstByLocation() {
        func finding(_ rule: Rule, session: String?, seq: Int64?, line: Int64) -> Finding {
            Finding(
                rule: rule, sessionID: session, seq: seq, eventID: nil, location: LineLocation(file: 0, line: line),
                message: "")
        }
        var findings = [
            finding(.stateMismatch, session: "b", seq: 1, line: 1),
            finding(.seqGap, session: "a", seq: 2, line: 2),
            finding(.schemaInvalid, session: nil, seq: nil, line: 9),
            finding(.clockRegression, session: "a", seq: 2, line: 3),
            finding(.schemaInvalid, session: nil, seq: nil, line: 4),
            finding(.analyticsDuplicate, session: "a", seq: 1, line: 5),
        ]

        findings.sortForOutput()

        #expect(
            findings.map { "\($0.sessionID ?? "-")/\($0.seq.map(String.init) ?? "-")/\($0.rule.rawValue)" } == [
                "-/-/schema.invalid", "-/-/schema.invalid", "a/1/analytics.duplicate", "a/2/clock.regression",
                "a/2/seq.gap", "b/1/state.mismatch",
            ])
        #expect(findings.prefix(2).map { $0.location?.line } == [4, 9])
    }

    @Test func everyRuleOfTheContractHasItsIDAndSeverity() {
        let warnings: Set<String> = [
            "seq.gap", "session.no_start", "clock.regression", "stack.out_of_range", "modal.already_presented",
            "screen.not_visible", "analytics.duplicate",
        ]
        let ids = [
            "schema.invalid", "seq.duplicate", "event_id.conflict", "seq.gap", "session.no_start", "clock.regression",
            "state.mismatch", "stack.not_owned", "stack.unknown", "flow.unknown", "flow.without_command",
            "command.unknown", "command.postcondition", "route.unknown", "route.singleton", "route.position",
            "stack.out_of_range", "tab.invalid", "modal.not_allowed", "modal.not_presented", "modal.already_presented",
            "screen.not_visible", "analytics.duplicate",
        ]
        #expect(Set(Rule.allCases.map(\.rawValue)) == Set(ids))
        for id in ids {
            let rule = Rule(rawValue: id)
            #expect(rule?.severity == (warnings.contains(id) ? .warning : .error), "\(id)")
        }
    }

    @Test func theFoldCanBeDrivenOneEventAtATime() throws {
        var log = SessionLog.authorized(routes: ["detail"])
        log.add(.command("logoutToOnboarding", from: "authorized", to: "onboarding"), group: "logout")
        log.add(.flow(from: "authorized", to: "onboarding"), group: "logout")
        let events = try sessionLines(log.lines)
        var fold = NavigationFold(model: .poc)

        var findings: [Finding] = []
        for line in events {
            findings += fold.apply(line.event, at: line.location, contentIdentity: line.decoded.contentIdentity)
        }
        #expect(findings.isEmpty)
        #expect(fold.state.flow == "onboarding")
        #expect(fold.state.stacks["tab1"] == ["detail"])

        let atEnd = fold.endGroup("logout")
        #expect(atEnd.map(\.rule) == [.commandPostcondition])
        #expect(atEnd.first?.seq == 1)
        #expect(fold.endGroup("logout").isEmpty)
        #expect(fold.endAllGroups().isEmpty)
    }

    @Test func theFoldStartsFromAGivenState() throws {
        let restored = NavigationState(
            flow: "authorized", tab: "tab2", stacks: ["onboarding": [], "tab1": [], "tab2": ["feed"]], modals: [])
        var fold = NavigationFold(model: .poc, state: restored)
        var log = SessionLog()
        log.nextSeq = 5
        log.add(.push("tab2", from: "feed", to: "post"))

        let findings = try sessionLines(log.lines).flatMap { fold.apply($0.event) }

        #expect(findings.isEmpty)
        #expect(fold.state == restored.with(stack: "tab2", ["feed", "post"]))
    }
}
