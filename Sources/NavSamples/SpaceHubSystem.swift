import NavEvents
import NavModel
import NavRouter

/// Seed 000: one custom path whose root is the space hub (Anytype's `HomePath`).
///
/// The path is one stack, `path`, owned by three flows, one per kind of active space: `hub`
/// (no space), `dataSpace` and `chatSpace`. The screen just above the hub (index 0 of the
/// stack, index 1 of the app's path) is the one the space's kind requires, stated with
/// flow-bound positions. `showScreen` in another space is a transaction: a command that
/// rebuilds the path for the space (`openDataSpace`, `openChatSpace`), then the screen. A
/// change of the space's kind (`SpaceHubPathUXTypeHelper`) is a command that switches the flow,
/// with the path corrected in the same correlation group.
public enum SpaceHubSystem {
    public static let modelJSON = """
        {
          "model_version": 1,
          "name": "space-hub",
          "description": "A custom path whose root is the space hub; widgets and chats open once; the screen above the hub depends on the space's kind.",
          "initial": {"flow": "hub"},
          "flows": {
            "hub": {"stack": "path"},
            "dataSpace": {"stack": "path"},
            "chatSpace": {"stack": "path"}
          },
          "stacks": {
            "path": {
              "routes": ["widgets", "spaceChat", "editor", "chat", "spaceInfo"],
              "singletons": ["widgets", "spaceChat", "chat"],
              "positions": [
                {"index": 0, "one_of": [], "flows": ["hub"]},
                {"index": 0, "one_of": ["widgets"], "flows": ["dataSpace"]},
                {"index": 0, "one_of": ["spaceChat"], "flows": ["chatSpace"]}
              ]
            }
          },
          "modals": {
            "alert": {"styles": ["sheet"]},
            "bookmark": {"styles": ["sheet"]},
            "spaceInfo": {"styles": ["sheet"]},
            "preview": {"styles": ["cover"]}
          },
          "commands": {
            "openDataSpace": {"flow": "dataSpace", "reset": ["path"], "dismiss_modals": true},
            "openChatSpace": {"flow": "chatSpace", "reset": ["path"], "dismiss_modals": true},
            "closeSpace": {"flow": "hub", "reset": ["path"], "dismiss_modals": true},
            "spaceBecameData": {"flow": "dataSpace"},
            "spaceBecameChat": {"flow": "chatSpace"}
          }
        }
        """

    public static let system = SeedSystem(
        id: "space-hub", seed: "000", title: "Space hub with a custom path", modelJSON: modelJSON,
        invariants: ["command.postcondition", "flow.without_command", "route.position", "route.singleton", "stack.out_of_range"],
        cleanSessions: { [browsing(), restored()] },
        violatingSessions: { [kindNotFollowed(), rootPopped(), switchWithoutRebuild(), staleRestore()] })

    static let start: Int64 = PoCScenarios.day + 10_800_000  // 07:00Z

    static func object(_ id: String) -> RouteParams {
        RouteParams([("object_id", .string(id))])
    }

    static func space(_ id: String) -> RouteParams {
        RouteParams([("space_id", .string(id))])
    }

    // MARK: Clean

    /// From the hub into a data space, every `HomePath` operation, a chat space, a change of
    /// the space's kind, and back to the hub.
    static func browsing() -> SampleSession {
        let driver = ScenarioDriver(
            sessionID: "s-hub-browsing", seed: 101, startMilliseconds: start, model: SpaceHubSystem.system.model)
        driver.step { $0.start() }
        // showScreen(.widget) in a data space: the path is rebuilt as [hub, widgets].
        driver.act("open a data space") {
            $0.transaction { tx in
                try tx.apply(command: "openDataSpace")
                try tx.openOnce("widgets", params: space("sp-notes"))
            }
        }
        driver.act("open an editor") { $0.push("editor", params: object("page-1")) }
        driver.act("open another editor") { $0.push("editor", params: object("page-2")) }
        driver.act("replaceLast") { $0.replaceLast("editor", params: object("page-3")) }
        driver.act("openOnce a chat") { $0.openOnce("chat", params: object("chat-1")) }
        driver.act("open an editor from the chat") { $0.push("editor", params: object("page-4")) }
        driver.act("openOnce the chat again: back to it") { $0.openOnce("chat") }
        driver.act("insert the space's settings") { $0.insert("spaceInfo", at: 1) }
        driver.act("remove them") { $0.remove("spaceInfo") }
        driver.act("popToFirstOpened") { $0.popToFirstOpened() }
        driver.act("open an editor") { $0.push("editor", params: object("page-5")) }
        driver.act("popTo widgets") { $0.popTo("widgets") }
        // showScreen(.chat) in a chat space: [hub, spaceChat, chat].
        driver.act("open a chat in a chat space") {
            $0.transaction { tx in
                try tx.apply(command: "openChatSpace")
                try tx.openOnce("spaceChat", params: space("sp-team"))
                try tx.openOnce("chat", params: object("chat-9"))
            }
        }
        driver.act("show a bookmark") { $0.present("bookmark", style: .sheet) }
        driver.act("close it") { $0.dismiss("bookmark") }
        driver.act("back to the space chat") { $0.pop() }
        // The space becomes a data space: the helper puts widgets at index 1, in the same group.
        driver.act("the space's kind changes") {
            $0.transaction { tx in
                try tx.apply(command: "spaceBecameData")
                try tx.insert("widgets", at: 0, params: space("sp-team"))
                try tx.remove("spaceChat")
            }
        }
        driver.act("back to the hub") { $0.apply(command: "closeSpace") }
        return SampleSession(id: driver.router.sessionID, events: driver.events)
    }

    /// The last opened screen (a chat in a chat space) restored as a snapshot, then a move to
    /// an editor in a data space, with sheets dismissed by the switch.
    static func restored() -> SampleSession {
        let driver = ScenarioDriver(
            sessionID: "s-hub-restored", seed: 102, startMilliseconds: start + 60_000, model: SpaceHubSystem.system.model)
        driver.step {
            _ = $0.restore(
                from: NavigationState(flow: "chatSpace", tab: nil, stacks: ["path": ["spaceChat", "chat"]], modals: []))
        }
        driver.act("back to the space chat") { $0.pop() }
        driver.act("an alert") { $0.present("alert", style: .sheet) }
        // showScreen(.editor) in another space dismisses the sheet and rebuilds the path.
        driver.act("open an editor in a data space") {
            $0.transaction { tx in
                try tx.apply(command: "openDataSpace")
                try tx.openOnce("widgets", params: space("sp-notes"))
                try tx.push("editor", params: object("page-7"))
            }
        }
        driver.act("preview a file") { $0.present("preview", style: .cover) }
        driver.act("close the preview") { $0.dismissTop() }
        driver.act("back") { $0.pop() }
        driver.act("back to the hub") { $0.apply(command: "closeSpace") }
        return SampleSession(id: driver.router.sessionID, events: driver.events)
    }

    // MARK: Violations

    /// The space became a chat space but the path kept the widgets above the hub; then a
    /// second widgets screen is pushed instead of opened once.
    static func kindNotFollowed() -> SampleSession {
        let driver = ScenarioDriver(
            sessionID: "s-hub-bad-kind", seed: 111, startMilliseconds: start + 3_600_000, model: SpaceHubSystem.system.model)
        driver.step { $0.start() }
        driver.act("open a data space") {
            $0.transaction { tx in
                try tx.apply(command: "openDataSpace")
                try tx.push("widgets")
            }
        }
        driver.act("open an editor") { $0.push("editor", params: object("page-1")) }
        var events = driver.events
        events.append(
            Tamper.forge(
                after: events, .commandApplied(command: "spaceBecameChat", fromFlow: "dataSpace", toFlow: "chatSpace"),
                correlation: "ux-type", id: "hub-forged-0001"))
        events.append(
            Tamper.forge(
                after: events, .flowSwitch(from: "dataSpace", to: "chatSpace"), correlation: "ux-type", id: "hub-forged-0002",
                delayMilliseconds: 0))
        events.append(
            Tamper.forge(
                after: events, .routePush(stack: "path", from: "editor", to: "widgets", params: nil), correlation: "widgets-again",
                id: "hub-forged-0003"))
        return SampleSession(id: driver.router.sessionID, events: events)
    }

    /// `pop()` past the root, and an editor pushed directly above the hub of a data space.
    static func rootPopped() -> SampleSession {
        let driver = ScenarioDriver(
            sessionID: "s-hub-bad-root", seed: 112, startMilliseconds: start + 3_700_000, model: SpaceHubSystem.system.model)
        driver.step { $0.start() }
        driver.act("open a data space") {
            $0.transaction { tx in
                try tx.apply(command: "openDataSpace")
                try tx.push("widgets")
            }
        }
        driver.act("open an editor") { $0.push("editor") }
        var events = driver.events
        events.append(
            Tamper.forge(
                after: events, .routePop(stack: "path", from: "editor", to: nil, amount: .count(3)), correlation: "back-x3",
                id: "hub-forged-0101"))
        events.append(
            Tamper.forge(
                after: events, .routePush(stack: "path", from: nil, to: "editor", params: nil), correlation: "open-editor",
                id: "hub-forged-0102"))
        return SampleSession(id: driver.router.sessionID, events: events)
    }

    /// A space switch that does not rebuild the path, and a kind change outside any command.
    static func switchWithoutRebuild() -> SampleSession {
        let driver = ScenarioDriver(
            sessionID: "s-hub-bad-switch", seed: 113, startMilliseconds: start + 3_800_000, model: SpaceHubSystem.system.model)
        driver.step { $0.start() }
        driver.act("open a data space") {
            $0.transaction { tx in
                try tx.apply(command: "openDataSpace")
                try tx.push("widgets")
            }
        }
        var events = driver.events
        events.append(
            Tamper.forge(
                after: events, .commandApplied(command: "openChatSpace", fromFlow: "dataSpace", toFlow: "chatSpace"), correlation: "switch",
                id: "hub-forged-0201"))
        events.append(
            Tamper.forge(
                after: events, .flowSwitch(from: "dataSpace", to: "chatSpace"), correlation: "switch", id: "hub-forged-0202",
                delayMilliseconds: 0))
        events.append(
            Tamper.forge(
                after: events, .routePush(stack: "path", from: "widgets", to: "chat", params: nil), correlation: "switch",
                id: "hub-forged-0203", delayMilliseconds: 0))
        events.append(
            Tamper.forge(after: events, .flowSwitch(from: "chatSpace", to: "dataSpace"), correlation: "subscription", id: "hub-forged-0204")
        )
        return SampleSession(id: driver.router.sessionID, events: events)
    }

    /// A persisted last-opened path that is no longer valid: an editor right above the hub of
    /// a data space, and the same chat twice.
    static func staleRestore() -> SampleSession {
        let driver = ScenarioDriver(
            sessionID: "s-hub-bad-restore", seed: 114, startMilliseconds: start + 3_900_000, model: SpaceHubSystem.system.model)
        driver.step {
            _ = $0.restore(
                from: NavigationState(flow: "dataSpace", tab: nil, stacks: ["path": ["widgets", "chat", "editor"]], modals: []))
        }
        driver.act("back to the chat") { $0.pop() }
        var events = driver.events
        // What an app without the router's checks persisted and wrote instead.
        events[0].payload = .sessionStart(
            snapshot: NavigationState(flow: "dataSpace", tab: nil, stacks: ["path": ["editor", "chat", "chat", "editor"]], modals: []))
        return SampleSession(id: driver.router.sessionID, events: events)
    }
}
