import NavEvents
import NavJSON
import NavModel
import NavReplay
import Testing

/// The fold under model language 1.1: identity by value, `pop_to: first`, clamped pops,
/// `max_depth`, presentation contexts, modals presented from contexts and bound to routes.
/// Without these keys, the other suites show the v1 behaviour, unchanged.
@Suite("Model language 1.1 rules")
struct ModelLanguageRuleTests {
    static let model = try! NavigationModel.load(
        json: """
            {
              "model_version": 1,
              "name": "language",
              "initial": {"flow": "main", "tab": "home"},
              "flows": {"main": {"tabs": ["home", "more"], "presentation": "contexts"}},
              "stacks": {
                "home": {"routes": ["chat", "page"], "singletons": ["chat"], "identity": "value", "pop_to": "first", "clamped_pops": true},
                "more": {"routes": ["chat", "page"], "singletons": ["chat"], "max_depth": 2},
                "editor": {"routes": ["page"]}
              },
              "modals": {
                "editor": {"stack": "editor", "from": ["home"]},
                "widget": {"routes": ["page"], "from": ["home", "editor"]},
                "menu": {"from": ["editor"]},
                "alert": {}
              }
            }
            """)

    static func push(_ stack: String, from: String?, to: String, params: String? = nil) -> EventSpec {
        var spec = EventSpec.push(stack, from: from, to: to)
        if let params { spec.fields.append(("route_params", .raw(params))) }
        return spec
    }

    static func chat(_ id: String) -> String { #"{"id":"\#(id)"}"# }

    // MARK: Identity by value

    @Test func twoChatsWithDifferentIdsAreTwoRoutes() throws {
        var log = SessionLog()
        log.add(.start())
        log.add(Self.push("home", from: nil, to: "chat", params: Self.chat("a")))
        log.add(Self.push("home", from: "chat", to: "chat", params: Self.chat("b")))
        log.add(Self.push("home", from: "chat", to: "page"))
        log.add(Self.push("home", from: "page", to: "chat", params: Self.chat("a")))  // the same chat again

        let result = try audit(log, model: Self.model)

        #expect(summary(result) == ["route.singleton@4"])
        #expect(try onlyFinding(.routeSingleton, in: result).message.contains("with the same route_params"))
    }

    @Test func aStackOfNamesStillComparesNames() throws {
        var log = SessionLog()
        log.add(.start())
        log.add(Self.push("more", from: nil, to: "chat", params: Self.chat("a")))
        log.add(Self.push("more", from: "chat", to: "chat", params: Self.chat("b")))

        #expect(summary(try audit(log, model: Self.model)) == ["route.singleton@2"])
    }

    @Test func parametersFollowReplaceInsertRemoveAndPops() throws {
        var log = SessionLog()
        log.add(.start())
        log.add(Self.push("home", from: nil, to: "chat", params: Self.chat("a")))
        var replace = EventSpec.replace("home", from: "chat", to: "chat")
        replace.fields.append(("route_params", .raw(Self.chat("b"))))
        log.add(replace)  // chat a is gone: [chat b]
        log.add(Self.push("home", from: "chat", to: "chat", params: Self.chat("a")))  // clean
        var insert = EventSpec.insert("home", "chat", at: 0)
        insert.fields.append(("route_params", .raw(Self.chat("b"))))
        log.add(insert)  // chat b again: route.singleton
        log.add(.remove("home", "page"))
        log.add(.pop("home", from: "chat", to: "chat", count: 1))  // [chat b, chat b]
        log.add(Self.push("home", from: "chat", to: "chat", params: Self.chat("a")))  // clean again

        let result = try audit(log, model: Self.model)

        #expect(summary(result) == ["route.singleton@4"])
        #expect(result.finalState.stacks["home"] == ["chat", "chat", "chat"])
    }

    // MARK: pop_to first

    @Test func popToGoesBackToTheFirstMatchWhereTheModelSaysSo() throws {
        var log = SessionLog()
        log.add(.start())
        log.add(Self.push("home", from: nil, to: "chat", params: Self.chat("a")))
        log.add(Self.push("home", from: "chat", to: "page"))
        log.add(Self.push("home", from: "page", to: "chat", params: Self.chat("b")))
        log.add(Self.push("home", from: "chat", to: "page"))
        log.add(.popTo("home", from: "page", to: "chat"))
        log.add(.view("home", "chat"))

        let result = try audit(log, model: Self.model)

        #expect(summary(result) == [])
        #expect(result.finalState.stacks["home"] == ["chat"])
    }

    @Test func popToGoesBackToTheTopmostMatchByDefault() throws {
        var log = SessionLog()
        log.add(.start())
        log.add(Self.push("more", from: nil, to: "page"))
        log.add(.tab(from: "home", to: "more"))
        log.add(.popTo("more", from: "page", to: "page"))

        let result = try audit(log, model: Self.model)
        #expect(summary(result) == [])
        #expect(result.finalState.stacks["more"] == ["page"])
    }

    // MARK: Clamped pops and max_depth

    @Test func aClampedPopIsLegalWhereTheStackSaysSo() throws {
        var log = SessionLog()
        log.add(.start())
        log.add(Self.push("home", from: nil, to: "page"))
        log.add(.pop("home", from: "page", to: nil, count: 2))
        log.add(.tab(from: "home", to: "more"))
        log.add(Self.push("more", from: nil, to: "page"))
        log.add(.pop("more", from: "page", to: nil, count: 2))

        let result = try audit(log, model: Self.model)

        #expect(summary(result) == ["stack.out_of_range@5"])
        #expect(result.finalState.stacks["home"] == [])
    }

    @Test func aStackHoldsAtMostItsMaxDepth() throws {
        var log = SessionLog()
        log.add(.start())
        log.add(.tab(from: "home", to: "more"))
        log.add(Self.push("more", from: nil, to: "page"))
        log.add(Self.push("more", from: "page", to: "chat"))
        log.add(.replace("more", from: "chat", to: "page"))  // still two
        log.add(.insert("more", "page", at: 0))  // a third

        let result = try audit(log, model: Self.model)

        #expect(summary(result) == ["stack.out_of_range@5"])
        let finding = try onlyFinding(.stackOutOfRange, in: result)
        #expect(finding.expected == .string("0...2"))
        #expect(finding.found == .number("3"))
        #expect(result.finalState.stacks["more"] == ["page", "page", "page"])  // applied all the same
    }

    @Test func aSnapshotDeeperThanMaxDepthIsOutOfRange() throws {
        var log = SessionLog()
        log.add(
            .start(
                snapshot: #"{"flow":"main","tab":"more","stacks":{"more":["page","chat","page"]},"modals":[]}"#))
        #expect(summary(try audit(log, model: Self.model)) == ["stack.out_of_range@0"])
    }

    // MARK: Presentation contexts

    @Test func aSecondModalInOneContextIsWhatTheAppIgnores() throws {
        var log = SessionLog()
        log.add(.start())
        log.add(Self.push("home", from: nil, to: "page"))
        log.add(.present("editor"))  // from home
        log.add(.present("menu"))  // from the editor's context
        log.add(.present("widget"))  // from home or the editor: both already show a modal

        let result = try audit(log, model: Self.model)

        #expect(summary(result) == ["modal.not_allowed@4"])
        let finding = try onlyFinding(.modalNotAllowed, in: result)
        #expect(finding.message.contains(#"context of "editor", which already shows modal "menu""#))
        #expect(finding.found == .string("menu"))
        #expect(result.finalState.modals == ["editor", "menu", "widget"])  // applied all the same
    }

    @Test func aModalFromAContextThatIsNotShownIsNotAllowed() throws {
        var log = SessionLog()
        log.add(.start())
        log.add(.present("menu"))
        #expect(summary(try audit(log, model: Self.model)) == ["modal.not_allowed@1"])
    }

    @Test func aStackDoesNotPopWhileItsContextShowsAModal() throws {
        var log = SessionLog()
        log.add(.start())
        log.add(Self.push("home", from: nil, to: "page"))
        log.add(Self.push("home", from: "page", to: "chat", params: Self.chat("a")))
        log.add(.present("editor"))
        log.add(Self.push("editor", from: nil, to: "page"))
        log.add(.present("menu"))
        log.add(.pop("home", from: "chat", to: "page"))  // the home context shows the editor
        log.add(.pop("editor", from: "page", to: nil))  // the editor's context shows the menu
        log.add(Self.push("home", from: "page", to: "chat", params: Self.chat("b")))  // a push lands behind
        log.add(.dismiss("menu"))
        log.add(Self.push("editor", from: nil, to: "page"))
        log.add(.pop("editor", from: "page", to: nil))  // free again
        log.add(.popTo("home", from: "chat", to: nil))  // a pop to the root always clears

        let result = try audit(log, model: Self.model)

        #expect(summary(result) == ["stack.not_owned@6", "stack.not_owned@7"])
        #expect(result.findings.allSatisfy { $0.message.contains("does not pop until the modal of its context is dismissed") })
        #expect(result.finalState.stacks["home"] == [])
    }

    // MARK: Modals bound to routes

    @Test func aWidgetOverlaysOnlyItsOwnPages() throws {
        var log = SessionLog()
        log.add(.start())
        log.add(.present("widget"))  // at the root
        log.add(.dismiss("widget"))
        log.add(Self.push("home", from: nil, to: "chat", params: Self.chat("a")))
        log.add(.present("widget"))  // over a chat
        log.add(.dismiss("widget"))
        log.add(Self.push("home", from: "chat", to: "page"))
        log.add(.present("widget"))  // over its page: clean
        log.add(.viewModal("widget"))

        let result = try audit(log, model: Self.model)

        #expect(summary(result) == ["modal.not_allowed@1", "modal.not_allowed@4"])
        #expect(result.findings.allSatisfy { $0.message.contains("overlays only page;") })
    }

    @Test func aWidgetGoesWithItsPage() throws {
        var log = SessionLog()
        log.add(.start())
        log.add(Self.push("home", from: nil, to: "page"))
        log.add(.present("widget"))
        log.add(.popToRoot("home", from: "page"))  // the page goes, the widget stays: not what the app shows

        let result = try audit(log, model: Self.model)

        #expect(summary(result) == ["modal.not_allowed@3"])
        let finding = try onlyFinding(.modalNotAllowed, in: result)
        #expect(finding.message.contains("stays presented while stack \"home\" shows the root"))
        #expect(finding.stateBefore?.stacks["home"] == ["page"])
        #expect(finding.stateAfter?.stacks["home"] == [])
    }

    @Test func theKeysChangeNothingForAModelWithoutThem() throws {
        // The PoC: a second modal stacks, pops under a modal and over-pops are v1's.
        var log = SessionLog.authorized(routes: ["list"])
        log.add(.present("success"))
        log.add(.pop("tab1", from: "list", to: nil, count: 3))
        log.add(.present("paywall"))

        #expect(summary(try audit(log)) == ["stack.out_of_range@2", "modal.not_allowed@3"])
    }
}
