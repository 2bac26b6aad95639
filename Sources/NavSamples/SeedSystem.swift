public import NavModel
import NavRouter

/// One of the sample navigation systems (docs/sample-systems.md): its model file, and the sessions
/// that show it, written by driving `NavigationRouter` under that model.
///
/// Each system lives in `SampleLogs/<id>/`: `model.json` (the model text below, byte for byte),
/// `clean.ndjson` (sessions without findings) and `violations.ndjson` (sessions that break the
/// invariants the system states). `navreplay audit SampleLogs/<id>` folds them with that model.
public struct SeedSystem: Sendable {
    /// The directory under `SampleLogs/`, which is also the model's name.
    public var id: String
    /// The system's number (`"000"` … `"004"`).
    public var seed: String
    /// What the app is, in a few words.
    public var title: String
    /// The model file's text.
    public var modelJSON: String
    /// The rule ids that the violating sessions show, sorted.
    public var invariants: [String]
    let cleanSessions: @Sendable () -> [SampleSession]
    let violatingSessions: @Sendable () -> [SampleSession]

    /// The model, loaded from `modelJSON`.
    public var model: NavigationModel {
        do {
            return try NavigationModel.load(json: modelJSON)
        } catch {
            // The texts are constants checked by the tests; this cannot happen at run time.
            fatalError("the model of seed system \(id) is invalid: \(error)")
        }
    }

    /// Sessions without findings.
    public func clean() -> [SampleSession] { cleanSessions() }

    /// Sessions that break the system's invariants (the router's events, tampered with as a
    /// buggy app or a lossy pipeline would).
    public func violating() -> [SampleSession] { violatingSessions() }
}

/// The sample systems in directories of their own: the PoC as its code runs it, the space hub, the
/// modular tabs, the pages with widgets and the registry. (The PoC of the document, with the
/// built-in model, keeps `SampleLogs/clean` and `SampleLogs/violations`.)
public enum SeedSystems {
    public static let all: [SeedSystem] = [
        PoCAppSystem.system, SpaceHubSystem.system, ModularTabsSystem.system, PagesWidgetsSystem.system, RegistrySystem.system,
    ]

    public static func named(_ id: String) -> SeedSystem? {
        all.first { $0.id == id }
    }
}

extension ScenarioDriver {
    /// Performs an action after a pause and insists that the router applied it: a scenario
    /// that the router refuses is a mistake in the scenario, not a sample.
    func act(_ what: String, _ action: (NavigationRouter) -> NavigationResult) {
        think()
        let result = action(router)
        precondition(result == .applied, "scenario step \(what) of \(router.sessionID): \(result)")
    }

    /// Opens a deep link after a pause; it must resolve.
    func link(_ url: String) {
        think()
        let result = router.open(deepLink: url)
        precondition(result == .resolved, "deep link \(url) of \(router.sessionID): \(result)")
    }
}
