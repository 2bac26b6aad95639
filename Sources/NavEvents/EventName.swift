#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
public import NavJSON

/// The event names of contract v1 (docs/events-and-rules.md). Raw values are the wire names and never change.
public enum EventName: String, Sendable, CaseIterable, Hashable {
    /// A session begins, from the model's initial state or a restored snapshot.
    case sessionStart = "session_start"
    /// A route is pushed on a stack.
    case routePush = "route_push"
    /// Routes are popped from a stack: a count, or all of them (`to_root`).
    case routePop = "route_pop"
    /// The top route of a stack is replaced (the space hub's `replaceLast`).
    case routeReplace = "route_replace"
    /// A stack is popped until a route is on top (the space hub's `popTo`).
    case routePopTo = "route_pop_to"
    /// A route is inserted at an index of a stack.
    case routeInsert = "route_insert"
    /// Every occurrence of a route is removed from a stack (the space hub's `remove`).
    case routeRemove = "route_remove"
    /// The active flow changes; only inside a command's or deep link's correlation group.
    case flowSwitch = "flow_switch"
    /// The selected tab changes.
    case tabSwitch = "tab_switch"
    /// A cross-flow command starts; its changes follow under the same correlation id.
    case commandApplied = "command_applied"
    /// A modal (sheet, cover or overlay) is presented.
    case modalPresent = "modal_present"
    /// A modal is dismissed, with every modal above it.
    case modalDismiss = "modal_dismiss"
    /// A screen became visible; changes nothing, states what is shown.
    case screenView = "screen_view"
    /// A deep link was opened; its changes follow under the same correlation id.
    case deepLink = "deep_link"

    /// The name whose wire text a scanned string is, matched on the raw bytes (no `String`).
    public static func match(_ token: StringToken, in scanner: JSONScanner) -> EventName? {
        matchHashed(token, in: scanner)?.name
    }

    /// `match(_:in:)`, with the name's identity hash (`StableHash.string` of its text), kept in
    /// the table: a matched name needs no pass over its bytes to hash it.
    static func matchHashed(_ token: StringToken, in scanner: JSONScanner) -> (name: EventName, hash: UInt64)? {
        guard !token.hasEscapes, token.rawCount <= WireEntry.maximumLength else { return nil }
        let base = scanner.bytes.baseAddress! + token.start
        for index in wireTable.indices where wireTable[index].length == token.rawCount {
            let matches = withUnsafeBytes(of: wireTable[index].bytes) { memcmp($0.baseAddress!, base, token.rawCount) == 0 }
            if matches { return (wireTable[index].name, wireTable[index].hash) }
        }
        return nil
    }

    /// A name's wire text inline, with its hash: a table of plain values, which decoding jobs
    /// read without retaining anything (the array of arrays it replaced was retained and
    /// released on every line, by every job at once: 1% of a 1 GB audit).
    private struct WireEntry {
        static let maximumLength = 16
        var bytes: (UInt64, UInt64) = (0, 0)
        var length: Int
        var name: EventName
        var hash: UInt64
    }

    /// Made once and never freed: it lives as long as the process.
    nonisolated(unsafe) private static let wireTable: UnsafeBufferPointer<WireEntry> = {
        let table = UnsafeMutableBufferPointer<WireEntry>.allocate(capacity: allCases.count)
        for (index, name) in allCases.enumerated() {
            let text = Array(name.rawValue.utf8)
            precondition(text.count <= WireEntry.maximumLength)
            var entry = WireEntry(length: text.count, name: name, hash: StableHash.string(name.rawValue))
            withUnsafeMutableBytes(of: &entry.bytes) { target in text.withUnsafeBytes { target.copyMemory(from: $0) } }
            (table.baseAddress! + index).initialize(to: entry)
        }
        return UnsafeBufferPointer(table)
    }()

    /// The event names, sorted, as a human list for messages.
    public static let wireNames: String = allCases.map(\.rawValue).sorted().joined(separator: ", ")
}

/// How a modal is shown.
public enum ModalStyle: String, Sendable, CaseIterable, Hashable {
    case sheet, cover, overlay
}

/// Whether a deep link resolved to its target or fell back to a safe root.
public enum DeepLinkOutcome: String, Sendable, CaseIterable, Hashable {
    case resolved, fallback
}
