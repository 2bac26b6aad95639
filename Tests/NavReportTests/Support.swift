import Foundation
import NavEvents
import NavResults
import NavEngine
import NavModel
import NavReplay
import NavTestSupport

/// A scratch directory, removed when released.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("navreport-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let file = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
        return file.path
    }
}

/// NDJSON lines of events, each the canonical encoding.
func ndjson(_ events: [NavigationEvent]) -> String {
    events.map { $0.canonicalJSON + "\n" }.joined()
}

/// Audits files with the PoC model, in memory, as the CLI does.
func audit(_ paths: [String], recordSteps: Bool = false) throws -> AuditRun {
    var configuration = AuditConfiguration(model: .poc, jobs: 1)
    configuration.sessionOptions = SessionAuditOptions(recordSteps: recordSteps)
    return try AuditEngine(configuration: configuration).run(paths: paths)
}

/// A session with two findings: a lost event (`seq.gap`, then `state.mismatch`), and a
/// clean session beside it.
enum Sessions {
    static func broken(_ id: String = "s-broken") -> [NavigationEvent] {
        var builder = EventBuilder(sessionID: id)
        var events = [builder.start()]
        events.append(builder.make(.routePush(stack: "onboarding", from: nil, to: "welcome", params: nil)))
        events.append(builder.make(.routePush(stack: "onboarding", from: "welcome", to: "signup", params: nil)))
        builder.nextSeq += 1  // a lost event: the push of "permissions"
        events.append(
            builder.make(.routePop(stack: "onboarding", from: "permissions", to: "signup", amount: .count(1))))
        return events
    }

    static func clean(_ id: String = "s-clean") -> [NavigationEvent] {
        var builder = EventBuilder(sessionID: id)
        return [
            builder.start(),
            builder.make(.routePush(stack: "onboarding", from: nil, to: "welcome", params: nil)),
            builder.make(.routePush(stack: "onboarding", from: "welcome", to: "signup", params: nil)),
        ]
    }
}
