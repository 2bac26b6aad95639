public import NavJSON

/// A list of names as a finding shows it, in its message and in `expected` or `found`: a
/// stack's routes, the presented modals, a group's commands, a model's declared names.
///
/// A log can build a stack, or present modals, without bound; a finding that spelled the whole
/// list out at every event made output and memory grow with depth x events (a crash hunt's
/// 4.7 MB log of `route_pop_to`s wrote 720 MB and peaked at 3.3 GB). Past `limit` names a
/// finding shows the first `head` (a stack's root end) and the last `limit - head` (its top),
/// with one entry between them that says how many it leaves out: `… 19984 more …`.
public struct ListedNames: Sendable {
    public static let limit = 16
    public static let head = 4

    /// The names shown, with the marker of the left-out ones in place.
    public let shown: [String]

    public init<Names: Collection<String>>(_ names: Names) {
        guard names.count > Self.limit else {
            shown = Array(names)
            return
        }
        let tail = Self.limit - Self.head
        shown = Array(names.prefix(Self.head)) + [Self.marker(leftOut: names.count - Self.limit)] + Array(names.suffix(tail))
    }

    /// The entry that stands for the names left out.
    public static func marker(leftOut count: Int) -> String { "… \(count) more …" }

    public func joined(separator: String) -> String { shown.joined(separator: separator) }

    public var json: JSONValue { .array(shown.map(JSONValue.string)) }
}
