import Foundation
import NavAnalytics
import NavModel
import NavSamples
import Testing

@Suite struct CoverageTests {
    /// A route, a modal, a command and a tab planted in a model and never used are listed as
    /// unreached; what the sessions used is not.
    @Test func plantedElementsAreUnreached() throws {
        var json = PoCAppSystem.modelJSON
        json = json.replacingOccurrences(
            of: "\"routes\": [\"step2\", \"step3\"]", with: "\"routes\": [\"step2\", \"step3\", \"plantedRoute\"]")
        json = json.replacingOccurrences(of: "\"paywall\": {", with: "\"plantedModal\": {}, \"paywall\": {")
        json = json.replacingOccurrences(
            of: "\"commands\": {", with: "\"commands\": {\"plantedCommand\": {\"flow\": \"onboarding\"},")
        json = json.replacingOccurrences(of: "\"tabs\": [\"tab1\", \"tab2\"]", with: "\"tabs\": [\"tab1\", \"tab2\", \"plantedTab\"]")
        json = json.replacingOccurrences(of: "\"tab2\": {\"routes\"", with: "\"plantedTab\": {}, \"tab2\": {\"routes\"")
        let model = try NavigationModel.load(json: json)
        let sessions = PoCAppSystem.system.clean().map(\.events)
        let tally = try MemoryFolding(sessions: sessions).fold(CoverageAnalysis(model: model), model: model)
        let report = CoverageReport(model: model, tally: tally)
        let unreached = report.unreached.map { "\($0.kind) \($0.name)" }
        #expect(unreached.contains("route onboarding/plantedRoute"))
        #expect(unreached.contains("modal plantedModal"))
        #expect(unreached.contains("command plantedCommand"))
        #expect(unreached.contains("tab authorized/plantedTab"))
        #expect(!unreached.contains("route onboarding/step2"))
        #expect(!unreached.contains("modal paywall"))
        #expect(!unreached.contains("command goAuthorizedTab1Root"))
        #expect(report.sessions == sessions.count)
        #expect(report.clean == sessions.count)
        #expect(report.json().contains("\"unreached\":["))
    }
}
