public import NavEvents
public import NavJSON
public import NavModel

/// Where a line came from: an index into the audit's list of input files, and a 1-based line.
///
/// Files are numbered in sorted path order, so comparing locations compares paths, and the
/// output does not depend on the order the files were given in.
public struct LineLocation: Sendable, Hashable, Comparable {
    public var file: Int32
    public var line: Int64

    public init(file: Int32, line: Int64) {
        self.file = file
        self.line = line
    }

    public static func < (lhs: LineLocation, rhs: LineLocation) -> Bool {
        (lhs.file, lhs.line) < (rhs.file, rhs.line)
    }
}

/// A short reference to an event, used as the witness of a finding.
public struct EventReference: Sendable, Hashable {
    public var seq: Int64
    public var eventID: String
    public var name: EventName
    public var location: LineLocation?

    public init(seq: Int64, eventID: String, name: EventName, location: LineLocation?) {
        self.seq = seq
        self.eventID = eventID
        self.name = name
        self.location = location
    }

    public init(_ event: NavigationEvent, at location: LineLocation?) {
        self.init(seq: event.seq, eventID: event.eventID, name: event.name, location: location)
    }
}

/// One broken rule, with what a person needs to see why without rereading the log.
public struct Finding: Sendable {
    public var rule: Rule
    public var severity: Severity { rule.severity }
    /// `nil` for a line that could not be read as an event.
    public var sessionID: String?
    public var seq: Int64?
    public var eventID: String?
    public var location: LineLocation?
    public var message: String
    /// The value the rebuilt state (or the model) expected, where the rule compares values.
    public var expected: JSONValue?
    /// The value the event claimed.
    public var found: JSONValue?
    /// Whether a `seq.gap` came at or before this finding's seq (its cause may be the loss).
    public var afterGap: Bool = false
    /// The earlier event that set up the expectation this one breaks.
    public var witness: EventReference?
    /// The offending event's name.
    public var eventName: EventName?
    /// The state before the finding's event (or the command, link or flow switch it judges) and
    /// after it, with `keepStates`. Every list of more than `ListedNames.limit` names is condensed
    /// as findings list names: a finding's size does not grow with a stack's depth
    /// (`explain(before:after:)` sets both).
    public var stateBefore: NavigationState?
    public var stateAfter: NavigationState?
    /// What changed, found on the whole states when a list was condensed (`nil`: found on
    /// `stateBefore` and `stateAfter`, which are whole).
    private var condensedChanges: [StateChange]?

    /// What changed from `stateBefore` to `stateAfter`, long lists condensed; empty without them.
    public var changes: [StateChange] {
        if let condensedChanges { return condensedChanges }
        guard let stateBefore, let stateAfter else { return [] }
        return stateBefore.changes(to: stateAfter)
    }

    mutating func setStates(before: NavigationState, after: NavigationState, changes: [StateChange]?) {
        stateBefore = before
        stateAfter = after
        condensedChanges = changes
    }

    public init(
        rule: Rule, sessionID: String?, seq: Int64?, eventID: String?, location: LineLocation?, message: String,
        expected: JSONValue? = nil, found: JSONValue? = nil, witness: EventReference? = nil,
        eventName: EventName? = nil
    ) {
        self.rule = rule
        self.sessionID = sessionID
        self.seq = seq
        self.eventID = eventID
        self.location = location
        self.message = message
        self.expected = expected
        self.found = found
        self.witness = witness
        self.eventName = eventName
    }

    /// The order of docs/events-and-rules.md: session-less findings first by location, then by session,
    /// seq and rule. Ties keep the order the fold reported them in (sort stably).
    public static func precedes(_ lhs: Finding, _ rhs: Finding) -> Bool {
        switch (lhs.sessionID, rhs.sessionID) {
        case (nil, nil):
            return (lhs.location ?? LineLocation(file: -1, line: 0)) < (rhs.location ?? LineLocation(file: -1, line: 0))
        case (nil, _?): return true
        case (_?, nil): return false
        case (let left?, let right?):
            if left != right { return left.utf8Precedes(right) }
            let leftSeq = lhs.seq ?? -1
            let rightSeq = rhs.seq ?? -1
            if leftSeq != rightSeq { return leftSeq < rightSeq }
            return lhs.rule < rhs.rule
        }
    }
}

extension JSONValue {
    /// A string, or `null` for `nil`: how expected and found values are written.
    public static func optionalString(_ value: String?) -> JSONValue {
        value.map(JSONValue.string) ?? .null
    }
}

extension Array where Element == Finding {
    /// Sorts findings into output order, keeping the fold's order for ties.
    public mutating func sortForOutput() {
        let indexed = enumerated().map { ($0.offset, $0.element) }
        self = indexed.sorted { lhs, rhs in
            if Finding.precedes(lhs.1, rhs.1) { return true }
            if Finding.precedes(rhs.1, lhs.1) { return false }
            return lhs.0 < rhs.0
        }.map(\.1)
    }
}

extension Finding: CustomStringConvertible {
    /// One line for people, as a router's `violations` print in a debugger or a log:
    /// `error state.mismatch, session "s-1" seq 9 (event e-9): route_pop on "tab1" claims …`.
    public var description: String {
        var text = "\(severity.rawValue) \(rule.rawValue)"
        if let sessionID { text += ", session \(JSONWriter.quoted(sessionID))" }
        if let seq { text += " seq \(seq)" }
        if let eventID { text += " (event \(JSONWriter.quoted(eventID)))" }
        if let location, sessionID == nil { text += " at line \(location.line)" }
        return text + ": " + message
    }
}
