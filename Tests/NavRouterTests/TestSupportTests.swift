import NavEvents
import NavModel
import NavReplay
import NavRouter
import NavTestSupport
import Testing

@Suite("Test support")
struct TestSupportTests {
    @Test func seededRandomRepeatsItsStream() {
        var first = SeededRandom(seed: 7)
        var second = SeededRandom(seed: 7)
        var other = SeededRandom(seed: 8)
        let a = (0..<8).map { _ in first.next() }
        #expect(a == (0..<8).map { _ in second.next() })
        #expect(a != (0..<8).map { _ in other.next() })
        var zero = SeededRandom(seed: 0)
        #expect(zero.next() != 0)
    }

    @Test func eventBuilderFillsTheEnvelope() throws {
        var builder = EventBuilder()
        let start = builder.start()
        let group = builder.group([
            .commandApplied(command: "goAuthorizedTab1Root", fromFlow: "onboarding", toFlow: "authorized"),
            .flowSwitch(from: "onboarding", to: "authorized"),
        ])
        #expect(start.seq == 0 && group.map(\.seq) == [1, 2])
        #expect(Set(group.map(\.correlationID)).count == 1 && group[0].correlationID != start.correlationID)
        #expect(Set(([start] + group).map(\.eventID)).count == 3)
        #expect(start.timestamp.text == "2026-11-20T10:00:00.000Z")
        #expect(try sessionLines([start] + group).map(\.location.line) == [1, 2, 3])
        expectReplay([start] + group) {
            $0.flow = "authorized"
        }
    }

    @Test func expectReplayReportsWrongStatesAndFindings() {
        var builder = EventBuilder()
        let events = [builder.start(), builder.make(.flowSwitch(from: "onboarding", to: "authorized"))]
        // Missing the expected finding and the expected flow: two problems, which expectReplay
        // records as test issues.
        let problems = checkReplay(events) { _ in }.problems
        #expect(problems.count == 2)
        #expect(problems.first?.hasPrefix("findings: expected [], found [flow.without_command]") == true, "\(problems)")
        #expect(problems.last == "final state differs, expected → actual:\n  flow: onboarding → authorized")
        expectReplay(events, findings: [.flowWithoutCommand]) { $0.flow = "authorized" }
    }

    @Test func theHarnessFlagsABrokenEnvelope() {
        let harness = RouterHarness()
        // Two actions inside one check: two correlation ids, which expectAction records as a
        // test issue.
        let problems = harness.checkAction {
            $0.push("welcome")
            $0.push("signup")
        }.problems
        #expect(problems.contains { $0.hasPrefix("one action wrote 2 correlation ids") }, "\(problems)")
        #expect(harness.checkAction { $0.push("permissions") }.problems.isEmpty)
    }

    @Test func stateDifferenceNamesEachChange() {
        let before = NavigationModel.poc.initialState
        var after = before
        after.stacks["tab1"] = ["list"]
        after.modals = ["success"]
        #expect(stateDifference(expected: before, actual: before) == nil)
        #expect(stateDifference(expected: before, actual: after) == "expected → actual:\n  tab1: [] → [list]\n  modals: [] → [success]")
    }
}
