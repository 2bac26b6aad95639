public import NavModel
public import NavReplay
import NavJSON

/// `navreplay coverage`: which of a model's declared elements the sessions used, which none
/// reached, and the share of sessions that audit clean, in one fold with the model.
public struct CoverageAnalysis: SessionAnalysis {
    public let model: NavigationModel

    public init(model: NavigationModel) { self.model = model }

    public struct Tally: Sendable {
        public var used = Evidence()
        public var check = InferCheck.Tally()
    }

    public func makeTally() -> Tally { Tally() }

    public var readsStates: Bool { false }

    public func add(_ audit: SessionAudit, weight: Int, to tally: inout Tally) throws {
        try InferNames().add(audit, weight: weight, to: &tally.used)
        try InferCheck(model: model).add(audit, weight: weight, to: &tally.check)
    }

    public func merge(_ other: consuming Tally, into tally: inout Tally) {
        tally.used.merge(other.used)
        InferCheck(model: model).merge(other.check, into: &tally.check)
    }
}

/// A model's elements with the sessions that used each one.
public struct CoverageReport {
    public struct Element {
        public var kind: String
        public var name: String
        public var support: Support
    }

    public var elements: [Element] = []
    public var sessions: Int
    public var clean: Int
    public var modelClean: Int

    public init(model: NavigationModel, tally: CoverageAnalysis.Tally) {
        sessions = tally.check.sessions
        clean = tally.check.clean
        modelClean = tally.check.modelClean
        let used = tally.used
        func support(_ clues: [(Clue, Support)]) -> Support {
            var total = Support()
            for (_, each) in clues { total.merge(each) }
            return total
        }
        for flow in model.flowNames.sorted() {
            elements.append(Element(kind: "flow", name: flow, support: used.clues[.flow(flow)] ?? Self.initialSupport(flow, model, used)))
            for tab in model.flows[flow]?.tabs ?? [] {
                let shows = used.all { if case .tab(tab, _) = $0 { $0 } else { nil } }
                elements.append(Element(kind: "tab", name: "\(flow)/\(tab)", support: support(shows)))
            }
        }
        for stack in model.stackNames.sorted() {
            for route in model.stacks[stack]?.routes ?? [] {
                elements.append(
                    Element(kind: "route", name: "\(stack)/\(route)", support: used.clues[.route(stack: stack, route: route)] ?? Support()))
            }
        }
        for modal in model.modalNames.sorted() {
            elements.append(
                Element(kind: "modal", name: modal, support: support(used.all { if case .modal(modal, _) = $0 { $0 } else { nil } })))
        }
        for command in model.commandNames.sorted() {
            elements.append(Element(kind: "command", name: command, support: used.clues[.command(command)] ?? Support()))
        }
    }

    /// A flow no event names is used by every session that starts in it without naming it.
    static func initialSupport(_ flow: String, _ model: NavigationModel, _ used: Evidence) -> Support {
        guard flow == model.initial.flow else { return Support() }
        var total = Support()
        for (clue, support) in used.clues { if case .stackInFlow(_, nil) = clue { total.merge(support) } }
        return Support(count: min(total.count, used.sessions), sessions: total.sessions)
    }

    /// The declared routes, modals, commands and tabs that no session reached.
    public var unreached: [Element] { elements.filter { $0.support.count == 0 && $0.kind != "flow" } }

    public func text() -> String {
        var out =
            "coverage: \(sessions) session(s); \(clean) clean (\(percent(clean))), \(modelClean) clean of the model's rules (\(percent(modelClean)))\n"
        out += "\nused, with the sessions that used each:\n"
        for element in elements where element.support.count > 0 {
            out += "  \(element.kind) \(element.name): \(element.support.count) (\(element.support.sessions.joined(separator: ", ")))\n"
        }
        out += "\ndeclared, reached by no session:\n"
        if unreached.isEmpty { out += "  none\n" }
        for element in unreached { out += "  \(element.kind) \(element.name)\n" }
        return out
    }

    func percent(_ count: Int) -> String {
        sessions == 0 ? "-" : String(Double(count * 1000 / sessions) / 10) + "%"
    }

    public func json() -> String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("sessions")
        writer.int(sessions)
        writer.key("clean_sessions")
        writer.int(clean)
        writer.key("model_clean_sessions")
        writer.int(modelClean)
        writer.key("elements")
        writer.beginArray()
        for element in elements {
            writer.beginObject()
            writer.member("kind", element.kind)
            writer.member("name", element.name)
            writer.key("sessions")
            writer.int(element.support.count)
            writer.key("examples")
            writer.beginArray()
            for session in element.support.sessions { writer.string(session) }
            writer.endArray()
            writer.endObject()
        }
        writer.endArray()
        writer.key("unreached")
        writer.beginArray()
        for element in unreached {
            writer.beginObject()
            writer.member("kind", element.kind)
            writer.member("name", element.name)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.string + "\n"
    }
}
