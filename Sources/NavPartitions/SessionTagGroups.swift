/// A partition's records grouped by their session tag, each group's in their original order,
/// the groups in the order their first record comes.
///
/// A counting sort: one pass finds each record's group in a small open-addressing table keyed
/// by the tag (already the high half of a hash: no hashing again, no `Dictionary`), a second
/// places the record indices group by group. A group usually holds one session; two sessions
/// whose tags collide share a group, and the caller tells them apart once decoded.
package struct SessionTagGroups {
    /// Record indices, group by group.
    private var order: [Int32]
    /// Where each group's indices begin in `order`, and, last, `order.count`.
    private var starts: [Int]

    package init(_ tags: [UInt32]) {
        precondition(tags.count < Int(Int32.max), "a partition holds fewer than 2^31 records")
        var table = TagTable()
        var groupOf = [Int32](repeating: 0, count: tags.count)
        var counts: [Int] = []
        for (index, tag) in tags.enumerated() {
            let group = table.group(of: tag, next: Int32(counts.count))
            if group == counts.count { counts.append(0) }
            counts[Int(group)] += 1
            groupOf[index] = group
        }
        starts = []
        starts.reserveCapacity(counts.count + 1)
        var total = 0
        for count in counts {
            starts.append(total)
            total += count
        }
        starts.append(total)
        var next = starts
        order = [Int32](repeating: 0, count: tags.count)
        for (index, group) in groupOf.enumerated() {
            order[next[Int(group)]] = Int32(index)
            next[Int(group)] += 1
        }
    }

    package var count: Int { starts.count - 1 }

    /// The record indices of group `group`, in their original order.
    package func members(of group: Int) -> ArraySlice<Int32> { order[starts[group]..<starts[group + 1]] }
}

/// Tag to group number, by linear probing in a table kept at most half full.
private struct TagTable {
    private var tags = [UInt32](repeating: 0, count: 1024)
    /// The group number plus one; 0 is an empty slot.
    private var groups = [Int32](repeating: 0, count: 1024)
    private var used = 0

    /// The group of `tag`; `next` (and a new slot) if the tag is new.
    package mutating func group(of tag: UInt32, next: Int32) -> Int32 {
        var slot = Int(tag) & (tags.count - 1)
        while groups[slot] != 0 {
            if tags[slot] == tag { return groups[slot] - 1 }
            slot = (slot + 1) & (tags.count - 1)
        }
        tags[slot] = tag
        groups[slot] = next + 1
        used += 1
        if used * 2 > tags.count { grow() }
        return next
    }

    private mutating func grow() {
        let oldTags = tags
        let oldGroups = groups
        tags = [UInt32](repeating: 0, count: oldTags.count * 2)
        groups = [Int32](repeating: 0, count: oldTags.count * 2)
        for (slot, group) in oldGroups.enumerated() where group != 0 {
            var target = Int(oldTags[slot]) & (tags.count - 1)
            while groups[target] != 0 { target = (target + 1) & (tags.count - 1) }
            tags[target] = oldTags[slot]
            groups[target] = group
        }
    }
}
