public import NavJSON

/// A broken rule, as a rule's check describes it: what its finding says. The fold adds where
/// and when (session, seq, event, the states); a router maps the check's result to its refusal.
///
/// Each rule's check lives in the rule's file in this directory, beside its description: a pure
/// function of the model and the state or event values it judges, that returns `nil` when the
/// rule holds. Checks are called on every event, so the rule holding costs no allocation: the
/// message and values are built only for a violation.
public struct Violation: Sendable, Equatable {
    public var rule: Rule
    public var message: String
    /// The value the state (or the model) expected, where the rule compares values.
    public var expected: JSONValue?
    /// The value the event (or the snapshot) claimed.
    public var found: JSONValue?
    /// The part of the state whose last change is the finding's witness.
    public var setBy: Setter

    public init(_ rule: Rule, _ message: String, expected: JSONValue? = nil, found: JSONValue? = nil, setBy: Setter = .none) {
        self.rule = rule
        self.message = message
        self.expected = expected
        self.found = found
        self.setBy = setBy
    }

    /// The part of the state that set up what a violation breaks: the event that last changed it
    /// is the finding's witness.
    public enum Setter: Sendable, Equatable {
        case none
        case flow
        case tab
        case stack(String)
        case modal(String)
        /// A given event (`nil`: none).
        case event(EventReference?)
    }
}

/// How findings' messages write values.
enum Phrase {
    static func quoted(_ text: String) -> String { JSONWriter.quoted(text) }

    /// A name, quoted, or `null`.
    static func value(_ value: String?) -> String { value.map(JSONWriter.quoted) ?? "null" }

    /// A stack's top route, quoted, or `the root`.
    static func top(_ route: String?) -> String { route.map(JSONWriter.quoted) ?? "the root" }

    /// Presented modals (or any names), or `none`.
    static func listOrNone(_ names: [String]) -> String {
        names.isEmpty ? "none" : ListedNames(names).joined(separator: ", ")
    }
}
