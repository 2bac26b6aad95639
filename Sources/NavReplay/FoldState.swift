import NavEvents
import NavJSON
import NavModel

/// `NavigationState` in the fold's working form: the routes of the model's stacks in an array
/// indexed by stack number, each route a symbol (`SessionSymbols`), so that an event reaches its
/// stack without hashing names and compares routes as integers. `state(_:_:)` builds the public
/// form only when it is asked for: findings, steps, the end of a session.
struct FoldState: Sendable, Equatable {
    var flow: String
    var tab: String?
    var modals: [String]
    /// The routes of each model stack, by number; empty where the state does not list it.
    var routes: [[Symbol]]
    /// Whether the state lists each model stack (every state does, but one given to
    /// `NavigationFold.init(model:state:)`, which may leave some out).
    var listed: [Bool]
    /// Stacks the model does not declare, carried unchanged (only a given state has them).
    var otherStacks: [String: [String]]
    /// The parameters of each route, beside `routes`, for the stacks that compare routes by
    /// value (`identity: value`); empty for the others. `syncParams(_:)` keeps the lengths.
    var params: [[RouteParams?]]

    init(_ state: NavigationState, table: StackTable, symbols: inout SessionSymbols) {
        flow = state.flow
        tab = state.tab
        modals = state.modals
        routes = Array(repeating: [], count: table.count)
        listed = Array(repeating: false, count: table.count)
        otherStacks = [:]
        params = Array(repeating: [], count: table.count)
        for (name, stackRoutes) in state.stacks {
            if let number = table.number(of: name) {
                routes[number] = stackRoutes.map { symbols.intern($0) }
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

    func state(_ table: StackTable, _ symbols: SessionSymbols) -> NavigationState {
        var stacks = otherStacks
        stacks.reserveCapacity(otherStacks.count + table.count)
        for number in routes.indices where listed[number] { stacks[table.names[number]] = symbols.names(routes[number]) }
        return NavigationState(flow: flow, tab: tab, stacks: stacks, modals: modals)
    }

    /// A stack's routes by name; `nil` when the state does not list it.
    func routeNames(of stack: String, in table: StackTable, _ symbols: SessionSymbols) -> [String]? {
        if let number = table.number(of: stack) { return listed[number] ? symbols.names(routes[number]) : nil }
        return otherStacks[stack]
    }

    /// A stack's top route by name; `nil` when it is empty or the state does not list it.
    func top(of stack: String, in table: StackTable, _ symbols: SessionSymbols) -> String? {
        if let number = table.number(of: stack) { return listed[number] ? routes[number].last.map(symbols.name) : nil }
        return otherStacks[stack]?.last
    }

    /// Whether the top route of stack `number` is `route` (`nil`: the stack is empty).
    func topIs(_ route: String?, number: Int, _ symbols: SessionSymbols) -> Bool {
        guard let top = routes[number].last else { return route == nil }
        guard let route else { return false }
        return symbols.name(top) == route
    }

    /// A stack's depth; 0 when the state does not list it.
    func depth(of stack: String, in table: StackTable) -> Int {
        if let number = table.number(of: stack) { return listed[number] ? routes[number].count : 0 }
        return otherStacks[stack]?.count ?? 0
    }

    /// Empties a stack.
    mutating func empty(_ stack: String, in table: StackTable) {
        if let number = table.number(of: stack) {
            routes[number].removeAll()
            listed[number] = true
            if table.valueIdentity[number] { syncParams(number) }
        } else {
            otherStacks[stack] = []
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
    func holds(_ route: Symbol, params value: RouteParams?, number: Int, in range: Range<Int>) -> Bool {
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
    /// A struct, not a tuple: an optional tuple is destroyed through the runtime's generic
    /// `tuple_destroy`, which makes dropping a group's tracker cost about 500 instructions.
    private struct Entry: Sendable {
        var identity: UInt64
        var reference: EventReference
    }
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
            first = Entry(identity: identity, reference: reference)
        } else if second == nil {
            second = Entry(identity: identity, reference: reference)
        } else if others.count < 30 {
            others.append(Entry(identity: identity, reference: reference))
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
