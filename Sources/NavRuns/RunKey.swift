import NavJSON

/// The key of a run file's record: a label within a group. Keys order by the label's UTF-8
/// bytes, then by group, and compare and hash as bytes, not by `String`'s Unicode equivalence,
/// so that two labels that differ only in normalisation stay two keys wherever they travel.
package struct RunKey: Hashable, Comparable, Sendable {
    package var group: Int
    package var label: String

    package init(group: Int, label: String) {
        self.group = group
        self.label = label
    }

    package static func == (lhs: RunKey, rhs: RunKey) -> Bool {
        lhs.group == rhs.group && lhs.label.utf8Equals(rhs.label)
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(group)
        let hashed: Void? = label.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if hashed == nil { for byte in label.utf8 { hasher.combine(byte) } }
    }

    package static func < (lhs: RunKey, rhs: RunKey) -> Bool {
        if !lhs.label.utf8Equals(rhs.label) { return lhs.label.utf8Precedes(rhs.label) }
        return lhs.group < rhs.group
    }
}
