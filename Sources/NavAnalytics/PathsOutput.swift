public import NavJSON
public import NavModel

extension PathsResult {
    /// `{"sessions", "screens", "transitions"}` (and `"tree"` around an anchor), every row.
    public func json() -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.member("sessions", sessions)
        writer.key("screens")
        writer.beginArray()
        for row in screens {
            writer.beginObject()
            writer.key("screen")
            row.screen.write(to: &writer)
            writer.member("sessions", row.sessions)
            writer.member("views", row.views)
            writer.endObject()
        }
        writer.endArray()
        writer.key("transitions")
        writer.beginArray()
        for row in transitions {
            writer.beginObject()
            writer.key("from")
            row.from.write(to: &writer)
            writer.key("to")
            row.to.write(to: &writer)
            writer.member("sessions", row.sessions)
            writer.member("count", row.count)
            writer.key("operations")
            writer.writeOperations(row.operations)
            writer.endObject()
        }
        writer.endArray()
        if let tree {
            writer.key("tree")
            writer.beginObject()
            writer.member("direction", tree.anchor.direction.rawValue)
            writer.key("screen")
            tree.anchor.screen.write(to: &writer)
            writer.member("steps", tree.anchor.steps)
            writer.member("sessions", tree.sessions)
            writer.key("children")
            Self.write(tree.children, to: &writer)
            writer.endObject()
        }
        writer.endObject()
        return writer.bytes + [UInt8(ascii: "\n")]
    }

    private static func write(_ nodes: [Node], to writer: inout JSONWriter) {
        writer.beginArray()
        for node in nodes {
            writer.beginObject()
            writer.key("screen")
            if let screen = node.screen { screen.write(to: &writer) } else { writer.null() }
            writer.member("sessions", node.sessions)
            writer.key("operations")
            writer.writeOperations(node.operationList)
            writer.key("children")
            write(node.children, to: &writer)
            writer.endObject()
        }
        writer.endArray()
    }

    /// The `top` rows of each table with an "other" row for the rest, and the tree with the
    /// `top` children of each node and an "other" row, so that each node's children add up.
    public func text(top: Int) -> String {
        var lines = ["\(sessions) session(s), \(screens.count) screen(s), \(transitions.count) transition(s)", ""]
        lines.append("Screens, by views:")
        var table: [[String]] = [["sessions", "views", "screen"]]
        for row in screens.prefix(top) { table.append(["\(row.sessions)", "\(row.views)", row.screen.label]) }
        if screens.count > top {
            let rest = screens.dropFirst(top)
            table.append(["", "\(rest.reduce(0) { $0 + $1.views })", "other (\(rest.count) screens)"])
        }
        lines += TextTable.lines(table, rightAligned: 2)
        lines += ["", "Transitions, by count:"]
        table = [["sessions", "count", "transition", "operations"]]
        for row in transitions.prefix(top) {
            table.append(["\(row.sessions)", "\(row.count)", row.from.label + " → " + row.to.label, Self.operationText(row.operations)])
        }
        if transitions.count > top {
            let rest = transitions.dropFirst(top)
            table.append(["", "\(rest.reduce(0) { $0 + $1.count })", "other (\(rest.count) transitions)", ""])
        }
        lines += TextTable.lines(table, rightAligned: 2)
        if let tree {
            let arrow = tree.anchor.direction == .from ? "out of" : "into"
            lines += ["", "Paths of \(tree.anchor.steps) step(s) \(arrow) \(tree.anchor.screen.label) (\(tree.sessions) sessions):"]
            Self.treeLines(tree.children, top: top, indent: "  ", direction: tree.anchor.direction, into: &lines)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func treeLines(
        _ nodes: [Node], top: Int, indent: String, direction: PathsAnalysis.Anchor.Direction, into lines: inout [String]
    ) {
        let end = direction == .from ? "(exit)" : "(start)"
        for node in nodes.prefix(top) {
            let operations = operationText(node.operationList)
            lines.append("\(indent)\(node.sessions)  \(node.screen?.label ?? end)" + (operations.isEmpty ? "" : "  (\(operations))"))
            treeLines(node.children, top: top, indent: indent + "  ", direction: direction, into: &lines)
        }
        if nodes.count > top {
            let rest = nodes.dropFirst(top)
            lines.append("\(indent)\(rest.reduce(0) { $0 + $1.sessions })  other (\(rest.count) screens)")
        }
    }

    public static func operationText(_ operations: [(operation: JourneyOperation, count: Int)]) -> String {
        operations.map { "\($0.operation.rawValue) \($0.count)" }.joined(separator: ", ")
    }
}

extension JSONWriter {
    /// `{"push": 3, "pop": 1}`: the operations in `JourneyOperation.allCases` order.
    mutating func writeOperations(_ operations: [(operation: JourneyOperation, count: Int)]) {
        beginObject()
        for (operation, count) in operations { member(operation.rawValue, count) }
        endObject()
    }
}

/// Columns padded to their widest cell; the first `rightAligned` columns aligned right.
enum TextTable {
    static func lines(_ rows: [[String]], rightAligned: Int) -> [String] {
        let columns = rows.map(\.count).max() ?? 0
        let widths = (0..<columns).map { column in rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
        return rows.map { row in
            let cells = row.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return column < rightAligned ? padding + cell : (column == row.count - 1 ? cell : cell + padding)
            }
            var line = "  " + cells.joined(separator: "  ")
            while line.last == " " { line.removeLast() }
            return line
        }
    }
}

extension PathsResult.Node {
    /// The operations in `JourneyOperation.allCases` order.
    public var operationList: [(operation: JourneyOperation, count: Int)] {
        JourneyOperation.allCases.compactMap { operation in operations[operation].map { (operation, $0) } }
    }
}
