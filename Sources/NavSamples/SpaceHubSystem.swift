import NavEvents
import NavModel
import NavRouter

/// The space hub system as its code runs it: one custom path whose root is the space hub (Anytype's
/// `HomePath`, driven by `SpaceHubCoordinatorViewModel`).
///
/// The path is one stack, `path`, above the hub, owned by two flows: `hub` (no space open: the
/// path holds the hub alone) and `space`. `HomePath` compares whole values (`identity: value`),
/// and its `popTo` goes back to the first match (`pop_to: first`). Opening a space rebuilds the
/// path as the hub and the space's home screen, which its home page setting chooses (widgets,
/// the space chat of a one-to-one space, or an object: a page, a chat, a discussion): a
/// command, `openSpace`, then the home screen, in one transaction with the screen asked for.
/// Chats, space chats and discussions are opened once (`openOnce`, or a pop back to the one on
/// the path); editors are pushed; the header's home button pushes the widgets again
/// (`pageNavigation.pushHome`). Back to the hub is the pop of the home screen with
/// `closeSpace`.
public enum SpaceHubSystem {
    public static let modelJSON = """
        {
          "model_version": 1,
          "name": "space-hub",
          "$comment": "Follows anyproto/anytype-swift at 3095acf0e9: Anytype/Sources/PresentationLayer/Modules/HomeNavigationContainer/HomePath.swift, Anytype/Sources/PresentationLayer/Flows/SpaceHub/SpaceHubCoordinatorViewModel.swift (showScreen, showSpace, pageNavigation, handleActiveSpace), SpaceHubCoordinatorView.swift (its sheets and covers); AnyTypeTests/Home/HomePathTests.swift.",
          "description": "One path above the space hub: values compared whole, popTo to the first match, a space's home screen just above the hub, chats opened once, sheets and covers of the hub's coordinator.",
          "initial": {"flow": "hub"},
          "flows": {
            "hub": {"stack": "path"},
            "space": {"stack": "path"}
          },
          "stacks": {
            "path": {
              "routes": ["widgets", "spaceChat", "chat", "discussion", "editor", "spaceInfo"],
              "singletons": ["spaceChat", "chat", "discussion"],
              "identity": "value",
              "pop_to": "first",
              "positions": [
                {"index": 0, "one_of": [], "flows": ["hub"]},
                {"index": 0, "one_of": ["widgets", "spaceChat", "chat", "discussion", "editor"], "flows": ["space"]}
              ]
            }
          },
          "modals": {
            "profile": {"styles": ["sheet"]},
            "spaceProfile": {"styles": ["sheet"]},
            "chatCreate": {"styles": ["sheet"]},
            "bookmarkCreate": {"styles": ["sheet"]},
            "bookmark": {"styles": ["sheet"]},
            "globalSearch": {"styles": ["sheet"]},
            "spaceManager": {"styles": ["sheet"]},
            "appSettings": {"styles": ["sheet"]},
            "overlayWidgets": {"styles": ["cover"]},
            "camera": {"styles": ["cover"]},
            "preview": {"styles": ["cover"]}
          },
          "commands": {
            "openSpace": {"flow": "space", "reset": ["path"], "dismiss_modals": true},
            "closeSpace": {"flow": "hub", "reset": ["path"], "dismiss_modals": true}
          }
        }
        """

    public static let system = SeedSystem(
        id: "space-hub", seed: "000", title: "Space hub with a custom path", modelJSON: modelJSON,
        invariants: ["command.postcondition", "flow.without_command", "route.position", "route.singleton", "stack.out_of_range"],
        cleanSessions: { [browsing(), channelHome(), restored()] },
        violatingSessions: { [chatTwice(), rootPopped(), switchWithoutRebuild(), staleRestore()] })

    static let start: Int64 = PoCScenarios.day + 10_800_000  // 07:00Z

    static func object(_ id: String) -> RouteParams {
        RouteParams([("object_id", .string(id))])
    }

    static func space(_ id: String) -> RouteParams {
        RouteParams([("space_id", .string(id))])
    }

    static func chat(_ id: String) -> RouteParams {
        RouteParams([("chat_id", .string(id))])
    }

    /// `showScreen` in another space: the path rebuilt as the hub and the space's home screen,
    /// sheets dismissed, then the screen.
    static func openSpace(
        _ tx: inout NavigationTransaction, home: String, params: RouteParams
    ) throws(NavigationRefusal) {
        try tx.apply(command: "openSpace")
        try tx.push(home, params: params)
    }

    // MARK: Clean

    /// A data space (home: widgets): editors pushed, `replace`, chats opened once by value, the
    /// same chat again (back to it, the first match), widgets pushed again from a chat's header,
    /// insert and remove, `popToFirstInSpace`, a sheet, back to the hub.
    static func browsing() -> SampleSession {
        let driver = ScenarioDriver(
            sessionID: "s-hub-browsing", seed: 101, startMilliseconds: start, model: SpaceHubSystem.system.model)
        driver.step { $0.start() }
        driver.act("onSelectSpace: a space whose home is its widgets") {
            $0.transaction { tx in try openSpace(&tx, home: "widgets", params: space("sp-notes")) }
        }
        driver.act("showScreen(.editor)") { $0.push("editor", params: object("page-1")) }
        driver.act("showScreen(.editor)") { $0.push("editor", params: object("page-2")) }
        driver.act("pageNavigation.replace") { $0.replaceLast("editor", params: object("page-3")) }
        driver.act("showScreen(.chat): a chat") { $0.openOnce("chat", params: chat("chat-1")) }
        driver.act("showScreen(.editor) from the chat") { $0.push("editor", params: object("page-4")) }
        driver.act("showScreen(.chat): another chat") { $0.openOnce("chat", params: chat("chat-2")) }
        driver.act("showScreen(.editor)") { $0.push("editor", params: object("page-5")) }
        // The second chat, not the first of the name: the router writes a counted pop.
        driver.act("showScreen(.chat): the second chat again") { $0.openOnce("chat", params: chat("chat-2")) }
        driver.act("pageNavigation.pushHome: the widgets again") { $0.push("widgets", params: space("sp-notes")) }
        driver.act("showScreen(.chat): the first chat again, back to it") { $0.openOnce("chat", params: chat("chat-1")) }
        driver.act("insert the space's settings") { $0.insert("spaceInfo", at: 1, params: space("sp-notes")) }
        driver.act("remove them") { $0.remove("spaceInfo", params: space("sp-notes")) }
        driver.act("showScreen(.editor)") { $0.push("editor", params: object("page-6")) }
        driver.act("popToFirstInSpace") { $0.popToFirstOpened() }
        driver.act("showScreen(.editor)") { $0.push("editor", params: object("page-7")) }
        driver.act("showScreen(.widget): openOnce, back to the home") { $0.openOnce("widgets", params: space("sp-notes")) }
        driver.act("a member's profile") { $0.present("profile", style: .sheet) }
        driver.act("close it") { $0.dismiss("profile") }
        driver.act("back to the hub") {
            $0.transaction { tx in
                try tx.pop()
                try tx.apply(command: "closeSpace")
            }
        }
        return SampleSession(id: driver.router.sessionID, events: driver.events)
    }

    /// A channel whose home page is a chat (the home slot holds a `ChatCoordinatorData`): the
    /// same chat asked for again pops back to it; a one-to-one space opens on its space chat.
    static func channelHome() -> SampleSession {
        let driver = ScenarioDriver(
            sessionID: "s-hub-channel", seed: 103, startMilliseconds: start + 30_000, model: SpaceHubSystem.system.model)
        driver.step { $0.start() }
        driver.act("showScreen(.chat) in a channel whose home is that chat") {
            $0.transaction { tx in
                try openSpace(&tx, home: "chat", params: chat("chat-7"))
                try tx.openOnce("chat", params: chat("chat-7"))
            }
        }
        driver.act("showScreen(.discussion)") { $0.openOnce("discussion", params: RouteParams([("discussion_id", .string("d-1"))])) }
        driver.act("showScreen(.editor)") { $0.push("editor", params: object("page-8")) }
        driver.act("showScreen(.chat): the home chat, first on the path") { $0.openOnce("chat", params: chat("chat-7")) }
        driver.act("the widgets overlay") { $0.present("overlayWidgets", style: .cover) }
        driver.act("close it") { $0.dismiss("overlayWidgets") }
        driver.act("a one-to-one space opens on its space chat") {
            $0.transaction { tx in try openSpace(&tx, home: "spaceChat", params: space("sp-dm")) }
        }
        driver.act("search") { $0.present("globalSearch", style: .sheet) }
        driver.act("a result in the space: sheets dismissed, the editor pushed") {
            $0.transaction { tx in
                try tx.dismiss("globalSearch")
                try tx.push("editor", params: object("page-9"))
            }
        }
        return SampleSession(id: driver.router.sessionID, events: driver.events)
    }

    /// The last opened screen restored (a chat above the widgets of a space), then a move to an
    /// editor in another space, with sheets dismissed by the switch.
    static func restored() -> SampleSession {
        let driver = ScenarioDriver(
            sessionID: "s-hub-restored", seed: 102, startMilliseconds: start + 60_000, model: SpaceHubSystem.system.model)
        driver.step {
            _ = $0.restore(from: NavigationState(flow: "space", tab: nil, stacks: ["path": ["widgets", "chat"]], modals: []))
        }
        driver.act("back to the widgets") { $0.pop() }
        driver.act("create a chat") { $0.present("chatCreate", style: .sheet) }
        driver.act("showScreen(.editor) in another space") {
            $0.transaction { tx in
                try openSpace(&tx, home: "widgets", params: space("sp-notes"))
                try tx.push("editor", params: object("page-7"))
            }
        }
        driver.act("preview a file") { $0.present("preview", style: .cover) }
        driver.act("close the preview") { $0.dismissTop() }
        driver.act("back") { $0.pop() }
        driver.act("back to the hub") {
            $0.transaction { tx in
                try tx.pop()
                try tx.apply(command: "closeSpace")
            }
        }
        return SampleSession(id: driver.router.sessionID, events: driver.events)
    }

    // MARK: Violations

    /// A chat pushed while the same chat (the same value) is on the path: `showScreen` pops
    /// back to it instead.
    static func chatTwice() -> SampleSession {
        let driver = ScenarioDriver(
            sessionID: "s-hub-bad-chat", seed: 111, startMilliseconds: start + 3_600_000, model: SpaceHubSystem.system.model)
        driver.step { $0.start() }
        driver.act("open a space") { $0.transaction { tx in try openSpace(&tx, home: "widgets", params: space("sp-notes")) } }
        driver.act("a chat") { $0.openOnce("chat", params: chat("chat-1")) }
        driver.act("an editor") { $0.push("editor", params: object("page-1")) }
        var events = driver.events
        events.append(
            Tamper.forge(
                after: events, .routePush(stack: "path", from: "editor", to: "chat", params: chat("chat-1")), correlation: "chat-again",
                id: "hub-forged-0001"))
        return SampleSession(id: driver.router.sessionID, events: events)
    }

    /// A pop of three (`HomePath.pop()` removes one and keeps the hub), and the space's
    /// settings just above the hub, where only a home screen stands.
    static func rootPopped() -> SampleSession {
        let driver = ScenarioDriver(
            sessionID: "s-hub-bad-root", seed: 112, startMilliseconds: start + 3_700_000, model: SpaceHubSystem.system.model)
        driver.step { $0.start() }
        driver.act("open a space") { $0.transaction { tx in try openSpace(&tx, home: "widgets", params: space("sp-notes")) } }
        driver.act("open an editor") { $0.push("editor") }
        var events = driver.events
        events.append(
            Tamper.forge(
                after: events, .routePop(stack: "path", from: "editor", to: nil, amount: .count(3)), correlation: "back-x3",
                id: "hub-forged-0101"))
        events.append(
            Tamper.forge(
                after: events, .routePush(stack: "path", from: nil, to: "spaceInfo", params: nil), correlation: "open-settings",
                id: "hub-forged-0102"))
        return SampleSession(id: driver.router.sessionID, events: events)
    }

    /// A move to another space that does not rebuild the path, and a return to the hub outside
    /// any command, with the path still there.
    static func switchWithoutRebuild() -> SampleSession {
        let driver = ScenarioDriver(
            sessionID: "s-hub-bad-switch", seed: 113, startMilliseconds: start + 3_800_000, model: SpaceHubSystem.system.model)
        driver.step { $0.start() }
        driver.act("open a space") { $0.transaction { tx in try openSpace(&tx, home: "widgets", params: space("sp-notes")) } }
        var events = driver.events
        events.append(
            Tamper.forge(
                after: events, .commandApplied(command: "openSpace", fromFlow: "space", toFlow: "space"), correlation: "switch",
                id: "hub-forged-0201"))
        events.append(
            Tamper.forge(
                after: events, .routePush(stack: "path", from: "widgets", to: "chat", params: chat("chat-3")), correlation: "switch",
                id: "hub-forged-0202", delayMilliseconds: 0))
        events.append(
            Tamper.forge(after: events, .flowSwitch(from: "space", to: "hub"), correlation: "space-gone", id: "hub-forged-0203"))
        return SampleSession(id: driver.router.sessionID, events: events)
    }

    /// A persisted last-opened path that is no longer valid: the space's settings right above
    /// the hub. (The same chat twice is not found in a snapshot: it names routes without their
    /// parameters, which make a chat's value.)
    static func staleRestore() -> SampleSession {
        let driver = ScenarioDriver(
            sessionID: "s-hub-bad-restore", seed: 114, startMilliseconds: start + 3_900_000, model: SpaceHubSystem.system.model)
        driver.step {
            _ = $0.restore(from: NavigationState(flow: "space", tab: nil, stacks: ["path": ["widgets", "chat", "editor"]], modals: []))
        }
        driver.act("back to the chat") { $0.pop() }
        var events = driver.events
        // What an app without the router's checks persisted and wrote instead.
        events[0].payload = .sessionStart(
            snapshot: NavigationState(flow: "space", tab: nil, stacks: ["path": ["spaceInfo", "chat", "chat", "editor"]], modals: []))
        return SampleSession(id: driver.router.sessionID, events: events)
    }
}
