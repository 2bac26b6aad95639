public import NavEvents
public import NavModel
public import NavRouter

/// A session written by driving the router, then possibly broken the way real telemetry
/// breaks (lost, repeated, forged or reordered events), to show a rule.
public struct SampleSession: Sendable {
    public var id: String
    public var events: [NavigationEvent]
    /// Extra raw lines that belong to this session's file (invalid lines), after the events.
    public var rawLines: [String] = []
}

/// A deterministic environment for a router: a clock that advances by seeded steps and
/// seeded UUIDs, so the same scenario always writes the same bytes.
public final class ScenarioDriver {
    public let sink = InMemoryEventSink()
    public let router: NavigationRouter

    public init(
        sessionID: String, seed: UInt64, startMilliseconds: Int64, model: NavigationModel = .pocWithDeepLinks,
        appVersion: String = "3.2.0", platform: String = "ios"
    ) {
        let box = ClockBox(now: startMilliseconds)
        var ids = SplitMix64(seed: seed ^ 0x5EED)
        clock = box
        random = SplitMix64(seed: seed)
        router = NavigationRouter(
            model: model, sessionID: sessionID, appVersion: appVersion, platform: platform, sink: sink,
            clock: { box.now }, makeID: { SystemSources.uuid(using: &ids) })
    }

    private let clock: ClockBox
    private var random: SplitMix64

    /// Lets time pass as a user would between actions (0.4 to 6 seconds).
    public func think() {
        clock.now += Int64(400 + random.next() % 5600)
    }

    /// Performs an action after a pause.
    public func step(_ action: (NavigationRouter) -> Void) {
        think()
        action(router)
    }

    public var events: [NavigationEvent] { sink.events }
}

final class ClockBox {
    var now: Int64
    init(now: Int64) { self.now = now }
}

/// A small, fast, seedable generator (SplitMix64) so samples and benchmarks repeat.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Edits to a router's log: what lost, repeated or forged events look like.
public enum Tamper {
    /// Removes the first event matching `predicate` (a lost event).
    public static func drop(_ events: inout [NavigationEvent], where predicate: (NavigationEvent) -> Bool) {
        if let index = events.firstIndex(where: predicate) { events.remove(at: index) }
    }

    /// An event the app wrote outside the router (a bug), continuing the session's seqs.
    public static func forge(
        after events: [NavigationEvent], _ payload: NavigationEvent.Payload, correlation: String, id: String,
        delayMilliseconds: Int64 = 700
    ) -> NavigationEvent {
        let last = events.last!
        let time = Timestamp(epochMilliseconds: last.timestamp.epochMilliseconds + delayMilliseconds)
        return NavigationEvent(
            eventID: id, sessionID: last.sessionID, seq: last.seq + 1, timestamp: time, correlationID: correlation,
            appVersion: last.appVersion, platform: last.platform, payload: payload)
    }

    /// Renumbers seqs from `start` so that forged events can be spliced in without gaps.
    public static func renumber(_ events: inout [NavigationEvent], from start: Int64 = 0) {
        for index in events.indices { events[index].seq = start + Int64(index) }
    }
}

/// The PoC router's sample sessions: clean ones, and ones that break each rule.
public enum PoCScenarios {
    static let day: Int64 = 1_795_680_000_000  // 2026-11-20T04:00:00Z

    public static func clean() -> [SampleSession] {
        [onboardingHappyPath(), restoredBrowsing(), deepLinks(), logoutFromSuccess()]
    }

    public static func violating() -> [SampleSession] {
        [
            lostEvent(), redeliveredAndConflicting(), noStartAndClock(), bareFlowSwitch(), wrongStacksAndRoutes(),
            modalsAndScreens(), brokenCommand(),
        ]
    }

    /// Onboarding to the authorized tabs through the paywall and the success screen.
    static func onboardingHappyPath() -> SampleSession {
        let driver = ScenarioDriver(sessionID: "s-clean-onboarding", seed: 1, startMilliseconds: day + 3_600_000)
        driver.step { $0.start() }
        for route in ["welcome", "signup", "permissions", "profileSetup"] { driver.step { $0.push(route) } }
        driver.step { $0.present("paywall", style: .sheet) }
        driver.step { $0.dismiss("paywall") }
        driver.step {
            $0.presentSuccess(
                SuccessPayload(
                    title: "Welcome", message: "You're all set", primaryButton: "Start",
                    primaryAction: .command("goAuthorizedTab1Root")))
        }
        driver.step { $0.handleSuccessPrimary() }
        driver.step { $0.push("list") }
        driver.step { $0.push("detail", params: RouteParams([("id", .number("42"))])) }
        driver.step { $0.selectTab("tab2") }
        driver.step { $0.push("feed") }
        driver.step { $0.push("post", params: RouteParams([("post_id", .string("p-7"))])) }
        driver.step { $0.pop() }
        driver.step { $0.selectTab("tab1") }
        driver.step { $0.pop(2) }
        return SampleSession(id: driver.router.sessionID, events: driver.events)
    }

    /// A session restored from a snapshot ("last opened screen"), with the space hub's stack operations.
    static func restoredBrowsing() -> SampleSession {
        let driver = ScenarioDriver(sessionID: "s-clean-restored", seed: 2, startMilliseconds: day + 3_650_000)
        driver.step {
            _ = $0.restore(
                from: NavigationState(
                    flow: "authorized", tab: "tab2", stacks: ["onboarding": [], "tab1": ["list"], "tab2": ["feed", "post"]],
                    modals: []))
        }
        driver.step { $0.pop() }
        driver.step { $0.push("profile") }
        driver.step { $0.selectTab("tab1") }
        driver.step { $0.openOnce("settings") }
        driver.step { $0.push("detail") }
        driver.step { $0.openOnce("settings") }
        driver.step { $0.replaceLast("detail") }
        driver.step { $0.insert("detail", at: 1) }
        driver.step { $0.remove("detail") }
        driver.step { $0.push("detail") }
        driver.step { $0.popTo("list") }
        driver.step { $0.popToRoot() }
        return SampleSession(id: driver.router.sessionID, events: driver.events)
    }

    /// Deep links: resolved with parameters, unsupported (falls back to a safe root), resolved again.
    static func deepLinks() -> SampleSession {
        let driver = ScenarioDriver(sessionID: "s-clean-deeplinks", seed: 3, startMilliseconds: day + 3_700_000)
        driver.step { $0.start() }
        driver.step { $0.push("welcome") }
        driver.step { _ = $0.open(deepLink: "poc://tab2/post/42") }
        driver.step { $0.push("profile") }
        driver.step { _ = $0.open(deepLink: "poc://promo/summer") }
        driver.step { _ = $0.open(deepLink: "poc://tab1/detail/9") }
        driver.step { $0.pop() }
        return SampleSession(id: driver.router.sessionID, events: driver.events)
    }

    /// The success screen's primary action logs out from deep inside the authorized flow.
    static func logoutFromSuccess() -> SampleSession {
        let driver = ScenarioDriver(sessionID: "s-clean-logout", seed: 4, startMilliseconds: day + 3_750_000)
        driver.step { $0.start() }
        driver.step { $0.apply(command: "goAuthorizedTab2Root") }
        driver.step { $0.push("feed") }
        driver.step { $0.push("profile") }
        driver.step { $0.selectTab("tab1") }
        driver.step { $0.push("settings") }
        driver.step {
            $0.presentSuccess(
                SuccessPayload(
                    title: "Account deleted", message: "Goodbye", primaryButton: "OK",
                    primaryAction: .command("logoutToOnboarding")))
        }
        driver.step { $0.handleSuccessPrimary() }
        driver.step { $0.push("welcome") }
        driver.step {
            $0.presentSuccess(SuccessPayload(title: "Saved", message: "", primaryButton: "Close", primaryAction: .dismiss))
        }
        driver.step { $0.handleSuccessPrimary() }
        return SampleSession(id: driver.router.sessionID, events: driver.events)
    }

    // MARK: Violations

    /// One lost push: a gap, then one state.mismatch (after_gap), and nothing after resync.
    static func lostEvent() -> SampleSession {
        let driver = ScenarioDriver(sessionID: "s-bad-lost-event", seed: 11, startMilliseconds: day + 7_200_000)
        driver.step { $0.start() }
        driver.step { $0.apply(command: "goAuthorizedTab1Root") }
        driver.step { $0.push("list") }
        driver.step { $0.push("detail") }
        driver.step { $0.pop() }
        driver.step { $0.push("settings") }
        var events = driver.events
        // The push of "detail" and its screen_view never arrived.
        let lost = events.firstIndex { if case .routePush(_, _, "detail", _) = $0.payload { true } else { false } }!
        events.removeSubrange(lost...(lost + 1))
        return SampleSession(id: driver.router.sessionID, events: events)
    }

    /// A redelivered line (no finding), an event id reused for another event, two events at one seq.
    static func redeliveredAndConflicting() -> SampleSession {
        let driver = ScenarioDriver(sessionID: "s-bad-identity", seed: 12, startMilliseconds: day + 7_300_000)
        driver.step { $0.start() }
        driver.step { $0.push("welcome") }
        driver.step { $0.push("signup") }
        var events = driver.events
        events.append(events[2])  // redelivered by the uploader: counted, not folded again
        var conflicting = events[4]
        conflicting.eventID = events[1].eventID  // a reused event_id with another content
        events[4] = conflicting
        var rival = events[3]  // a second writer at the same seq, later timestamp
        rival.eventID = "rival-writer-0001"
        rival.timestamp = Timestamp(epochMilliseconds: rival.timestamp.epochMilliseconds + 5)
        rival.payload = .screenView(.stack("onboarding", route: "signup"), params: nil)
        events.append(rival)
        return SampleSession(id: driver.router.sessionID, events: events)
    }

    /// The first events were lost (no session_start at seq 0), and the device clock jumped back.
    static func noStartAndClock() -> SampleSession {
        let driver = ScenarioDriver(sessionID: "s-bad-no-start-clock", seed: 13, startMilliseconds: day + 7_400_000)
        driver.step { $0.start() }
        driver.step { $0.push("welcome") }
        driver.step { $0.push("signup") }
        driver.step { $0.push("permissions") }
        var events = Array(driver.events.dropFirst(2))  // session_start and its screen_view lost
        events[3].timestamp = Timestamp(epochMilliseconds: events[2].timestamp.epochMilliseconds - 90_000)
        return SampleSession(id: driver.router.sessionID, events: events)
    }

    /// A coordinator switches the flow directly, without a command, and edits a stack it does not own.
    static func bareFlowSwitch() -> SampleSession {
        let driver = ScenarioDriver(sessionID: "s-bad-flow-switch", seed: 14, startMilliseconds: day + 7_500_000)
        driver.step { $0.start() }
        driver.step { $0.push("welcome") }
        var events = driver.events
        events.append(
            Tamper.forge(after: events, .flowSwitch(from: "onboarding", to: "authorized"), correlation: "bare-switch", id: "forged-0001"))
        events.append(
            Tamper.forge(
                after: events, .routePush(stack: "onboarding", from: "welcome", to: "signup", params: nil),
                correlation: "stale-coordinator", id: "forged-0002"))
        events.append(Tamper.forge(after: events, .tabSwitch(from: "tab1", to: "tab3"), correlation: "tab-tap", id: "forged-0003"))
        events.append(
            Tamper.forge(after: events, .flowSwitch(from: "authorized", to: "settings"), correlation: "bare-switch-2", id: "forged-0004"))
        return SampleSession(id: driver.router.sessionID, events: events)
    }

    /// Unknown stack and route, a second singleton, a pop beyond the stack, an unknown command.
    static func wrongStacksAndRoutes() -> SampleSession {
        let driver = ScenarioDriver(sessionID: "s-bad-stacks", seed: 15, startMilliseconds: day + 7_600_000)
        driver.step { $0.start() }
        driver.step { $0.apply(command: "goAuthorizedTab1Root") }
        driver.step { $0.push("settings") }
        driver.step { $0.pop(5) }  // the router clamps; the event keeps the requested count
        var events = driver.events
        events.append(
            Tamper.forge(
                after: events, .routePush(stack: "tab1", from: nil, to: "settings", params: nil), correlation: "dbl-1", id: "forged-0101"))
        events.append(
            Tamper.forge(
                after: events, .routePush(stack: "tab1", from: "settings", to: "settings", params: nil), correlation: "dbl-2",
                id: "forged-0102"))
        events.append(
            Tamper.forge(
                after: events, .routePush(stack: "tab3", from: nil, to: "x", params: nil), correlation: "old-build", id: "forged-0103"))
        events.append(
            Tamper.forge(
                after: events, .routePush(stack: "tab1", from: "settings", to: "checkout", params: nil), correlation: "unregistered",
                id: "forged-0104"))
        events.append(
            Tamper.forge(
                after: events, .commandApplied(command: "goAuthorizedTab3Root", fromFlow: "authorized", toFlow: "authorized"),
                correlation: "unknown-command", id: "forged-0105"))
        events.append(
            Tamper.forge(
                after: events, .routePopTo(stack: "tab1", from: "checkout", to: "feed"), correlation: "pop-to-missing", id: "forged-0106"))
        return SampleSession(id: driver.router.sessionID, events: events)
    }

    /// Modals where they are not allowed, dismissed twice, and screens that were not visible.
    static func modalsAndScreens() -> SampleSession {
        let driver = ScenarioDriver(sessionID: "s-bad-modals", seed: 16, startMilliseconds: day + 7_700_000)
        driver.step { $0.start() }
        driver.step { $0.present("paywall", style: .sheet) }
        var events = driver.events
        events.append(
            Tamper.forge(after: events, .modalPresent(modal: "paywall", style: .sheet), correlation: "double-tap", id: "forged-0201"))
        events.append(Tamper.forge(after: events, .modalDismiss(modal: "paywall"), correlation: "close-1", id: "forged-0202"))
        events.append(Tamper.forge(after: events, .modalDismiss(modal: "paywall"), correlation: "close-2", id: "forged-0203"))
        events.append(
            Tamper.forge(
                after: events, .screenView(.stack("onboarding", route: "signup"), params: nil), correlation: "view-1", id: "forged-0204"))
        events.append(
            Tamper.forge(
                after: events, .screenView(.stack("onboarding", route: "signup"), params: nil), correlation: "view-1", id: "forged-0205"))
        events.append(
            Tamper.forge(
                after: events, .commandApplied(command: "goAuthorizedTab1Root", fromFlow: "onboarding", toFlow: "authorized"),
                correlation: "go", id: "forged-0206"))
        events.append(
            Tamper.forge(
                after: events, .routePop(stack: "onboarding", from: "signup", to: nil, amount: .toRoot), correlation: "go",
                id: "forged-0207"))
        events.append(Tamper.forge(after: events, .flowSwitch(from: "onboarding", to: "authorized"), correlation: "go", id: "forged-0208"))
        events.append(Tamper.forge(after: events, .modalPresent(modal: "paywall", style: .cover), correlation: "upsell", id: "forged-0209"))
        events.append(Tamper.forge(after: events, .modalPresent(modal: "promo", style: .overlay), correlation: "promo", id: "forged-0210"))
        return SampleSession(id: driver.router.sessionID, events: events)
    }

    /// A logout whose correlation group forgets to reset a stack and to dismiss the modals.
    static func brokenCommand() -> SampleSession {
        let driver = ScenarioDriver(sessionID: "s-bad-command", seed: 17, startMilliseconds: day + 7_800_000)
        driver.step { $0.start() }
        driver.step { $0.apply(command: "goAuthorizedTab2Root") }
        driver.step { $0.push("feed") }
        driver.step { $0.present("success", style: .cover) }
        var events = driver.events
        events.append(
            Tamper.forge(
                after: events, .commandApplied(command: "logoutToOnboarding", fromFlow: "authorized", toFlow: "onboarding"),
                correlation: "logout", id: "forged-0301"))
        events.append(
            Tamper.forge(after: events, .flowSwitch(from: "authorized", to: "onboarding"), correlation: "logout", id: "forged-0302"))
        events.append(Tamper.forge(after: events, .screenView(.modal("success"), params: nil), correlation: "logout", id: "forged-0303"))
        return SampleSession(id: driver.router.sessionID, events: events)
    }
}
