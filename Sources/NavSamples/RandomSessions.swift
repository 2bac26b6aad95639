public import NavModel
import NavEvents
import NavRouter

/// Sessions of random users on any model, written by the router itself: each action is drawn
/// from what the model declares (a push of one of a stack's routes, a pop, a return, a tab, a
/// modal, a command, a deep link), and the router refuses what the model forbids, so every
/// session is one the app could log. Seeded: the same arguments give the same events.
///
/// ```swift
/// let sessions = RandomSessions.generate(model: SpaceHubSystem.system.model, count: 100, seed: 7)
/// ```
public enum RandomSessions {
    /// `count` sessions, `s-<prefix>-1` …, each of 8 to 60 actions.
    public static func generate(model: NavigationModel, count: Int, seed: UInt64, prefix: String = "random") -> [SampleSession] {
        var random = SplitMix64(seed: seed)
        return (1...max(count, 1)).prefix(count).map { number in
            let driver = ScenarioDriver(
                sessionID: "s-\(prefix)-\(number)", seed: random.next(), startMilliseconds: 1_795_680_000_000 + Int64(number) * 600_000,
                model: model)
            driver.step { $0.start() }
            let actions = 8 + Int(random.next() % 53)
            for _ in 0..<actions { driver.step { act($0, &random) } }
            return SampleSession(id: driver.router.sessionID, events: driver.events)
        }
    }

    /// One random action; refusals and no-ops write nothing.
    static func act(_ router: NavigationRouter, _ random: inout SplitMix64) {
        let model = router.model
        let stacks = model.stackNames
        func pick<T>(_ list: [T]) -> T? { list.isEmpty ? nil : list[Int(random.next() % UInt64(list.count))] }
        func routes(_ stack: String?) -> [String] { stack.flatMap { model.stacks[$0]?.routes } ?? [] }
        func params(_ stack: String?) -> RouteParams? {
            guard let stack, model.stacks[stack]?.identity == .value, random.next() % 2 == 0 else { return nil }
            return RouteParams([("id", .string("v\(random.next() % 3)"))])
        }
        let stack = router.activeStack
        switch random.next() % 25 {
        case 0...6:
            if let route = pick(routes(stack)) { router.push(route, params: params(stack)) }
        case 7:
            if let other = pick(stacks), let route = pick(routes(other)) { router.push(route, on: other, params: params(other)) }
        case 8, 9:
            // Two only where the stack holds two, or clamps: a pop beyond the depth is a finding.
            let depth = stack.map { router.state.stacks[$0]?.count ?? 0 } ?? 0
            let clamps = stack.flatMap { model.stacks[$0]?.clampedPops } ?? false
            router.pop(depth >= 2 || clamps ? 1 + Int(random.next() % 2) : 1)
        case 10:
            router.popToRoot()
        case 11:
            if let stack, let route = pick(router.state.stacks[stack] ?? []) { router.popTo(route) }
        case 12:
            if let route = pick(routes(stack)) { router.replaceLast(route, params: params(stack)) }
        case 13:
            if let route = pick(routes(stack)) { router.openOnce(route, params: params(stack)) }
        case 14, 15:
            if let tab = pick(model.flows[router.state.flow]?.tabs ?? []) { router.selectTab(tab) }
        case 16, 17:
            if let modal = pick(model.modalNames) {
                let styles = model.modals[modal]?.styles?.compactMap(ModalStyle.init(rawValue:)) ?? ModalStyle.allCases
                router.present(modal, style: pick(styles) ?? .sheet)
            }
        case 18:
            router.dismissTop()
        case 19:
            router.dismiss(from: .visible)
        case 20, 21:
            if let command = pick(model.commandNames) { router.apply(command: command) }
        case 22:
            if let link = pick(model.deepLinks.links) {
                let url = link.pattern.map { $0.hasPrefix(":") ? "\(random.next() % 50)" : $0 }
                router.open(deepLink: "app://" + url.joined(separator: "/"))
            }
        case 23:
            if let stack, let route = pick(router.state.stacks[stack] ?? []) { router.remove(route, params: params(stack)) }
        default:
            if let stack, let route = pick(routes(stack)) {
                let depth = router.state.stacks[stack]?.count ?? 0
                router.insert(route, at: Int(random.next() % UInt64(depth + 1)), on: stack, params: params(stack))
            }
        }
    }
}
