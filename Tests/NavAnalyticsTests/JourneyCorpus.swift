import Foundation
import NavAnalytics
import NavEngine
import NavEvents
import NavModel
import NavReplay
import NavResults
import NavRouter
import NavSamples
import NavTestSupport

/// Logs of a sample system for the analytics tests: its clean sample sessions, and sessions
/// written by a router under its model driven by seeded random actions (pushes, pops, tabs,
/// modals, commands, and transactions that pass through a tab and a pop in one group), over
/// two app versions and two platforms, at uneven times.
enum JourneyCorpus {
    static func lines(_ system: SeedSystem, sessions: Int, seed: UInt64) -> [String] {
        var random = SeededRandom(seed: seed)
        var lines = system.clean().flatMap { $0.events.map(\.canonicalJSON) }
        for index in 0..<sessions {
            lines += session(model: system.model, id: "\(system.id)-r\(index)", random: &random).map(\.canonicalJSON)
        }
        return lines
    }

    static func session(model: NavigationModel, id: String, random: inout SeededRandom) -> [NavigationEvent] {
        let sink = InMemoryEventSink()
        let clock = TestClock(start: EventBuilder.defaultStart + Int64.random(in: 0...86_400_000, using: &random), step: 300)
        let router = NavigationRouter(
            model: model, sessionID: id, appVersion: random.chance(0.5) ? "3.2.0" : "3.3.0",
            platform: random.chance(0.7) ? "ios" : "android", sink: sink, clock: clock.now, makeID: IncrementingIDs(prefix: id).next)
        _ = router.start()
        for _ in 0..<Int.random(in: 3...60, using: &random) {
            clock.step = Int64.random(in: 20...9_000, using: &random)
            act(router, &random)
        }
        return sink.events
    }

    private static func act(_ router: NavigationRouter, _ random: inout SeededRandom) {
        let model = router.model
        let routes = model.stacks[router.activeStack ?? ""]?.routes ?? []
        switch Int.random(in: 0..<10, using: &random) {
        case 0, 1, 2: _ = random.pick(routes).map { router.push($0) }
        case 3, 4: _ = router.pop()
        case 5: _ = random.pick(model.flowNames.flatMap { model.flows[$0]?.tabs ?? [] }).map { router.selectTab($0) }
        case 6: _ = random.pick(model.modalNames).map { router.present($0) }
        case 7: _ = router.dismissTop()
        case 8: _ = random.pick(model.commandNames).map { router.apply(command: $0) }
        default:
            let tab = random.pick(model.flowNames.flatMap { model.flows[$0]?.tabs ?? [] })
            _ = router.transaction { tx in
                if let tab { try tx.selectTab(tab) }
                try tx.pop()
            }
        }
    }

    /// Folds a log through the engine into an analysis.
    static func fold<Analysis: JourneyAnalysis>(
        _ analysis: Analysis, path: String, model: NavigationModel, jobs: Int = 2
    ) throws
        -> Analysis.Tally
    {
        var configuration = AuditConfiguration(model: model, jobs: jobs)
        configuration.sessionOptions = SessionAuditOptions(
            recordSteps: true, keepStates: false, recordScreens: false, outlineSteps: true)
        let accumulator = JourneyAccumulator(analysis)
        _ = try AuditEngine(configuration: configuration).run(paths: [path], sink: .accumulating(accumulator))
        return try accumulator.tally()
    }

    /// Whether python3 has duckdb and numpy (scripts/install-test-deps installs them).
    static let oracleAvailable: Bool = {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import duckdb, numpy"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    /// `scripts/journeys_oracle.py`'s document for a log and a funnel of screens.
    static func oracle(_ path: String, steps: [String]) throws -> [String: Any] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Repository.path("scripts/journeys_oracle.py"), path] + steps
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let document = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw OracleFailure(status: process.terminationStatus)
        }
        return document
    }

    struct OracleFailure: Error { var status: Int32 }
}
