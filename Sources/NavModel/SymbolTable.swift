/// A name the model declares (a flow, tab, stack, route, modal or command), as a small integer:
/// the fold keeps and compares these rather than `String`s. A name the model does not declare
/// gets a symbol from the fold's own table, above the model's (NavReplay's `SessionSymbols`).
package struct Symbol: Hashable, Sendable {
    package var raw: UInt32

    package init(raw: UInt32) { self.raw = raw }
}

/// Every name a model declares, by symbol, built once per model (one namespace: a stack and a
/// route of the same name share a symbol, which no check confuses, as each compares names of one
/// kind), with each stack's declared routes as symbols in the order of `StackSpec.routes`.
package final class SymbolTable: Sendable {
    /// The model's names, indexed by `Symbol.raw`.
    package let names: [String]
    private let symbols: [String: Symbol]
    /// The symbols of each stack's declared routes (by stack number, parallel to
    /// `StackSpec.routes`); `nil` for a stack that accepts any route.
    package let routeSymbols: [[Symbol]?]

    init(
        flowNames: [String], stacks: StackTable, modalNames: [String], commandNames: [String]
    ) {
        var names: [String] = []
        var symbols: [String: Symbol] = [:]
        func intern(_ name: String) -> Symbol {
            if let symbol = symbols[name] { return symbol }
            let symbol = Symbol(raw: UInt32(names.count))
            names.append(name)
            symbols[name] = symbol
            return symbol
        }
        for name in flowNames { _ = intern(name) }
        for name in stacks.names { _ = intern(name) }
        routeSymbols = stacks.specs.map { spec in spec.routes.map { $0.map(intern) } }
        for name in modalNames { _ = intern(name) }
        for name in commandNames { _ = intern(name) }
        self.names = names
        self.symbols = symbols
    }

    /// How many names the model declares: the symbols below this are the model's.
    package var count: Int { names.count }

    /// The symbol of a name the model declares; `nil` for any other.
    package func symbol(of name: String) -> Symbol? { symbols[name] }
}
