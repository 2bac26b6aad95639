import NavModel

/// The model's symbols (`SymbolTable`) and, above them, those of names the model does not
/// declare, interned once per fold (that is per session): the fold's state holds symbols, and
/// turns them back into names only for what it writes out.
struct SessionSymbols: Sendable {
    let table: SymbolTable
    /// `table.names` and its count, held here: the table is in another module, and reading them
    /// through it at every name cost a call.
    private let modelNames: [String]
    private let modelCount: Int
    /// `table.routeSymbols`, held here for the same reason.
    private let routeSymbols: [[Symbol]?]
    /// Undeclared names, by `Symbol.raw - table.count`.
    private(set) var extraNames: [String] = []
    private var extraSymbols: [String: Symbol] = [:]

    init(_ table: SymbolTable) {
        self.table = table
        modelNames = table.names
        modelCount = table.names.count
        routeSymbols = table.routeSymbols
    }

    /// The symbol of any name: the model's, or one given to it on its first use.
    mutating func intern(_ name: String) -> Symbol {
        if let symbol = table.symbol(of: name) ?? extraSymbols[name] { return symbol }
        let symbol = Symbol(raw: UInt32(modelCount + extraNames.count))
        extraNames.append(name)
        extraSymbols[name] = symbol
        return symbol
    }

    /// The symbol of a route entering stack `number`, and whether the stack declares it: found by
    /// the scan of the stack's short list of routes that `route.unknown` makes anyway, without a
    /// hash.
    mutating func route(_ name: String, number: Int, in stacks: StackTable) -> (symbol: Symbol, declared: Bool) {
        guard let declared = stacks.declaredRoutes[number], let symbols = routeSymbols[number] else { return (intern(name), true) }
        guard declared.count <= StackTable.shortList else { return (intern(name), stacks.accepts(name, number: number)) }
        if let index = declared.firstIndex(of: name) { return (symbols[index], true) }
        return (intern(name), false)
    }

    /// The symbol of a name already interned; `nil` when it never was (then no state holds it).
    func existing(_ name: String) -> Symbol? {
        table.symbol(of: name) ?? extraSymbols[name]
    }

    func name(_ symbol: Symbol) -> String {
        let raw = Int(symbol.raw)
        return raw < modelCount ? modelNames[raw] : extraNames[raw - modelCount]
    }

    func names(_ symbols: [Symbol]) -> [String] {
        symbols.map(name)
    }
}
