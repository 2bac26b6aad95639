import Foundation
import NavJSON
import NavModel
import NavReplay
import NavTestSupport
import Testing

/// One correlation group may hold thousands of commands and deep links (an SDK that sends one
/// correlation id for a whole session). The fold watches each member by what can advance it, not
/// all of them at every event; these tests check that a crowded group reports, for each member,
/// exactly what the same log reports when that member is the group's only one.
@Suite("Crowded correlation groups")
struct CrowdedGroupTests {
    /// The PoC's model, with links whose steps select a tab, present a modal and repeat a route.
    static let modelJSON = NavigationModel.pocWithDeepLinksJSON.replacingOccurrences(
        of: #""links": ["#,
        with: #"""
            "links": [
              {"pattern": "journey/:id", "command": "goAuthorizedTab2Root",
               "steps": [{"tab": "tab2"}, {"stack": "tab2", "push": "feed"}, {"present": "success", "style": "sheet"},
                         {"stack": "tab2", "push": "post"}]},
              {"pattern": "loop/:id", "command": "goAuthorizedTab1Root",
               "steps": [{"stack": "tab1", "push": "list"}, {"stack": "tab1", "push": "detail"}, {"stack": "tab1", "push": "list"}]},
              {"pattern": "twice/:id", "command": "goAuthorizedTab1Root",
               "steps": [{"stack": "tab1", "push": "list"}, {"stack": "tab1", "push": "list"}, {"stack": "tab1", "push": "detail"}]},
            """#)

    /// A random session of one group: links, commands and the events that land or break them.
    struct Crowd {
        var specs: [EventSpec] = []
        /// Indices in `specs` of the deep links that match a pattern or fall back, and of the known commands.
        var links: [Int] = []
        var commands: [Int] = []

        init(seed: UInt64, events: Int) {
            var random = SeededRandom(seed: seed)
            var stacks: [String: [String]] = ["tab1": [], "tab2": []]
            var tab = "tab1"
            var modals: [String] = []
            let routes = ["tab1": ["list", "detail", "settings"], "tab2": ["feed", "post", "profile"]]
            let patterns = [
                "tab1/list", "tab1/detail/%", "settings", "tab2/post/%", "tab2/profile/%", "journey/%", "loop/%", "twice/%", "tab1", "tab2",
            ]
            let commandNames = ["goAuthorizedTab1Root", "goAuthorizedTab2Root", "logoutToOnboarding"]
            for index in 0..<events {
                let stack = random.pick(["tab1", "tab2"])!
                switch random.next() % 10 {
                case 0, 1:
                    if random.chance(0.1) {
                        specs.append(.deepLink("app://unsupported/\(index)", outcome: "fallback"))
                    } else {
                        let pattern = random.pick(patterns)!.replacingOccurrences(of: "%", with: String(index))
                        specs.append(.deepLink("app://\(pattern)"))
                    }
                    links.append(specs.count - 1)
                case 2:
                    specs.append(.command(random.pick(commandNames)!, from: "authorized", to: "authorized"))
                    commands.append(specs.count - 1)
                case 3, 4, 5:
                    let route = random.pick(routes[stack]!)!
                    specs.append(.push(stack, from: stacks[stack]!.last, to: route))
                    stacks[stack]!.append(route)
                case 6:
                    if let top = stacks[stack]!.last {
                        specs.append(.popToRoot(stack, from: top))
                        stacks[stack] = []
                    } else {
                        specs.append(.push(stack, from: nil, to: "list"))
                        stacks[stack] = ["list"]
                    }
                case 7:
                    let to = tab == "tab1" ? "tab2" : "tab1"
                    specs.append(.tab(from: tab, to: to))
                    tab = to
                case 8:
                    if modals.isEmpty {
                        specs.append(.present("success"))
                        modals = ["success"]
                    } else {
                        specs.append(.dismiss("success"))
                        modals = []
                    }
                default:
                    specs.append(.view(tab, stacks[tab]!.last))
                }
            }
            // The last command's reset stack is never seen empty.
            specs.append(.push("tab2", from: stacks["tab2"]!.last, to: "feed"))
            specs.append(.command("goAuthorizedTab2Root", from: "authorized", to: "authorized"))
            commands.append(specs.count - 1)
            specs.append(.push("tab2", from: "feed", to: "post"))
        }

        /// The session, all in correlation group `g`, after an authorized start. `keepingLink`
        /// keeps one of the links, `keepingCommand` one of the commands; the others' events stay,
        /// with a URL no pattern matches or a command the model does not declare, so that every
        /// seq and every state is the same.
        func log(keepingLink: Int? = nil, keepingCommand: Int? = nil) -> SessionLog {
            var log = SessionLog.authorized()
            for (index, spec) in specs.enumerated() {
                if let keepingLink, index != keepingLink, links.contains(index) {
                    log.add(.deepLink("app://nowhere/\(index)"), group: "g")
                } else if let keepingCommand, index != keepingCommand, commands.contains(index) {
                    log.add(.command("notDeclared\(index)", from: "authorized", to: "authorized"), group: "g")
                } else {
                    log.add(spec, group: "g")
                }
            }
            return log
        }
    }

    /// What a finding says, compared whole.
    struct Reported: Equatable {
        var message: String
        var expected: JSONValue?
        var found: JSONValue?
        var witness: EventReference?
        var stateBefore: NavigationState?
        var stateAfter: NavigationState?
    }

    /// The group's postcondition findings of the event at `specs[index]` (seq `index + 1`).
    static func postconditions(_ audit: SessionAudit, of index: Int) -> [Reported] {
        audit.findings.filter { $0.rule == .commandPostcondition && $0.seq == Int64(index + 1) }.map {
            Reported(
                message: $0.message, expected: $0.expected, found: $0.found, witness: $0.witness,
                stateBefore: $0.stateBefore, stateAfter: $0.stateAfter)
        }
    }

    @Test func twoStepsPassedOverWithTheSameRouteBothLandLate() throws {
        var log = SessionLog.authorized()
        let link = log.group(
            "link", .deepLink("app://twice/1"), .command("goAuthorizedTab1Root", from: "authorized", to: "authorized"),
            .push("tab1", from: nil, to: "detail"), .push("tab1", from: "detail", to: "list"),
            .push("tab1", from: "list", to: "list"))

        let finding = try onlyFinding(.commandPostcondition, in: try audit(log, model: try makeModel(Self.modelJSON)))

        #expect(finding.seq == link)
        #expect(
            finding.found?.objectValue?["steps"]
                == .array([.string("push tab1/detail"), .string("push tab1/list"), .string("push tab1/list")]))
    }

    @Test(arguments: Repository.cases(Array(0..<8) as [UInt64], underSanitizer: 1))
    func eachLinkIsReportedAsIfItWereAlone(seed: UInt64) throws {
        let model = try makeModel(Self.modelJSON)
        let crowd = Crowd(seed: seed, events: 300)
        try #require(crowd.links.count > 40)
        let together = try audit(crowd.log(), model: model)
        var reported = 0
        for link in crowd.links {
            let alone = Self.postconditions(try audit(crowd.log(keepingLink: link), model: model), of: link)
            #expect(Self.postconditions(together, of: link) == alone, "link at seq \(link + 1), seed \(seed)")
            reported += alone.count
        }
        // Both outcomes occur: links that landed every step, and links that did not.
        #expect(reported > 0 && reported < crowd.links.count, "seed \(seed): \(reported) of \(crowd.links.count)")
        #expect(together.findings.contains { $0.message.contains("landed before step") }, "seed \(seed)")
        #expect(together.findings.contains { $0.rule == .commandPostcondition && $0.stateBefore != nil }, "seed \(seed)")
    }

    @Test(arguments: Repository.cases(Array(0..<8) as [UInt64], underSanitizer: 1))
    func eachCommandIsReportedAsIfItWereAlone(seed: UInt64) throws {
        let crowd = Crowd(seed: seed, events: 300)
        try #require(crowd.commands.count > 20)
        let together = try audit(crowd.log(), model: .pocWithDeepLinks)
        var neverEmptied = 0
        for command in crowd.commands {
            let alone = Self.postconditions(try audit(crowd.log(keepingCommand: command), model: .pocWithDeepLinks), of: command)
            #expect(Self.postconditions(together, of: command) == alone, "command at seq \(command + 1), seed \(seed)")
            neverEmptied += alone.filter { $0.message.contains("never emptied") }.count
        }
        // Resets seen empty and resets never emptied both occur.
        #expect(neverEmptied > 0 && neverEmptied < crowd.commands.count, "seed \(seed): \(neverEmptied)")
    }
}
