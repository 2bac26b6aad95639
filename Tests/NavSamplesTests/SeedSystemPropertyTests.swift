import NavEvents
import NavModel
import NavReplay
import NavRouter
import NavSamples
import NavTestSupport
import Testing

/// The event-sourcing property, per seed system (the PoC's built-in model included): random
/// sessions on the router under that system's model (its own operations included: space switches, smart dismiss and close,
/// sheets with their own stacks, widgets, registry sheets, deep links) fold back to exactly the
/// router's state, with no finding, and every state they reach restores from its snapshot.
@Suite("Seed systems: event sourcing")
struct SeedSystemPropertyTests {
    /// One system's random actions beyond the router's generic operations.
    struct Profile {
        var model: NavigationModel
        var urls: [String]
        /// System-specific actions: a description and what it does.
        var actions: [(NavigationRouter, inout SeededRandom) -> (String, NavigationResult)]
        /// A "last opened screen" to restore a session from (valid or not).
        var snapshot: (NavigationModel, inout SeededRandom) -> NavigationState
    }

    static let sessions: UInt64 = 250

    // MARK: Profiles

    static var spaceHub: Profile {
        Profile(
            model: SpaceHubSystem.system.model,
            urls: [],
            actions: [
                { router, random in
                    // showScreen in another space (or the same one): the path rebuilt with the
                    // space's home screen, sheets dismissed, then the screen.
                    let home = random.pick(["widgets", "spaceChat", "chat", "discussion", "editor"]) ?? "widgets"
                    let screen = random.pick(["editor", "chat", "first"]) ?? "first"
                    let sameSpace = router.state.flow == "space" && random.chance(0.4)
                    let chat = RouteParams([("chat_id", .string(random.pick(["c-1", "c-2"]) ?? "c-1"))])
                    let result = router.transaction { tx in
                        if sameSpace {
                            if let first = tx.state.modals.first { try tx.dismiss(first) }
                        } else {
                            try tx.apply(command: "openSpace")
                            try tx.push(home, params: home == "chat" ? chat : RouteParams([("space_id", .string("sp"))]))
                        }
                        switch screen {
                        case "editor": try tx.push("editor", params: RouteParams([("object_id", .string("o"))]))
                        case "chat": try tx.openOnce("chat", params: chat)
                        default: break
                        }
                    }
                    return ("showScreen(\(screen), home: \(home), same space: \(sameSpace))", result)
                },
                { router, random in
                    // A chat opened once by value: back to it if it is on the path, else pushed.
                    let id = random.pick(["c-1", "c-2", "c-3"]) ?? "c-1"
                    return ("openOnce(chat \(id))", router.openOnce("chat", params: RouteParams([("chat_id", .string(id))])))
                },
                { router, random in
                    let id = random.pick(["c-1", "c-2"]) ?? "c-1"
                    return ("remove(chat \(id))", router.remove("chat", params: RouteParams([("chat_id", .string(id))])))
                },
                { router, _ in
                    // No active space: sheets dismissed, back to the hub.
                    ("handleActiveSpace(nil)", router.apply(command: "closeSpace"))
                },
            ],
            snapshot: { model, random in
                // The last opened screen: the space's home, and maybe a screen above it.
                var path = [random.pick(["widgets", "spaceChat", "chat", "editor"]) ?? "widgets"]
                if random.chance(0.6) { path.append(random.pick(["editor", "chat", "spaceInfo"]) ?? "editor") }
                if random.chance(0.1) { path.insert("spaceInfo", at: 0) }  // a stale path: refused, falls back
                return NavigationState(flow: "space", stacks: ["path": path])
            })
    }

    static var pocApp: Profile {
        Profile(
            model: PoCAppSystem.system.model,
            urls: [],
            actions: [
                { router, random in
                    let command = random.pick(router.model.commandNames)
                    let action: SuccessAction = random.chance(0.3) ? .dismiss : command.map(SuccessAction.command) ?? .dismiss
                    let style: ModalStyle = random.chance(0.5) ? .sheet : .cover
                    return (
                        "presentSuccess(\(action), \(style))",
                        router.presentSuccess(
                            SuccessPayload(title: "t", message: "m", primaryButton: "b", primaryAction: action), style: style)
                    )
                },
                { router, _ in ("handleSuccessPrimary()", router.handleSuccessPrimary()) },
                { router, random in
                    // The toolbar's pop(2), whatever the depth: clamped.
                    let tab = router.state.tab ?? "tab1"
                    guard router.state.flow == "authorized" else { return ("pop(2) outside the tabs", .unchanged) }
                    return ("pop(2) on \(tab)", router.pop(Int.random(in: 2...4, using: &random)))
                },
            ],
            snapshot: { model, random in
                let flow = random.pick(model.flowNames) ?? "authorized"
                var stacks: [String: [String]] = [:]
                for stack in model.stackNames where random.chance(0.6) {
                    stacks[stack] = Array((model.stacks[stack]?.routes ?? []).prefix(Int.random(in: 0...3, using: &random)))
                }
                let modals = flow == "onboarding" && random.chance(0.3) ? ["paywall"] : []
                return NavigationState(flow: flow, tab: random.pick(["tab1", "tab2"]), stacks: stacks, modals: modals)
            })
    }

    static var modularTabs: Profile {
        Profile(
            model: ModularTabsSystem.system.model,
            urls: [
                "hatch://library/other", "hatch://library/detail/3", "hatch://routine/r-1/edit", "hatch://home/player",
                "hatch://shop/promo", "not a link",
            ],
            actions: [
                { router, random in
                    let context = randomContext(router, &random)
                    return ("dismiss(from: \(context))", router.dismiss(from: context))
                },
                { router, random in
                    let context = randomContext(router, &random)
                    return ("close(from: \(context))", router.close(from: context))
                },
                { router, random in
                    // A destination presented with its own navigation, then a push inside it.
                    let modal = random.pick(["routineEditor", "deviceSetup"]) ?? "routineEditor"
                    let route = random.pick(router.model.stacks[modal]?.routes ?? []) ?? "x"
                    let result = router.transaction { tx in
                        try tx.present(modal, style: modal == "routineEditor" ? .sheet : .cover)
                        try tx.push(route)
                    }
                    return ("present \(modal) and push \(route)", result)
                },
            ],
            snapshot: { model, random in
                let tab = random.pick(model.flows["adult"]?.tabs ?? []) ?? "home"
                var stacks: [String: [String]] = [:]
                for name in ["home", "routine", "library"] where random.chance(0.5) {
                    stacks[name] = Array((model.stacks[name]?.routes ?? []).prefix(Int.random(in: 0...2, using: &random)))
                }
                var modals: [String] = []
                if random.chance(0.4) {
                    modals = ["routineEditor"]
                    stacks["routineEditor"] = ["editStep"]
                }
                if random.chance(0.1) { stacks["deviceSetup"] = ["pairDevice"] }  // its modal is not presented: falls back
                return NavigationState(flow: "adult", tab: tab, stacks: stacks, modals: modals)
            })
    }

    static var pagesWidgets: Profile {
        Profile(
            model: PagesWidgetsSystem.system.model,
            urls: [],
            actions: [
                { router, random in
                    let widget = random.pick(["sideSheet", "dialog", "contextMenu"]) ?? "dialog"
                    return ("activate \(widget)", router.present(widget, style: .overlay))
                },
                { router, _ in ("navigateBack()", router.pop()) },
            ],
            snapshot: { model, random in
                let pages = (0..<Int.random(in: 0...4, using: &random)).map { _ in
                    random.pick(model.stacks["pages"]?.routes ?? []) ?? "bookPage"
                }
                let modals = random.chance(0.3) ? [random.pick(model.modalNames) ?? "dialog"] : []
                return NavigationState(
                    flow: "pages", stacks: ["pages": pages], modals: random.chance(0.05) ? ["dialog", "sideSheet"] : modals)
            })
    }

    static var registry: Profile {
        Profile(
            model: RegistrySystem.system.model,
            urls: [],
            actions: [
                { router, random in
                    let destination = random.pick(router.model.stacks["main"]?.routes ?? []) ?? "MyFeatureNavData"
                    return ("execute(\(destination), .sheet)", RegistrySystem.showInSheet(router, destination))
                },
                { router, random in
                    let destination = random.pick(router.model.stacks["main"]?.routes ?? []) ?? "MyFeatureNavData"
                    return ("execute(\(destination), .push)", router.push(destination, on: "main"))
                },
            ],
            snapshot: { model, random in
                let routes = model.stacks["main"]?.routes ?? []
                let main = (0..<Int.random(in: 0...3, using: &random)).map { _ in random.pick(routes) ?? "ProfileNavData" }
                if random.chance(0.4) {
                    return NavigationState(flow: "app", stacks: ["main": main, "sheet": [random.pick(routes) ?? "x"]], modals: ["sheet"])
                }
                return NavigationState(flow: "app", stacks: ["main": main])
            })
    }

    static var poc: Profile {
        Profile(
            model: .poc,
            urls: ["poc://tab1/detail/7", "poc://tab2/post/9", "poc://settings", "poc://tab2/profile/ann", "poc://nowhere"],
            actions: [
                { router, random in
                    // The global success screen with a primary action mapped to a command (or none).
                    let command = random.pick(router.model.commandNames)
                    let action: SuccessAction = random.chance(0.3) ? .dismiss : command.map(SuccessAction.command) ?? .dismiss
                    return (
                        "presentSuccess(\(action))",
                        router.presentSuccess(SuccessPayload(title: "t", message: "m", primaryButton: "b", primaryAction: action))
                    )
                },
                { router, _ in ("handleSuccessPrimary()", router.handleSuccessPrimary()) },
            ],
            snapshot: { model, random in
                let flow = random.pick(model.flowNames) ?? "authorized"
                var stacks: [String: [String]] = [:]
                for stack in model.stackNames where random.chance(0.6) {
                    stacks[stack] = Array((model.stacks[stack]?.routes ?? []).prefix(Int.random(in: 0...2, using: &random)))
                }
                return NavigationState(flow: flow, tab: random.pick(["tab1", "tab2"]), stacks: stacks, modals: [])
            })
    }

    static func randomContext(_ router: NavigationRouter, _ random: inout SeededRandom) -> NavigationContext {
        switch Int.random(in: 0..<4, using: &random) {
        case 0: .base
        case 1: random.pick(router.state.modals).map(NavigationContext.modal) ?? .visible
        default: .visible
        }
    }

    // MARK: The random session

    /// One random generic operation of the router, on the model's names.
    static func genericAction(
        _ router: NavigationRouter, _ random: inout SeededRandom, urls: [String]
    ) -> (String, NavigationResult) {
        let model = router.model
        func anyStack() -> String? {
            random.chance(0.6) ? nil : random.pick(model.stackNames)
        }
        func anyRoute(_ stack: String?) -> String {
            if random.chance(0.03) { return "unregistered" }
            return random.pick(model.stacks[stack ?? router.activeStack ?? ""]?.routes ?? ["x"]) ?? "x"
        }
        func anyStyle(_ modal: String) -> ModalStyle {
            if random.chance(0.9), let styles = model.modals[modal]?.styles, let style = random.pick(styles) {
                return ModalStyle(rawValue: style) ?? .sheet
            }
            return random.pick(ModalStyle.allCases) ?? .sheet
        }
        switch Int.random(in: 0..<15, using: &random) {
        case 0, 1, 2:
            let stack = anyStack()
            let route = anyRoute(stack)
            return (
                "push(\(route), on: \(stack ?? "nil"))",
                router.push(route, on: stack, params: random.chance(0.3) ? RouteParams([("id", .integer(7))]) : nil)
            )
        case 3:
            let stack = anyStack()
            let depth = router.state.depth(of: stack ?? router.activeStack ?? "")
            let count = Int.random(in: 0...max(depth, 1), using: &random)
            // Above the depth is a deliberate warning (the root is never popped), tested on its own.
            let n = min(count, depth)
            return ("pop(\(n), on: \(stack ?? "nil"))", router.pop(n, on: stack))
        case 4:
            let stack = anyStack()
            return ("popToRoot(on: \(stack ?? "nil"))", router.popToRoot(on: stack))
        case 5:
            let stack = anyStack()
            let route = anyRoute(stack)
            return random.chance(0.5)
                ? ("popTo(\(route), on: \(stack ?? "nil"))", router.popTo(route, on: stack))
                : ("popToFirstOpened(on: \(stack ?? "nil"))", router.popToFirstOpened(on: stack))
        case 6:
            let stack = anyStack()
            let route = anyRoute(stack)
            return ("replaceLast(\(route), on: \(stack ?? "nil"))", router.replaceLast(route, on: stack))
        case 7:
            let stack = anyStack()
            let route = anyRoute(stack)
            let depth = router.state.depth(of: stack ?? router.activeStack ?? "")
            let index = Int.random(in: 0...depth, using: &random)
            return random.chance(0.5)
                ? ("insert(\(route), at: \(index), on: \(stack ?? "nil"))", router.insert(route, at: index, on: stack))
                : ("remove(\(route), from: \(stack ?? "nil"))", router.remove(route, from: stack))
        case 8:
            let stack = anyStack()
            let route = anyRoute(stack)
            return ("openOnce(\(route), on: \(stack ?? "nil"))", router.openOnce(route, on: stack))
        case 9:
            let tab = random.pick(model.flowNames.flatMap { model.flows[$0]?.tabs ?? [] }) ?? "none"
            return ("selectTab(\(tab))", router.selectTab(tab))
        case 10:
            let modal = random.pick(model.modalNames) ?? "none"
            let style = anyStyle(modal)
            return ("present(\(modal), \(style))", router.present(modal, style: style))
        case 11:
            if random.chance(0.5), let modal = random.pick(router.state.modals) {
                return ("dismiss(\(modal))", router.dismiss(modal))
            }
            return ("dismissTop()", router.dismissTop())
        case 12:
            let command = random.pick(model.commandNames) ?? "none"
            return ("apply(command: \(command))", router.apply(command: command))
        case 13:
            guard let url = random.pick(urls) else { return ("dismiss()", router.dismiss()) }
            let result: NavigationResult =
                switch router.open(deepLink: url) {
                case .refused(let reason): .refused(reason)
                default: .applied
                }
            return ("open(deepLink: \(url))", result)
        default:
            // Two generic operations as one transaction: both or neither.
            var inner: [String] = []
            let result = router.transaction { tx in
                for _ in 0..<2 {
                    let route = anyRoute(nil)
                    if random.chance(0.5) {
                        inner.append("push(\(route))")
                        try tx.push(route)
                    } else {
                        inner.append("pop")
                        try tx.pop()
                    }
                }
            }
            return ("transaction { \(inner.joined(separator: "; ")) }", result)
        }
    }

    struct Outcome {
        var failures: [String] = []
        var actions = 0
        var applied = 0
        var events = 0
        var names: Set<EventName> = []
        /// The session's events, as the router wrote them.
        var written: [NavigationEvent] = []
    }

    static func runSession(_ profile: Profile, seed: UInt64) -> Outcome {
        var random = SeededRandom(seed: seed)
        let model = profile.model
        let sink = InMemoryEventSink()
        let clock = TestClock(step: Int64.random(in: 0...1500, using: &random))
        let ids = IncrementingIDs(prefix: "s\(seed)")
        let router = NavigationRouter(
            model: model, sessionID: "\(model.name)-\(seed)", appVersion: "9.9.9", platform: "test", sink: sink,
            liveChecks: seed % 2 == 0, clock: clock.now, makeID: ids.next)
        var outcome = Outcome()
        var log: [String] = []
        if random.chance(0.3) {
            let snapshot = profile.snapshot(model, &random)
            log.append("restore(\(snapshot.json)) → \(router.restore(from: snapshot))")
        } else {
            router.start()
        }
        for _ in 0..<Int.random(in: 20...80, using: &random) {
            let before = sink.events.count
            let stateBefore = router.state
            let (description, result) =
                random.chance(0.35) && !profile.actions.isEmpty
                ? (random.pick(profile.actions) ?? { _, _ in ("none", .unchanged) })(router, &random)
                : genericAction(router, &random, urls: profile.urls)
            let written = sink.events.count - before
            switch result {
            case .applied:
                if written == 0 { outcome.failures.append("\(description): applied but wrote nothing") }
                outcome.applied += 1
            case .unchanged, .refused:
                if written != 0 { outcome.failures.append("\(description): \(result) but wrote \(written) event(s)") }
                if router.state != stateBefore { outcome.failures.append("\(description): \(result) but changed the state") }
            }
            outcome.actions += 1
            log.append("\(description) → \(result)")
        }
        outcome.events = sink.events.count
        outcome.written = sink.events
        outcome.names = Set(sink.events.map(\.name))
        do {
            let audit = try auditSession(sink.events, model: model)
            if !audit.findings.isEmpty {
                outcome.failures.append(
                    "findings: " + audit.findings.map { "\($0.rule.rawValue)@\($0.seq ?? -1): \($0.message)" }.joined(separator: "\n  "))
            }
            if let difference = stateDifference(expected: router.state, actual: audit.finalState) {
                outcome.failures.append("the replayed state is not the router's: \(difference)")
            }
            if audit.events != sink.events.count {
                outcome.failures.append("audit folded \(audit.events) of \(sink.events.count) events")
            }
        } catch {
            outcome.failures.append("an event does not decode: \(error)")
        }
        if !router.violations.isEmpty {
            outcome.failures.append("live violations: \(findingSummary(router.violations))")
        }
        let reopened = NavigationRouter(
            model: model, sessionID: "reopened-\(seed)", appVersion: "9.9.9", sink: InMemoryEventSink(), clock: clock.now,
            makeID: ids.next)
        if reopened.restore(from: router.snapshot()) != .restored || reopened.state != router.state {
            outcome.failures.append("the final snapshot does not restore")
        }
        if !outcome.failures.isEmpty {
            outcome.failures.append("actions:\n  " + log.joined(separator: "\n  "))
        }
        return outcome
    }

    /// Runs the sessions of one system and checks the property; the first failures print
    /// their seed and actions.
    static func check(_ profile: Profile, minimumAppliedShare: Double, names required: Set<EventName>) {
        var failed = 0
        var total = Outcome()
        for seed in 1...sessions {
            let outcome = runSession(profile, seed: seed)
            total.actions += outcome.actions
            total.applied += outcome.applied
            total.events += outcome.events
            total.names.formUnion(outcome.names)
            if !outcome.failures.isEmpty {
                failed += 1
                if failed <= 3 {
                    Issue.record(Comment(rawValue: "\(profile.model.name) seed \(seed): " + outcome.failures.joined(separator: "\n")))
                }
            }
        }
        #expect(failed == 0, "\(failed) of \(sessions) \(profile.model.name) sessions failed; rerun one with runSession(_:seed:)")
        #expect(
            Double(total.applied) >= minimumAppliedShare * Double(total.actions),
            "\(total.applied) of \(total.actions) actions applied, \(total.events) events")
        #expect(required.isSubset(of: total.names), "never written: \(required.subtracting(total.names).map(\.rawValue).sorted())")
    }

    // MARK: The properties

    @Test func pocSessionsReplayToTheRoutersState() {
        Self.check(
            Self.poc, minimumAppliedShare: 0.45,
            names: [.routePush, .routePop, .tabSwitch, .flowSwitch, .commandApplied, .modalPresent, .modalDismiss, .deepLink])
    }

    @Test func spaceHubSessionsReplayToTheRoutersState() {
        Self.check(
            Self.spaceHub, minimumAppliedShare: 0.45,
            names: [
                .routePush, .routePop, .routePopTo, .routeReplace, .routeInsert, .routeRemove, .commandApplied, .flowSwitch,
                .modalPresent, .modalDismiss,
            ])
    }

    @Test func pocAppSessionsReplayToTheRoutersState() {
        Self.check(
            Self.pocApp, minimumAppliedShare: 0.45,
            names: [.routePush, .routePop, .tabSwitch, .flowSwitch, .commandApplied, .modalPresent, .modalDismiss])
    }

    @Test func modularTabsSessionsReplayToTheRoutersState() {
        Self.check(
            Self.modularTabs, minimumAppliedShare: 0.45,
            names: [.routePush, .routePop, .tabSwitch, .commandApplied, .modalPresent, .modalDismiss, .deepLink])
    }

    @Test func pagesWidgetsSessionsReplayToTheRoutersState() {
        Self.check(Self.pagesWidgets, minimumAppliedShare: 0.45, names: [.routePush, .routePop, .modalPresent, .modalDismiss])
    }

    @Test func registrySessionsReplayToTheRoutersState() {
        Self.check(Self.registry, minimumAppliedShare: 0.45, names: [.routePush, .routePop, .modalPresent, .modalDismiss])
    }

    @Test func aSessionRepeatsForItsSeed() {
        for profile in [Self.poc, Self.pocApp, Self.spaceHub, Self.modularTabs, Self.pagesWidgets, Self.registry] {
            let first = Self.runSession(profile, seed: 42)
            let second = Self.runSession(profile, seed: 42)
            #expect(first.events == second.events && first.applied == second.applied, "\(profile.model.name)")
        }
    }
}
