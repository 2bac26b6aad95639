public import NavJSON

/// The router state that a log folds back into (docs/events-and-rules.md).
///
/// `stacks` holds the route names above each stack's root, bottom first (an empty stack shows
/// its root screen); `modals` lists the presented modals, the last one on top.
public struct NavigationState: Sendable, Hashable {
    public var flow: String
    public var tab: String?
    public var stacks: [String: [String]]
    public var modals: [String]

    public init(flow: String, tab: String? = nil, stacks: [String: [String]] = [:], modals: [String] = []) {
        self.flow = flow
        self.tab = tab
        self.stacks = stacks
        self.modals = modals
    }

    /// The route on top of a stack; `nil` for its root.
    public func top(of stack: String) -> String? {
        stacks[stack]?.last
    }

    public func depth(of stack: String) -> Int {
        stacks[stack]?.count ?? 0
    }

    /// Writes the state as in docs/events-and-rules.md, with stacks in name order.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("flow", flow)
        writer.member("tab", tab)
        writer.key("stacks")
        writer.beginObject()
        for name in stacks.keys.sorted() {
            writer.key(name)
            writer.beginArray()
            for route in stacks[name] ?? [] { writer.string(route) }
            writer.endArray()
        }
        writer.endObject()
        writer.key("modals")
        writer.beginArray()
        for modal in modals { writer.string(modal) }
        writer.endArray()
        writer.endObject()
    }

    public var json: String {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.string
    }
}

/// A screen that can be visible: the top of a stack (its root when `route` is nil), or a modal.
public enum Screen: Sendable, Hashable {
    case stack(String, route: String?)
    case modal(String)

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        switch self {
        case .stack(let stack, let route):
            writer.member("stack", stack)
            writer.member("route", route)
        case .modal(let modal):
            writer.member("modal", modal)
        }
        writer.endObject()
    }

    /// A short human form: `tab1/detail`, `tab1/(root)`, `modal:paywall`.
    public var label: String {
        switch self {
        case .stack(let stack, let route): "\(stack)/\(route ?? "(root)")"
        case .modal(let modal): "modal:\(modal)"
        }
    }
}

extension NavigationModel {
    /// The visible screen in a state: the top modal, else the top of the active stack; `nil`
    /// when there is neither (docs/events-and-rules.md, Modals).
    ///
    /// A top modal that owns a stack (`modals.<name>.stack`) shows its stack's top route once
    /// routes are pushed on it (`.stack(stack, route:)`), and itself while the stack is empty.
    public func visibleScreen(in state: NavigationState) -> Screen? {
        if let modal = state.modals.last {
            if let stack = modals[modal]?.stack, let route = state.top(of: stack) {
                return .stack(stack, route: route)
            }
            return .modal(modal)
        }
        guard let stack = activeStack(flow: state.flow, tab: state.tab) else { return nil }
        return .stack(stack, route: state.top(of: stack))
    }

    /// The screen as `visibleScreen(in:)` names it: the root of a modal's own stack
    /// (`.stack(stack, route: nil)`) is that modal (`.modal(name)`); anything else is itself.
    public func canonicalScreen(_ screen: Screen) -> Screen {
        if case .stack(let stack, nil) = screen, let modal = owningModal(of: stack) { return .modal(modal) }
        return screen
    }
}
