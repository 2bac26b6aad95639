import NavJSON
import NavEvents
import NavModel
import NavReplay
@_spi(Testing) import NavRouter
import NavTestSupport
import Testing

@Suite("Live checks")
struct LiveCheckTests {
    @Test func aValidRunFindsNothing() {
        let harness = authorizedHarness()
        harness.router.push("list")
        harness.router.open(deepLink: "poc://tab2/post/1")
        harness.router.apply(command: "logoutToOnboarding")
        #expect(harness.router.violations.isEmpty)
        harness.expectCleanReplay()
    }

    @Test func violationsPrintAsOneLineEach() throws {
        let harness = RouterHarness()
        harness.router.emitUnchecked([.flowSwitch(from: "onboarding", to: "authorized")])
        let violation = try #require(harness.router.violations.first)
        let sessionID = JSONWriter.quoted(violation.sessionID ?? "")
        let eventID = JSONWriter.quoted(violation.eventID ?? "")
        let seq = try #require(violation.seq)
        let expected = "error flow.without_command, session \(sessionID) seq \(seq) (event \(eventID)): \(violation.message)"
        #expect(violation.description == expected)
        // As an array prints it (print, string interpolation, a debugger's po).
        #expect("\(harness.router.violations)" == "[\(expected)]")
    }

    @Test func aBadEventIsCaughtAsItIsWritten() {
        let harness = RouterHarness()
        var seen: [Rule] = []
        harness.router.onViolation = { seen.append($0.rule) }
        // A flow change outside a command, on a stack of another flow.
        harness.router.emitUnchecked([.flowSwitch(from: "onboarding", to: "authorized")])
        #expect(harness.router.violations.map(\.rule) == [.flowWithoutCommand])
        harness.router.emitUnchecked([.routePush(stack: "onboarding", from: nil, to: "welcome", params: nil)])
        #expect(harness.router.violations.map(\.rule) == [.flowWithoutCommand, .stackNotOwned])
        // One action, the same event twice.
        harness.router.emitUnchecked([.modalPresent(modal: "success", style: .sheet), .modalPresent(modal: "success", style: .sheet)])
        #expect(harness.router.violations.map(\.rule).suffix(2) == [.analyticsDuplicate, .modalAlreadyPresented])
        // A command whose group does not do what the model says: found at the group's end.
        harness.router.emitUnchecked([
            .commandApplied(command: "logoutToOnboarding", fromFlow: "authorized", toFlow: "onboarding")
        ])
        #expect(harness.router.violations.last?.rule == .commandPostcondition)
        #expect(seen == harness.router.violations.map(\.rule))
        // Offline, navreplay finds the same.
        let audit = try? auditSession(harness.events)
        #expect(audit?.findings.map(\.rule).sorted() == harness.router.violations.map(\.rule).sorted())
    }

    @Test func withoutLiveChecksNothingIsCollected() {
        let harness = RouterHarness(liveChecks: false)
        harness.router.emitUnchecked([.flowSwitch(from: "onboarding", to: "authorized")])
        #expect(harness.router.violations.isEmpty)
    }
}
