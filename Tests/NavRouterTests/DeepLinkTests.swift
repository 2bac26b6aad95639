import NavEvents
import NavModel
import NavReplay
import NavRouter
import NavTestSupport
import Testing

@Suite("Deep links")
struct DeepLinkTests {
    @Test func aResolvedLinkIsOneGroupStartingWithDeepLink() {
        let harness = RouterHarness()
        let (result, events) = harness.expectActionResult { $0.open(deepLink: "poc://tab2/post/42") }
        #expect(result == .resolved)
        let id = RouteParams([("id", .string("42"))])
        #expect(
            events.payloads == [
                .deepLink(url: "poc://tab2/post/42", outcome: .resolved),
                .commandApplied(command: "goAuthorizedTab2Root", fromFlow: "onboarding", toFlow: "authorized"),
                .flowSwitch(from: "onboarding", to: "authorized"),
                .tabSwitch(from: "tab1", to: "tab2"),
                .routePush(stack: "tab2", from: nil, to: "feed", params: nil),
                .routePush(stack: "tab2", from: "feed", to: "post", params: id),
                screen("tab2", "post", params: id),
            ])
        #expect(harness.state.stacks["tab2"] == ["feed", "post"])
        #expect(harness.router.routeParams(on: "tab2") == [nil, id])
        harness.expectCleanReplay()
    }

    @Test func aLinkResetsTheStackItPushesOn() {
        let harness = authorizedHarness()
        harness.router.push("settings")
        harness.router.push("list")
        let events = harness.expectAction { #expect($0.open(deepLink: "poc://settings") == .resolved) }
        #expect(
            events.payloads == [
                .deepLink(url: "poc://settings", outcome: .resolved),
                .commandApplied(command: "goAuthorizedTab1Root", fromFlow: "authorized", toFlow: "authorized"),
                .routePop(stack: "tab1", from: "list", to: nil, amount: .toRoot),
                .routePush(stack: "tab1", from: nil, to: "settings", params: nil),
                screen("tab1", "settings"),
            ])
        harness.expectCleanReplay()
    }

    @Test func queryFragmentAndPercentEscapesAreHandled() {
        let harness = RouterHarness()
        #expect(harness.router.open(deepLink: "poc://tab2/profile/J%C3%BCrgen?ref=mail#top") == .resolved)
        #expect(harness.router.routeParams(on: "tab2") == [RouteParams([("user", .string("Jürgen"))])])
        harness.expectCleanReplay()
    }

    @Test(arguments: [
        ("poc://nowhere", DeepLinkFallbackReason.noMatch),
        ("poc://tab1/detail", .noMatch),
        ("not a url", .invalidURL),
        ("://tab1", .invalidURL),
        ("poc://tab1/detail/%ZZ", .invalidURL),
    ])
    func anUnsupportedLinkFallsBackToTheSafeRoot(url: String, reason: DeepLinkFallbackReason) {
        let harness = onboardingHarness(["welcome"])
        let (result, events) = harness.expectActionResult { $0.open(deepLink: url) }
        #expect(result == .fallback(reason))
        #expect(
            events.payloads == [
                .deepLink(url: url, outcome: .fallback),
                .commandApplied(command: "goAuthorizedTab1Root", fromFlow: "onboarding", toFlow: "authorized"),
                .flowSwitch(from: "onboarding", to: "authorized"),
                screen("tab1", nil),
            ])
        harness.expectCleanReplay()
    }

    @Test func anEmptyURLIsRefused() {
        let harness = RouterHarness()
        #expect(harness.router.open(deepLink: "") == .refused(.emptyURL))
        #expect(harness.events.count == 2)
    }

    static let linkModel: NavigationModel = {
        do {
            return try NavigationModel.load(
                json: """
                    {"model_version": 1, "name": "links", "initial": {"flow": "hub"},
                     "flows": {"hub": {"stack": "space"}, "main": {"tabs": ["home", "me"]}},
                     "stacks": {"space": {"routes": ["widgets", "editor"]}, "home": {"routes": ["a"]}, "me": {}},
                     "modals": {"overlay": {}},
                     "commands": {"toMain": {"flow": "main", "tab": "home"}},
                     "deep_links": {"links": [
                       {"pattern": "editor/:id", "steps": [{"stack": "space", "push": "editor"}]},
                       {"pattern": "home/:id", "steps": [{"stack": "home", "push": "a"}]},
                       {"pattern": "broken", "command": "toMain", "steps": [{"stack": "home", "push": "nope"}]},
                       {"pattern": "wander", "command": "toMain", "steps": [{"tab": "me"}]},
                       {"pattern": "overlay", "steps": [{"present": "overlay", "style": "overlay"}]}
                     ]}}
                    """)
        } catch {
            fatalError("\(error)")
        }
    }()

    @Test func withoutAFallbackCommandAFallbackChangesNothing() {
        let harness = RouterHarness(model: Self.linkModel)
        let (result, events) = harness.expectActionResult { $0.open(deepLink: "links://nowhere") }
        #expect(result == .fallback(.noMatch))
        #expect(events.payloads == [.deepLink(url: "links://nowhere", outcome: .fallback)])
        harness.expectCleanReplay()
    }

    @Test func aLinkWithoutCommandWorksInTheCurrentFlowOnly() {
        let harness = RouterHarness(model: Self.linkModel)
        var events = harness.expectAction { #expect($0.open(deepLink: "links://editor/7") == .resolved) }
        let id = RouteParams([("id", .string("7"))])
        #expect(
            events.payloads == [
                .deepLink(url: "links://editor/7", outcome: .resolved),
                .routePush(stack: "space", from: nil, to: "editor", params: id),
                screen("space", "editor", params: id),
            ])
        // "home" belongs to another flow, and the link has no command to get there.
        let result = harness.expectActionResult { $0.open(deepLink: "links://home/1") }
        #expect(result.result == .fallback(.refused(.stackNotOwned(stack: "home", flow: "hub"))))
        events = result.events
        #expect(events.payloads == [.deepLink(url: "links://home/1", outcome: .fallback)])
        harness.expectCleanReplay()
    }

    @Test func aRefusedStepOrABrokenPostconditionFallsBack() {
        let harness = RouterHarness(model: Self.linkModel)
        #expect(harness.router.open(deepLink: "links://broken") == .fallback(.refused(.unknownRoute("nope", stack: "home"))))
        #expect(harness.router.open(deepLink: "links://wander") == .fallback(.refused(.commandPostcondition(command: "toMain"))))
        #expect(harness.state.flow == "hub")
        #expect(harness.router.open(deepLink: "links://overlay") == .resolved)
        // Presenting what is presented: nothing to do, but the link is still logged.
        #expect(harness.router.open(deepLink: "links://overlay") == .resolved)
        #expect(harness.events.last?.payload == .deepLink(url: "links://overlay", outcome: .resolved))
        harness.expectCleanReplay()
    }

    @Test func urlParsing() throws {
        let url = try #require(DeepLinkURL("poc://tab2//post/a%2Fb/?x=1"))
        #expect(url.scheme == "poc")
        #expect(url.segments == ["tab2", "post", "a/b"])
        #expect(DeepLinkURL("poc://")?.segments == [])
        #expect(DeepLinkURL("poc:/tab2") == nil)
        #expect(DeepLinkURL("1poc://tab2") == nil)
        #expect(DeepLinkURL("poc://%C3") == nil)
        #expect(DeepLinkURL("poc://%4") == nil)
    }
}
