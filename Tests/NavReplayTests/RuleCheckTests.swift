import NavEvents
import NavJSON
import NavModel
import NavReplay
import Testing

/// The rules' checks called directly, as the fold and the router call them: `nil` while the
/// rule holds, the violation (or the problem) when it breaks.
@Suite("Rule checks")
struct RuleCheckTests {
    static let model = NavigationModel.poc
    static let limited = try! NavigationModel.load(
        json: """
            {"model_version": 1, "name": "limited", "initial": {"flow": "main"},
             "flows": {"main": {"stack": "main", "max_modals": 1}},
             "stacks": {"main": {"routes": ["a", "b"], "singletons": ["b"], "max_depth": 2,
                                 "positions": [{"index": 0, "one_of": ["a"]}]}},
             "modals": {"sheet": {"styles": ["sheet"]}, "other": {}}}
            """)

    @Test func modalNotAllowedReturnsEachProblemInTheFoldsOrder() {
        func check(
            _ modal: String, _ style: ModalStyle = .sheet, flow: String = "main", presented: [String] = []
        )
            -> ModalNotAllowed.Problem?
        {
            ModalNotAllowed.check(
                presenting: modal, style: style, flow: flow, tab: nil, presented: presented, model: Self.limited,
                top: { _ in nil })
        }
        #expect(check("sheet") == nil)
        #expect(check("nope") == .undeclared)
        #expect(check("sheet", .cover) == .style(allowed: ["sheet"]))
        #expect(check("other", presented: ["sheet"]) == .tooMany(limit: 1))
        #expect(check("paywall") == .undeclared)
        let poc = ModalNotAllowed.check(
            presenting: "paywall", style: .sheet, flow: "authorized", tab: "tab1", presented: [], model: Self.model,
            top: { _ in nil })
        #expect(poc == .notInFlow(allowed: ["onboarding"]))
    }

    @Test func modalNotAllowedViolationIsTheFindingsText() {
        let violation = ModalNotAllowed.violation(
            .notInFlow(allowed: ["onboarding"]), presenting: "paywall", style: .sheet, flow: "authorized", presented: [],
            visible: nil)
        #expect(violation.rule == .modalNotAllowed)
        #expect(violation.message == #"modal "paywall" is not allowed in flow "authorized" (allowed in: onboarding)"#)
        #expect(violation.expected == .array([.string("onboarding")]))
        #expect(violation.found == .string("authorized"))
        #expect(violation.setBy == .flow)
    }

    @Test func snapshotModalsAreCheckedWithoutStyles() {
        #expect(ModalNotAllowed.check(restoring: "sheet", flow: "main", presented: 0, model: Self.limited) == nil)
        #expect(ModalNotAllowed.check(restoring: "other", flow: "main", presented: 1, model: Self.limited) == .tooMany(limit: 1))
        #expect(ModalNotAllowed.check(restoring: "nope", flow: "main", presented: 0, model: Self.limited) == .undeclared)
    }

    @Test func enteringRoutesAreCheckedOneRuleAtATime() throws {
        let spec = try #require(Self.limited.stacks["main"])
        #expect(RouteUnknown.check("a", stack: "main", number: 0, model: Self.limited) == nil)
        #expect(RouteUnknown.check("z", stack: "main", number: 0, model: Self.limited)?.rule == .routeUnknown)
        let singleton = RouteSingleton.check(
            "b", params: nil, stack: "main", spec: spec, routes: ["a", "b"], params: [], below: 0..<2)
        #expect(singleton?.message == #"singleton route "b" is already in stack "main" (a › b); open it once: pop back to it instead"#)
        #expect(RouteSingleton.check("b", params: nil, stack: "main", spec: spec, routes: ["a", "b"], params: [], below: 0..<1) == nil)
        #expect(RoutePosition.check("b", at: 0, spec: spec, flow: "main").map(\.oneOf) == [["a"]])
        #expect(RoutePosition.check("a", at: 0, spec: spec, flow: "main").isEmpty)
        #expect(RoutePosition.check(stack: ["b", "a"], spec: spec, flow: "main").map(\.index) == [0])
        #expect(StackOutOfRange.check(entering: "a", stack: "main", spec: spec, depthAfter: 2) == nil)
        #expect(StackOutOfRange.check(entering: "a", stack: "main", spec: spec, depthAfter: 3)?.found == .number("3"))
    }

    @Test func stackOwnershipAndTabs() throws {
        let number = try #require(StackUnknown.check("tab1", model: Self.model))
        #expect(StackUnknown.check("nope", model: Self.model) == nil)
        let onboarding = Self.model.flows["onboarding"]
        let problem = StackNotOwned.check("tab1", number: number, flowSpec: onboarding, presented: [], model: Self.model)
        #expect(problem == .notOwned(owner: "authorized"))
        #expect(
            StackNotOwned.check("tab1", number: number, flowSpec: Self.model.flows["authorized"], presented: [], model: Self.model)
                == nil)
        #expect(StackNotOwned.check("tab1", number: number, flowSpec: onboarding, presented: [], model: Self.model, exempt: true) == nil)
        #expect(TabInvalid.check(switchingTo: "tab2", flowSpec: Self.model.flows["authorized"]) == nil)
        #expect(TabInvalid.check(switchingTo: "tab3", flowSpec: Self.model.flows["authorized"]) == .notATab(tabs: ["tab1", "tab2"]))
        #expect(TabInvalid.check(switchingTo: "tab1", flowSpec: onboarding) == .noTabs)
        #expect(TabInvalid.check(restoring: nil, flow: "authorized", model: Self.model)?.rule == .tabInvalid)
    }

    @Test func sequenceChecks() {
        #expect(SeqGap.check(seq: 3, previousSeq: 2, previous: nil) == nil)
        #expect(SeqGap.check(seq: 5, previousSeq: 2, previous: nil)?.message == "seq 3...4 missing: 2 event(s) lost before this one")
        #expect(SessionNoStart.check(.sessionStart, seq: 0, previous: nil) == nil)
        #expect(SessionNoStart.check(.routePush, seq: 0, previous: nil)?.rule == .sessionNoStart)
        #expect(FlowWithoutCommand.check(from: "a", to: "b", authorized: true, correlationID: "c") == nil)
        #expect(FlowWithoutCommand.check(from: "a", to: "b", authorized: false, correlationID: "c")?.rule == .flowWithoutCommand)
    }

    @Test func commandPostconditionListsOnlyTheBrokenParts() throws {
        let spec = try #require(Self.model.commands["goAuthorizedTab1Root"])
        #expect(
            CommandPostcondition.check(
                command: "goAuthorizedTab1Root", spec: spec, flow: "authorized", tab: "tab1", modals: [], notReset: [],
                correlationID: "c", routes: { _ in nil }) == nil)
        let broken = CommandPostcondition.check(
            command: "goAuthorizedTab1Root", spec: spec, flow: "authorized", tab: "tab2", modals: [], notReset: ["tab1"],
            correlationID: "c", routes: { _ in ["list"] })
        #expect(broken?.message.hasSuffix(#"tab is "tab2", not "tab1"; stack(s) tab1 never emptied"#) == true)
        #expect(broken?.found == .object(JSONObject([("tab", .string("tab2")), ("reset", .array([.array([.string("list")])]))])))
    }
}
