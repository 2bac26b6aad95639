public import NavModel
public import NavReplay
import NavEvents

/// A change to a draft that a finding under it calls for: each one widens the draft.
public enum DraftFix: Hashable, Sendable, Comparable {
    case dropSingleton(stack: String, route: String)
    case clampPops(String)
    case popToFirst(String)
    case allowModal(modal: String, flow: String, style: String)
    case addRoute(stack: String, route: String)
    /// A command's group operated on a stack its flow does not own: the command resets it.
    case addReset(command: String, stack: String)

    public static func < (lhs: DraftFix, rhs: DraftFix) -> Bool { String(describing: lhs) < String(describing: rhs) }
}

/// The third pass of `infer`, and the last of `coverage`: each session folded with a model, its
/// findings sorted into those a wider model would not have (with the change that removes them)
/// and those no model removes.
public struct InferCheck: SessionAnalysis {
    /// The rules whose findings depend on the model: a draft must leave none. Every other rule
    /// judges the log itself (its transport, its schema, the events' own claims), which no model
    /// changes.
    public static let modelRules: Set<Rule> = [
        .stackNotOwned, .stackUnknown, .flowUnknown, .commandUnknown, .commandPostcondition, .routeUnknown, .routeSingleton,
        .routePosition, .stackOutOfRange, .tabInvalid, .modalNotAllowed,
    ]

    public let model: NavigationModel

    public init(model: NavigationModel) { self.model = model }

    public var readsStates: Bool { false }

    public struct Tally: Sendable, Equatable {
        public var sessions = 0
        /// Sessions without a finding of a model rule, and without any finding.
        public var modelClean = 0
        public var clean = 0
        public var fixes: [DraftFix: Support] = [:]
        /// Sessions with findings, by rule.
        public var rules: [Rule: Support] = [:]
        /// Each session with findings, and its rules.
        public var unexplained: [String: Set<Rule>] = [:]

        public init() {}
    }

    public func makeTally() -> Tally { Tally() }

    public func merge(_ other: consuming Tally, into tally: inout Tally) {
        tally.sessions += other.sessions
        tally.modelClean += other.modelClean
        tally.clean += other.clean
        for (fix, support) in other.fixes { tally.fixes[fix, default: Support()].merge(support) }
        for (rule, support) in other.rules { tally.rules[rule, default: Support()].merge(support) }
        for (session, rules) in other.unexplained { tally.unexplained[session, default: []].formUnion(rules) }
    }

    public func add(_ audit: SessionAudit, weight: Int, to tally: inout Tally) throws {
        let session = audit.sessionID
        tally.sessions += weight
        let rules = Set(audit.findings.map(\.rule)).union(audit.droppedFindings.keys)
        var fixes: Set<DraftFix> = []
        if !rules.isEmpty {
            var flow = model.initial.flow
            var group: (id: String, command: String?) = ("", nil)
            try audit.forEachOutlinedStep { step, outline in
                let event = step.event
                if event.correlationID != group.id { group = (event.correlationID, nil) }
                if case .commandApplied(let command, _, _) = event.payload, group.command == nil { group.command = command }
                for finding in step.findings {
                    if finding.rule == .stackNotOwned, let command = group.command, let stack = event.payload.stack {
                        fixes.insert(.addReset(command: command, stack: stack))
                    } else if let fix = fix(for: finding, event: event, flow: flow) {
                        fixes.insert(fix)
                    }
                }
                flow = outline.flow
            }
        }
        if rules.isDisjoint(with: Self.modelRules) { tally.modelClean += weight }
        if rules.isEmpty { tally.clean += weight }
        for fix in fixes { tally.fixes[fix, default: Support()].add(session, weight: weight) }
        for rule in rules { tally.rules[rule, default: Support()].add(session, weight: weight) }
        if !rules.isEmpty {
            if weight > 0 { tally.unexplained[session, default: []].formUnion(rules) } else { tally.unexplained[session] = nil }
        }
    }

    /// The change that removes a finding, if a wider model would not have it.
    func fix(for finding: Finding, event: NavigationEvent, flow: String) -> DraftFix? {
        switch (finding.rule, event.payload) {
        case (.routeSingleton, .routePush(let stack, _, let route, _)), (.routeSingleton, .routeReplace(let stack, _, let route, _)),
            (.routeSingleton, .routeInsert(let stack, let route, _, _)):
            return .dropSingleton(stack: stack, route: route)
        case (.stackOutOfRange, .routePop(let stack, _, _, .count)):
            return .clampPops(stack)
        case (.stateMismatch, let payload):
            guard let stack = payload.stack, model.stacks[stack]?.popTo == .last else { return nil }
            return .popToFirst(stack)
        case (.modalNotAllowed, .modalPresent(let modal, let style)):
            return .allowModal(modal: modal, flow: flow, style: style.rawValue)
        case (.routeUnknown, .routePush(let stack, _, let route, _)), (.routeUnknown, .routeReplace(let stack, _, let route, _)),
            (.routeUnknown, .routeInsert(let stack, let route, _, _)):
            return .addRoute(stack: stack, route: route)
        default:
            return nil
        }
    }
}

extension DraftModel {
    /// The draft with a fix applied; `false` when it changes nothing.
    mutating func apply(_ fix: DraftFix) -> Bool {
        let before = self
        switch fix {
        case .dropSingleton(let stack, let route): stacks[stack]?.singletons.remove(route)
        case .clampPops(let stack): stacks[stack]?.clampedPops = true
        case .popToFirst(let stack): stacks[stack]?.popTo = .first
        case .allowModal(let modal, let flow, let style):
            guard var spec = modals[modal] else { break }
            if let flows = spec.flows, !flows.contains(flow), self.flows[flow] != nil { spec.flows = (flows + [flow]).sorted() }
            if let styles = spec.styles, !styles.contains(style) { spec.styles = (styles + [style]).sorted() }
            modals[modal] = spec
        case .addReset(let command, let stack):
            if let reset = commands[command]?.reset, !reset.contains(stack), stacks[stack] != nil {
                commands[command]?.reset = (reset + [stack]).sorted()
            }
        case .addRoute(let stack, let route):
            if let routes = stacks[stack]?.routes, !routes.contains(route) { stacks[stack]?.routes = (routes + [route]).sorted() }
        }
        return self != before
    }
}
