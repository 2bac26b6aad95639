import Foundation
import NavEvents
import NavJSON
import NavModel
import NavReplay
import NavTestSupport
import Testing

/// The fold's checks for the model extensions: each with a violating case and a clean near-miss.
@Suite("Fold: model extensions")
struct FoldExtensionTests {
    let model = extensionModel

    /// A session in flow `data` with `path` = [widgets].
    func dataSession() -> (EventBuilder, [NavigationEvent]) {
        var builder = EventBuilder()
        var events = [builder.start()]
        events += builder.group([
            .commandApplied(command: "toData", fromFlow: "hub", toFlow: "data"),
            .flowSwitch(from: "hub", to: "data"),
            .routePush(stack: "path", from: nil, to: "widgets", params: nil),
        ])
        return (builder, events)
    }

    /// A session in flow `tabs`, tab `a`.
    func tabsSession() -> (EventBuilder, [NavigationEvent]) {
        var builder = EventBuilder()
        var events = [builder.start()]
        events += builder.group([
            .commandApplied(command: "toTabs", fromFlow: "hub", toFlow: "tabs"),
            .flowSwitch(from: "hub", to: "tabs"),
            .tabSwitch(from: nil, to: "a"),
        ])
        return (builder, events)
    }

    // MARK: Positions bound to flows

    @Test func aRouteAtAPositionItsFlowForbidsIsRoutePosition() throws {
        var (builder, events) = dataSession()
        events.append(builder.make(.routePop(stack: "path", from: "widgets", to: nil, amount: .toRoot)))
        events.append(builder.make(.routePush(stack: "path", from: nil, to: "editor", params: nil)))
        #expect(try findings(events, model: model) == ["route.position@5"])
        let finding = try #require(try auditSession(events, model: model).findings.first)
        #expect(finding.expected == .array([.string("widgets")]))
        #expect(finding.found == .string("editor"))
        #expect(finding.message.contains("in flow \"data\""))
    }

    @Test func theSameRouteIsCleanInTheFlowThatAllowsIt() throws {
        var (builder, events) = dataSession()
        events.append(builder.make(.routePush(stack: "path", from: "widgets", to: "editor", params: nil)))
        expectReplay(events, model: model) {
            $0.flow = "data"
            $0.stacks["path"] = ["widgets", "editor"]
        }
    }

    @Test func anEmptyOneOfKeepsThePositionEmpty() throws {
        var builder = EventBuilder()
        let events = [builder.start(), builder.make(.routePush(stack: "path", from: nil, to: "widgets", params: nil))]
        #expect(try findings(events, model: model) == ["route.position@1"])
    }

    @Test func aFlowSwitchThatLeavesTheWrongRouteIsReportedAtTheSwitch() throws {
        var (builder, events) = dataSession()
        events += builder.group([
            .commandApplied(command: "becameChat", fromFlow: "data", toFlow: "chat"),
            .flowSwitch(from: "data", to: "chat"),
        ])
        let audit = try auditSession(events, model: model)
        #expect(audit.findings.map(\.rule) == [.routePosition])
        let finding = try #require(audit.findings.first)
        #expect(finding.seq == 5)
        #expect(finding.eventName == .flowSwitch)
        #expect(finding.stateBefore?.flow == "data")
        #expect(finding.stateAfter?.flow == "chat")
        #expect(finding.witness?.seq == 3)
    }

    @Test func aFlowSwitchWhoseGroupCorrectsThePathIsClean() throws {
        var (builder, events) = dataSession()
        events += builder.group([
            .commandApplied(command: "becameChat", fromFlow: "data", toFlow: "chat"),
            .flowSwitch(from: "data", to: "chat"),
            .routeInsert(stack: "path", route: "spaceChat", index: 0, params: nil),
            .routeRemove(stack: "path", route: "widgets"),
        ])
        expectReplay(events, model: model) {
            $0.flow = "chat"
            $0.stacks["path"] = ["spaceChat"]
        }
    }

    @Test func aRouteThatEntersAfterTheSwitchIsReportedOnceWhereItEnters() throws {
        var (builder, events) = dataSession()
        events += builder.group([
            .commandApplied(command: "becameChat", fromFlow: "data", toFlow: "chat"),
            .flowSwitch(from: "data", to: "chat"),
            .routePop(stack: "path", from: "widgets", to: nil, amount: .toRoot),
            .routePush(stack: "path", from: nil, to: "editor", params: nil),
        ])
        #expect(try findings(events, model: model) == ["route.position@7"])
    }

    @Test func aSnapshotIsCheckedWithItsOwnFlow() throws {
        var builder = EventBuilder()
        let bad = [builder.start(snapshot: NavigationState(flow: "chat", stacks: ["path": ["widgets"]]))]
        #expect(try findings(bad, model: model) == ["route.position@0"])
        var other = EventBuilder()
        let good = [other.start(snapshot: NavigationState(flow: "data", stacks: ["path": ["widgets"]]))]
        #expect(try findings(good, model: model) == [])
    }

    // MARK: Modals with their own stack

    @Test func aModalsStackIsNotOwnedWhileTheModalIsNotPresented() throws {
        var (builder, events) = tabsSession()
        events.append(builder.make(.routePush(stack: "sheetStack", from: nil, to: "s1", params: nil)))
        #expect(try findings(events, model: model) == ["stack.not_owned@4"])
        let finding = try #require(try auditSession(events, model: model).findings.first)
        #expect(finding.message.contains("of modal \"sheet\", which is not presented"))
    }

    @Test func aModalsStackIsOwnedWhileItIsPresentedAndShowsItsTop() throws {
        var (builder, events) = tabsSession()
        events += builder.group([.modalPresent(modal: "sheet", style: .sheet), .screenView(.modal("sheet"), params: nil)])
        events += builder.group([
            .routePush(stack: "sheetStack", from: nil, to: "s1", params: nil),
            .screenView(.stack("sheetStack", route: "s1"), params: nil),
        ])
        events += builder.group([
            .routePop(stack: "sheetStack", from: "s1", to: nil, amount: .count(1)),
            .screenView(.stack("sheetStack", route: nil), params: nil),  // its root is the modal
            .screenView(.modal("sheet"), params: nil),
        ])
        events += builder.group([
            .routePush(stack: "sheetStack", from: nil, to: "s2", params: nil),
            .routePush(stack: "a", from: nil, to: "x", params: nil),  // under the sheet: allowed, as in v1
        ])
        expectReplay(events, model: model) {
            $0.flow = "tabs"
            $0.tab = "a"
            $0.stacks["a"] = ["x"]
            $0.stacks["sheetStack"] = ["s2"]
            $0.modals = ["sheet"]
        }
    }

    @Test func aScreenViewOfTheModalWhileItsStackHoldsRoutesIsNotVisible() throws {
        var (builder, events) = tabsSession()
        events += builder.group([
            .modalPresent(modal: "sheet", style: .sheet),
            .routePush(stack: "sheetStack", from: nil, to: "s1", params: nil),
            .screenView(.modal("sheet"), params: nil),
        ])
        // The resync adopts the modal's root: its stack is emptied.
        expectReplay(events, model: model, findings: [.screenNotVisible]) {
            $0.flow = "tabs"
            $0.tab = "a"
            $0.modals = ["sheet"]
        }
    }

    @Test func aScreenViewOfAModalsStackBringsItsModalOnTop() throws {
        var (builder, events) = tabsSession()
        events.append(builder.make(.screenView(.stack("sheetStack", route: "s2"), params: nil)))
        expectReplay(events, model: model, findings: [.screenNotVisible]) {
            $0.flow = "tabs"
            $0.tab = "a"
            $0.modals = ["sheet"]
            $0.stacks["sheetStack"] = ["s2"]
        }
    }

    @Test func dismissingAModalEmptiesItsStackAndPresentingStartsAtItsRoot() throws {
        var (builder, events) = tabsSession()
        events += builder.group([
            .modalPresent(modal: "sheet", style: .sheet), .routePush(stack: "sheetStack", from: nil, to: "s1", params: nil),
            .modalPresent(modal: "overlay", style: .overlay),
        ])
        events.append(builder.make(.modalDismiss(modal: "sheet")))  // with the overlay above it
        events.append(builder.make(.modalPresent(modal: "sheet", style: .sheet)))
        // from_route null: the stack is at its root again.
        events.append(builder.make(.routePush(stack: "sheetStack", from: nil, to: "s2", params: nil)))
        expectReplay(events, model: model) {
            $0.flow = "tabs"
            $0.tab = "a"
            $0.modals = ["sheet"]
            $0.stacks["sheetStack"] = ["s2"]
        }
    }

    @Test func aSnapshotWithRoutesInTheStackOfAModalThatIsNotPresentedIsNotOwned() throws {
        var builder = EventBuilder()
        let bad = [builder.start(snapshot: NavigationState(flow: "tabs", tab: "a", stacks: ["sheetStack": ["s1"]]))]
        #expect(try findings(bad, model: model) == ["stack.not_owned@0"])
        var other = EventBuilder()
        let good = [
            other.start(snapshot: NavigationState(flow: "tabs", tab: "a", stacks: ["sheetStack": ["s1"]], modals: ["sheet"]))
        ]
        #expect(try findings(good, model: model) == [])
    }

    // MARK: Modal styles

    @Test func aStyleTheModalDoesNotAllowIsModalNotAllowed() throws {
        var (builder, events) = tabsSession()
        events.append(builder.make(.modalPresent(modal: "cover", style: .sheet)))
        #expect(try findings(events, model: model) == ["modal.not_allowed@4"])
        let finding = try #require(try auditSession(events, model: model).findings.first)
        #expect(finding.expected == .array([.string("cover")]))
        #expect(finding.found == .string("sheet"))
    }

    @Test func anAllowedStyleAndAModalWithoutStylesAreClean() throws {
        var (builder, events) = tabsSession()
        events.append(builder.make(.modalPresent(modal: "cover", style: .cover)))
        events.append(builder.make(.modalPresent(modal: "overlay", style: .sheet)))
        #expect(try findings(events, model: model) == [])
    }

    // MARK: Deep link steps in the declared order

    @Test func stepsThatLandInOrderAreClean() throws {
        var builder = EventBuilder()
        var events = [builder.start()]
        events += builder.group([
            .deepLink(url: "ext://a/7", outcome: .resolved),
            .commandApplied(command: "toTabs", fromFlow: "hub", toFlow: "tabs"),
            .flowSwitch(from: "hub", to: "tabs"),
            .tabSwitch(from: nil, to: "a"),
            .routePush(stack: "a", from: nil, to: "x", params: nil),
            .routePush(stack: "a", from: "x", to: "y", params: RouteParams([("id", .string("7"))])),
        ])
        #expect(try findings(events, model: model) == [])
    }

    @Test func aFeatureBeforeItsTabIsACommandPostconditionAtTheDeepLink() throws {
        var (builder, events) = tabsSession()
        events += builder.group([
            .deepLink(url: "ext://b/x", outcome: .resolved),
            .routePush(stack: "b", from: nil, to: "x", params: nil),
            .tabSwitch(from: "a", to: "b"),
        ])
        let audit = try auditSession(events, model: model)
        #expect(audit.findings.map { "\($0.rule.rawValue)@\($0.seq ?? -1)" } == ["command.postcondition@4"])
        let finding = try #require(audit.findings.first)
        #expect(finding.eventName == .deepLink)
        #expect(finding.message.contains("step 2 (push b/x) landed before step 1 (tab b)"))
        #expect(finding.expected == .object(JSONObject([("steps", .array([.string("tab b"), .string("push b/x")]))])))
        #expect(finding.found == .object(JSONObject([("steps", .array([.string("push b/x"), .string("tab b")]))])))
    }

    @Test func aStepThatAlreadyHoldsNeedsNoEvent() throws {
        var builder = EventBuilder()
        var events = [builder.start(snapshot: NavigationState(flow: "tabs", tab: "b"))]
        events += builder.group([
            .deepLink(url: "ext://b/x", outcome: .resolved),
            .routePush(stack: "b", from: nil, to: "x", params: nil),
        ])
        #expect(try findings(events, model: model) == [])
    }

    @Test func aStepThatNeverLandsIsReported() throws {
        var (builder, events) = tabsSession()
        events += builder.group([
            .deepLink(url: "ext://sheet", outcome: .resolved),
            .modalPresent(modal: "sheet", style: .sheet),
        ])
        let audit = try auditSession(events, model: model)
        #expect(audit.findings.map(\.rule) == [.commandPostcondition])
        #expect(audit.findings.first?.message.contains("step 2 (push sheetStack/s1) never landed") == true)
    }

    @Test func aLinkWhoseCommandIsNotAppliedIsReported() throws {
        // A deep link maps to a command plus its route payload. Every step of
        // "a/:id" lands here, but its command ("toTabs") is not applied.
        var (builder, events) = tabsSession()
        events += builder.group([
            .deepLink(url: "ext://a/7", outcome: .resolved),
            .routePush(stack: "a", from: nil, to: "x", params: nil),
            .routePush(stack: "a", from: "x", to: "y", params: nil),
        ])
        let audit = try auditSession(events, model: model)
        #expect(audit.findings.map { "\($0.rule.rawValue)@\($0.seq ?? -1)" } == ["command.postcondition@4"])
        let finding = try #require(audit.findings.first)
        #expect(finding.message.contains(#"did not do what the model declares"#), "\(finding.message)")
        #expect(finding.message.contains(#"its command "toTabs" was not applied (applied: none)"#), "\(finding.message)")
        #expect(finding.expected?.objectValue?["command"] == .string("toTabs"))
        #expect(finding.found?.objectValue?["commands"] == .array([]))
        #expect(finding.found?.objectValue?["steps"] == .array([.string("tab a"), .string("push a/x"), .string("push a/y")]))
    }

    @Test func aFallbackAppliesTheModelsFallbackCommand() throws {
        let withFallback = loadModel(
            extensionModelJSON.replacingOccurrences(
                of: #""deep_links": {"links": ["#, with: #""deep_links": {"fallback_command": "toData", "links": ["#))
        var builder = EventBuilder()
        let start = [builder.start()]
        let safe = builder.group([
            .deepLink(url: "ext://promo/1", outcome: .fallback),
            .commandApplied(command: "toData", fromFlow: "hub", toFlow: "data"),
            .flowSwitch(from: "hub", to: "data"),
            .routePush(stack: "path", from: nil, to: "widgets", params: nil),
        ])
        #expect(try findings(start + safe, model: withFallback) == [])
        let unsafe = builder.group([
            .deepLink(url: "ext://promo/2", outcome: .fallback), .routePush(stack: "path", from: "widgets", to: "editor", params: nil),
        ])
        let audit = try auditSession(start + safe + unsafe, model: withFallback)
        #expect(audit.findings.map { "\($0.rule.rawValue)@\($0.seq ?? -1)" } == ["command.postcondition@5"])
        #expect(
            audit.findings.first?.message.contains(#"deep link "ext://promo/2" (outcome fallback) did not do what the model declares"#)
                == true)
        #expect(audit.findings.first?.expected == .object(JSONObject([("command", .string("toData"))])))
        // Without a fallback_command (the extension model), a fallback is not checked.
        #expect(try findings(start + safe + unsafe, model: model) == [])
    }

    @Test func aFallbackOrAnUndeclaredLinkIsNotChecked() throws {
        var (builder, events) = tabsSession()
        events += builder.group([.deepLink(url: "ext://b/x", outcome: .fallback)])
        events += builder.group([.deepLink(url: "ext://nowhere", outcome: .resolved), .tabSwitch(from: "a", to: "b")])
        #expect(try findings(events, model: model) == [])
    }
}
