/// What analytics reads of the state after a step: its flow, tab and modals, and its deepest
/// stack (`SessionAuditOptions.outlineSteps`). The fold hands these on as they are, where a
/// `StepStates` rebuilds a whole state (every stack's names) after every step.
public struct StepOutline: Sendable, Equatable {
    public var flow: String
    public var tab: String?
    /// The presented modals, the top one last.
    public var modals: [String]
    /// The most routes any stack holds (0 without stacks).
    public var deepestStack: Int

    public init(flow: String, tab: String? = nil, modals: [String] = [], deepestStack: Int = 0) {
        self.flow = flow
        self.tab = tab
        self.modals = modals
        self.deepestStack = deepestStack
    }

    /// The outline of the state a cursor is at.
    public init(_ cursor: StepStates.Cursor) {
        var deepest = 0
        cursor.forEachStackDepth { _, depth in deepest = max(deepest, depth) }
        self.init(flow: cursor.currentFlow, tab: cursor.currentTab, modals: cursor.currentModals, deepestStack: deepest)
    }
}

extension SessionAudit {
    /// Each step in order with the outline of the state after it: from `outlines` when the audit
    /// kept them (`SessionAuditOptions.outlineSteps`), else from the states (`forEachStep`), so
    /// that a session audited from disk, or with its states, reads the same.
    public func forEachOutlinedStep(_ body: (ReplayStep, StepOutline) throws -> Void) throws {
        guard outlines.isEmpty else {
            for index in steps.indices { try body(steps[index], outlines[index]) }
            return
        }
        try forEachStep { step, cursor in try body(step, StepOutline(cursor)) }
    }
}

extension NavigationFold {
    /// The outline of the state after the events applied so far.
    var outline: StepOutline {
        var deepest = 0
        for number in working.routes.indices where working.listed[number] { deepest = max(deepest, working.routes[number].count) }
        for routes in working.otherStacks.values { deepest = max(deepest, routes.count) }
        return StepOutline(flow: working.flow, tab: working.tab, modals: working.modals, deepestStack: deepest)
    }
}
