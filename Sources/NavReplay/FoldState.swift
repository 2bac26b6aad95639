import NavEvents
import NavJSON
import NavModel

/// `NavigationState` in the fold's working form: the routes of the model's stacks in an array
/// indexed by stack number, so that an event reaches its stack without hashing names (the
/// String-keyed dictionaries were a fifth of the fold's profile). `state(_:)` builds the
/// public form only when it is asked for: findings, steps, the end of a session.
struct FoldState: Sendable, Equatable {
    var flow: String
    var tab: String?
    var modals: [String]
    /// The routes of each model stack, by number; empty where the state does not list it.
    var routes: [[String]]
    /// Whether the state lists each model stack (every state does, but one given to
    /// `NavigationFold.init(model:state:)`, which may leave some out).
    var listed: [Bool]
    /// Stacks the model does not declare, carried unchanged (only a given state has them).
    var otherStacks: [String: [String]]
    /// The parameters of each route, beside `routes`, for the stacks that compare routes by
    /// value (`identity: value`); empty for the others. `syncParams(_:)` keeps the lengths.
    var params: [[RouteParams?]]

    init(_ state: NavigationState, table: StackTable) {
        flow = state.flow
        tab = state.tab
        modals = state.modals
        routes = Array(repeating: [], count: table.count)
        listed = Array(repeating: false, count: table.count)
        otherStacks = [:]
        params = Array(repeating: [], count: table.count)
        for (name, stackRoutes) in state.stacks {
            if let number = table.number(of: name) {
                routes[number] = stackRoutes
                listed[number] = true
            } else {
                otherStacks[name] = stackRoutes
            }
        }
    }

    /// `NavigationModel.initialState`.
    init(initialOf model: NavigationModel, table: StackTable) {
        flow = model.initial.flow
        tab = model.initial.tab
        modals = []
        routes = Array(repeating: [], count: table.count)
        listed = Array(repeating: false, count: table.count)
        otherStacks = [:]
        params = Array(repeating: [], count: table.count)
        for name in model.stackNames {
            if let number = table.number(of: name) { listed[number] = true } else { otherStacks[name] = [] }
        }
    }

    func state(_ table: StackTable) -> NavigationState {
        var stacks = otherStacks
        stacks.reserveCapacity(otherStacks.count + table.count)
        for number in routes.indices where listed[number] { stacks[table.names[number]] = routes[number] }
        return NavigationState(flow: flow, tab: tab, stacks: stacks, modals: modals)
    }

    /// A stack's routes; `nil` when the state does not list it.
    func routes(of stack: String, in table: StackTable) -> [String]? {
        if let number = table.number(of: stack) { return listed[number] ? routes[number] : nil }
        return otherStacks[stack]
    }

    mutating func setRoutes(_ newRoutes: [String], of stack: String, in table: StackTable) {
        if let number = table.number(of: stack) {
            routes[number] = newRoutes
            listed[number] = true
            if table.valueIdentity[number] { syncParams(number) }
        } else {
            otherStacks[stack] = newRoutes
        }
    }
}

extension FoldState {
    /// Fits a value-identity stack's parameters to its routes after a change at its top: a cut
    /// drops the parameters above, a route added without parameters (an adopted top) has none.
    mutating func syncParams(_ number: Int) {
        let count = routes[number].count
        if params[number].count > count {
            params[number].removeLast(params[number].count - count)
        } else if params[number].count < count {
            params[number].append(contentsOf: repeatElement(nil, count: count - params[number].count))
        }
    }

    /// Whether a route with these parameters stands in `range` of a value-identity stack.
    func holds(_ route: String, params value: RouteParams?, number: Int, in range: Range<Int>) -> Bool {
        let value = value.flatMap { $0.isEmpty ? nil : $0 }
        return range.contains { routes[number][$0] == route && (params[number][$0].flatMap { $0.isEmpty ? nil : $0 }) == value }
    }
}

/// The events of one correlation group by content identity, for `analytics.duplicate`.
///
/// A group is one user action, a handful of events, mostly one or two: those are kept inline
/// (an array was an allocation per group), a few more in a list searched linearly, and a long
/// group moves to a dictionary.
struct ContentIdentities: Sendable {
    private typealias Entry = (identity: UInt64, reference: EventReference)
    private var first: Entry?
    private var second: Entry?
    private var others: [Entry] = []
    private var table: [UInt64: EventReference]?

    subscript(identity: UInt64) -> EventReference? {
        if let table { return table[identity] }
        if let first, first.identity == identity { return first.reference }
        if let second, second.identity == identity { return second.reference }
        for entry in others where entry.identity == identity { return entry.reference }
        return nil
    }

    /// Records an identity that is not recorded yet.
    mutating func insert(_ identity: UInt64, _ reference: EventReference) {
        if table != nil {
            table![identity] = reference
        } else if first == nil {
            first = (identity, reference)
        } else if second == nil {
            second = (identity, reference)
        } else if others.count < 30 {
            others.append((identity, reference))
        } else {
            var table = Dictionary(uniqueKeysWithValues: others.map { ($0.identity, $0.reference) })
            for entry in [first, second].compactMap({ $0 }) { table[entry.identity] = entry.reference }
            table[identity] = reference
            self.table = table
            first = nil
            second = nil
            others = []
        }
    }
}
