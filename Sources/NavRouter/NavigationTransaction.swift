public import NavEvents
public import NavModel

/// The operations of one `NavigationRouter.transaction(_:)`: the router's operations, applied
/// in order to a scratch copy of its state, and committed together as one user action.
///
/// Each operation throws the refusal that the router would return for it alone; a thrown
/// refusal abandons the whole transaction. An operation with nothing to do (popping an empty
/// stack, selecting the selected tab) does nothing and does not throw, as the router's
/// `.unchanged`.
public struct NavigationTransaction {
    var draft: TransitionDraft

    init(draft: TransitionDraft) {
        self.draft = draft
    }

    /// The state so far, with the operations applied up to now.
    public var state: NavigationState { draft.state }

    /// The stack that operations without a stack name act on (see `NavigationRouter.activeStack`).
    public var activeStack: String? { draft.model.activeStack(in: draft.state) }

    public mutating func push(_ route: String, on stack: String? = nil, params: RouteParams? = nil) throws(NavigationRefusal) {
        try draft.push(route, on: stack, params: params)
    }

    public mutating func pop(_ count: Int = 1, on stack: String? = nil) throws(NavigationRefusal) {
        try draft.pop(count, on: stack)
    }

    public mutating func popToRoot(on stack: String? = nil) throws(NavigationRefusal) {
        try draft.popToRoot(on: stack)
    }

    public mutating func popTo(_ route: String, params: RouteParams? = nil, on stack: String? = nil) throws(NavigationRefusal) {
        try draft.popTo(route, params: params, on: stack)
    }

    public mutating func popToFirstOpened(on stack: String? = nil) throws(NavigationRefusal) {
        try draft.popToFirstOpened(on: stack)
    }

    public mutating func replaceLast(_ route: String, on stack: String? = nil, params: RouteParams? = nil) throws(NavigationRefusal) {
        try draft.replaceLast(route, on: stack, params: params)
    }

    public mutating func insert(
        _ route: String, at index: Int, on stack: String? = nil, params: RouteParams? = nil
    ) throws(NavigationRefusal) {
        try draft.insert(route, at: index, on: stack, params: params)
    }

    public mutating func remove(_ route: String, params: RouteParams? = nil, from stack: String? = nil) throws(NavigationRefusal) {
        try draft.remove(route, params: params, from: stack)
    }

    public mutating func openOnce(_ route: String, on stack: String? = nil, params: RouteParams? = nil) throws(NavigationRefusal) {
        try draft.openOnce(route, on: stack, params: params)
    }

    public mutating func selectTab(_ tab: String) throws(NavigationRefusal) {
        try draft.selectTab(tab)
    }

    public mutating func present(_ modal: String, style: ModalStyle = .sheet) throws(NavigationRefusal) {
        try draft.present(modal, style: style)
    }

    public mutating func dismiss(_ modal: String) throws(NavigationRefusal) {
        try draft.dismiss(modal)
    }

    public mutating func dismiss(from context: NavigationContext = .visible) throws(NavigationRefusal) {
        try draft.smartDismiss(from: context)
    }

    public mutating func close(from context: NavigationContext = .visible) throws(NavigationRefusal) {
        try draft.close(from: context)
    }

    public mutating func apply(command: String) throws(NavigationRefusal) {
        try draft.applyCommand(command)
    }
}
