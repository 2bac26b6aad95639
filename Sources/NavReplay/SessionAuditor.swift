public import NavEvents
import NavJSON
public import NavModel

/// One line of a session as read from the log: the decoded event, its identity and its place.
public struct SessionLine: Sendable {
    public var decoded: DecodedEvent
    public var location: LineLocation

    public init(decoded: DecodedEvent, location: LineLocation) {
        self.decoded = decoded
        self.location = location
    }

    public var event: NavigationEvent { decoded.event }
}

/// Options that change what a session audit keeps.
public struct SessionAuditOptions: Sendable {
    /// Keep the state after every folded event (for `replay` and reports).
    public var recordSteps = false
    /// Stop folding after this seq (`replay --until-seq`).
    public var untilSeq: Int64?
    /// Keep at most this many findings per session; the rest are counted, not kept.
    public var maxFindings = Int.max

    /// Keep each finding's state before and after (for explanations). A large audit that
    /// writes only the contract's keys turns it off: the states are most of a finding's memory.
    public var keepStates = true
    /// Record the visible screens of each session (`sessions`); an audit does not print them.
    public var recordScreens = true
    /// With `recordSteps`: keep an outline of the state after each step (`StepOutline`) rather
    /// than the state, for readers that need no more of it (`SessionAudit.forEachOutlinedStep`).
    /// Rebuilding each step's state costs an analytics command most of its fold.
    public var outlineSteps = false
    /// The owners of event ids that several sessions share, by the ids' `StableHash`: each id's
    /// first occurrence, in the first session (in `session_id` order) that has it (docs/events-and-rules.md,
    /// Identity). In any other session, every occurrence of such an id is an
    /// `event_id.conflict`. Found by `EarlierOccurrence.resolve`; one map serves every session
    /// of an app (an owner is never a conflict in its own session).
    public var earlierOccurrences: [UInt64: [EarlierOccurrence]] = [:]
    /// Sessions whose events may still be coming (an ingest's open sessions): the correlation
    /// group of a session's last event is left open, not judged, since its next events may
    /// complete it. Every other group ends at its highest seq, as in a whole session.
    public var openSessions: Set<String> = []

    public init(
        recordSteps: Bool = false, untilSeq: Int64? = nil, maxFindings: Int = .max, keepStates: Bool = true,
        recordScreens: Bool = true, outlineSteps: Bool = false
    ) {
        self.recordSteps = recordSteps
        self.untilSeq = untilSeq
        self.maxFindings = maxFindings
        self.keepStates = keepStates
        self.recordScreens = recordScreens
        self.outlineSteps = outlineSteps
    }
}

/// One folded event. The state after it, and what it changed, are in the session's `states`
/// (walked with `StepStates.Cursor`, in step order).
public struct ReplayStep: Sendable {
    public var event: NavigationEvent
    public var location: LineLocation
    public var findings: [Finding]
}

/// A line of the session that was not folded: it lost its seq to another event
/// (`seq.duplicate`). Kept, with its findings, when steps are (`recordSteps`).
public struct UnfoldedLine: Sendable {
    public var event: NavigationEvent
    public var location: LineLocation
    public var findings: [Finding]

    package init(event: NavigationEvent, location: LineLocation, findings: [Finding]) {
        self.event = event
        self.location = location
        self.findings = findings
    }
}

/// Everything the audit learned about one session.
public struct SessionAudit: Sendable {
    public var sessionID: String
    /// Findings in output order (by seq, then rule).
    public var findings: [Finding]
    /// Findings beyond `maxFindings`, counted but not kept, by rule.
    public var droppedFindings: [Rule: Int] = [:]
    /// Identical repeats of an event, counted and not folded again.
    public var redeliveries = 0
    /// Events not folded because another event won their seq (`seq.duplicate`).
    public var duplicates = 0
    /// Events folded.
    public var events = 0
    /// Events past `untilSeq`: read and valid, not folded. A summary counts them with `events`
    /// (as `replay` counts other sessions' lines), so that every line is accounted for.
    public var eventsPastUntil = 0
    public var firstSeq: Int64?
    public var lastSeq: Int64?
    public var start: Timestamp?
    public var end: Timestamp?
    public var finalState: NavigationState
    /// The visible screen after each folded event, consecutive repeats collapsed.
    public var screens: [Screen] = []
    public var steps: [ReplayStep] = []
    /// With `steps`: the state after each of them, in the same order.
    public var states = SessionAudit.noSteps
    /// With `steps` and `SessionAuditOptions.outlineSteps`: an outline of the state after each of
    /// them, in the same order, in place of `states`.
    public var outlines: [StepOutline] = []

    /// Shared by the audits that record no steps: an empty `StepStates` is an allocation.
    static let noSteps = StepStates(initial: NavigationState(flow: ""))
    /// With `steps`: the lines not folded, in seq order.
    public var unfolded: [UnfoldedLine] = []

    /// `end - start` in milliseconds (negative if the clock went backwards).
    public var durationMilliseconds: Int64? {
        guard let start, let end else { return nil }
        return end.epochMilliseconds - start.epochMilliseconds
    }

    public var findingCount: Int { findings.count + droppedFindings.values.reduce(0, +) }

    /// Where the steps come from when the audit keeps none (a session audited from disk, too
    /// large to keep them): its fold, walked again.
    package var stepWalk: (any StepWalk)?

    /// Each step in order, with a cursor at it: the state after it and what it changed. Throws
    /// only what `body` throws, or, for steps walked again from disk (`stepWalk`), what reading
    /// them back throws.
    public func forEachStep(_ body: (ReplayStep, StepStates.Cursor) throws -> Void) throws {
        try forEachEntry(step: body, unfolded: nil)
    }

    /// Each step in order, and each line not folded (`unfolded`) after the step of its seq (the
    /// event that won it).
    public func forEachEntry(
        step body: (ReplayStep, StepStates.Cursor) throws -> Void, unfolded: ((UnfoldedLine) throws -> Void)?
    ) throws {
        precondition(outlines.isEmpty, "the steps were outlined (outlineSteps): walk them with forEachOutlinedStep")
        if let stepWalk {
            try stepWalk.walk(body, unfolded: unfolded)
            return
        }
        var cursor = states.cursor()
        var pending = self.unfolded[...]
        for step in steps {
            _ = cursor.advance()
            try body(step, cursor)
            guard let unfolded else { continue }
            while let line = pending.first, line.event.seq <= step.event.seq {
                try unfolded(line)
                pending = pending.dropFirst()
            }
        }
    }
}

/// The steps of a session that keeps none, walked again from where they can be folded again
/// (`NavPartitions.LongSession`).
package protocol StepWalk: AnyObject, Sendable {
    /// Each step in order with a cursor at it, and each line not folded after the step of its seq.
    func walk(_ step: (ReplayStep, StepStates.Cursor) throws -> Void, unfolded: ((UnfoldedLine) throws -> Void)?) throws
}

extension SessionAudit {
    /// A session known by its findings alone (an audit that keeps nothing else of it: its
    /// final state is empty).
    public init(sessionID: String, findings: [Finding]) {
        self.init(sessionID: sessionID, findings: findings, finalState: NavigationState(flow: ""), states: SessionAudit.noSteps)
    }
}

/// Audits one whole session: removes redeliveries, settles duplicate seqs and conflicting
/// event ids, orders by `seq`, reports gaps, missing starts and clock regressions, and folds
/// the rest with `NavigationFold` (docs/events-and-rules.md, Identity and Sequence).
///
/// The result does not depend on the order of `lines`: every tie is broken by content
/// (seq, timestamp, event id) and then by location, which the caller numbers in path order.
public enum SessionAuditor {
    /// `lines` is taken (`consuming`): a caller that passes its last use of the array, or a
    /// temporary, lends it to the fold in place; one that keeps using it pays a copy of it.
    public static func audit(
        sessionID: String, lines: consuming [SessionLine], model: NavigationModel, options: SessionAuditOptions = .init()
    ) -> SessionAudit {
        audit(sessionID: sessionID, lines: &lines, model: model, options: options)
    }

    /// The same, for a caller that holds the only reference to `lines`: the events are folded
    /// in place, not copied (each is moved out of its line while it folds and back after), and
    /// `lines` is the same after.
    public static func audit(
        sessionID: String, lines: inout [SessionLine], model: NavigationModel, options: SessionAuditOptions = .init()
    ) -> SessionAudit {
        // Through a buffer pointer, `lines[i].decoded.event.seq` reads in place; through the
        // array, it copied the whole line (a dozen references) first.
        lines.withUnsafeMutableBufferPointer { audit(sessionID: sessionID, lines: $0, model: model, options: options) }
    }

    /// Where a line's event lies in it, to move the event out while it folds.
    private static let eventOffset = MemoryLayout<SessionLine>.offset(of: \SessionLine.decoded.event)!

    private static func audit(
        sessionID: String, lines mutableLines: UnsafeMutableBufferPointer<SessionLine>, model: NavigationModel,
        options: SessionAuditOptions
    ) -> SessionAudit {
        let lines = UnsafeBufferPointer(mutableLines)
        let eventOffset = Self.eventOffset
        var folding = SessionFolding(sessionID: sessionID, model: model, options: options)
        // The findings found before the fold, by line, for the steps (`recordSteps`): the steps
        // hold every finding of the session.
        var earlyFindings: [LineLocation: [Finding]] = [:]
        func report(_ finding: Finding) {
            if options.recordSteps, let location = finding.location { earlyFindings[location, default: []].append(finding) }
            folding.add(finding)
        }

        // Order every line by content first, so ties never depend on file order. Lines are
        // handled through indices: a SessionLine holds a dozen references, and copying it
        // (retain and release of each) was a third of the audit's time in the profile.
        var order = Array(lines.indices)
        if !isInOrder(lines) { order.sort { precedes(lines[$0], lines[$1]) } }

        // Redeliveries: an identical repeat of an event (same value, so same event_id) is
        // counted and not folded again. The first copy in location order is kept.
        var seenIdentities = Set<PrehashedKey>(minimumCapacity: lines.count)
        var unique: [Int] = []
        unique.reserveCapacity(order.count)
        var redeliveries = 0
        for index in order {
            if seenIdentities.insert(PrehashedKey(lines[index].decoded.identity)).inserted {
                unique.append(index)
            } else {
                redeliveries += 1
            }
        }

        // event_id.conflict: the same id with another content, after its first occurrence,
        // which may be in an earlier session.
        var byID = LinesByText(.eventID, capacity: unique.count)
        for index in unique {
            let earlier = byID.add(index, of: lines)
            if earlier == index {
                if let finding = conflictWithEarlierSession(lines[index], sessionID: sessionID, options: options) { report(finding) }
            } else {
                let first = lines[earlier]
                report(conflict(lines[index], sessionID: sessionID, first: EventReference(first.event, at: first.location)))
            }
        }

        // seq.duplicate: at one seq the earliest event (then the smallest event_id) is folded.
        var foldedIndices: [Int] = []
        foldedIndices.reserveCapacity(unique.count)
        var duplicates = 0
        var unfoldedIndices: [Int] = []
        for index in unique {
            if let winnerIndex = foldedIndices.last, lines[winnerIndex].decoded.event.seq == lines[index].decoded.event.seq {
                let winner = lines[winnerIndex]
                duplicates += 1
                if options.recordSteps { unfoldedIndices.append(index) }
                report(seqDuplicate(lines[index], sessionID: sessionID, winner: EventReference(winner.event, at: winner.location)))
            } else {
                foldedIndices.append(index)
            }
        }
        // Where each correlation group ends: its highest seq (before any --until-seq cut, so a
        // group cut in the middle is left open rather than judged incomplete). Folded seqs
        // ascend, so the last event of a group is its end.
        var byCorrelation = LinesByText(.correlationID, capacity: foldedIndices.count)
        for index in foldedIndices { _ = byCorrelation.add(index, of: lines) }
        var endsGroup = [Bool](repeating: false, count: lines.count)
        byCorrelation.forEachLatest { endsGroup[$0] = true }
        if let last = foldedIndices.last, options.openSessions.contains(sessionID) { endsGroup[last] = false }
        var eventsPastUntil = 0
        if let until = options.untilSeq {
            let before = foldedIndices.count
            foldedIndices.removeAll { lines[$0].decoded.event.seq > until }
            eventsPastUntil = before - foldedIndices.count
        }
        for index in unfoldedIndices where options.untilSeq.map({ lines[index].decoded.event.seq <= $0 }) ?? true {
            let location = lines[index].location
            folding.addUnfolded(UnfoldedLine(event: lines[index].event, location: location, findings: earlyFindings[location] ?? []))
        }
        folding.reserveSteps(foldedIndices.count)
        for lineIndex in foldedIndices {
            // The event is moved out of its line while it folds, and back in after: a copy of it
            // (a retain and a release of each of its strings) was 3% of an audit.
            let line = mutableLines.baseAddress! + lineIndex
            let location = line.pointee.location
            let contentIdentity = line.pointee.decoded.contentIdentity
            let eventInLine = (UnsafeMutableRawPointer(line) + eventOffset).assumingMemoryBound(to: NavigationEvent.self)
            let event = eventInLine.move()
            folding.fold(
                event, at: location, contentIdentity: contentIdentity, endsGroup: endsGroup[lineIndex],
                earlyFindings: options.recordSteps ? earlyFindings[location] ?? [] : [])
            eventInLine.initialize(to: consume event)
        }
        return folding.finish(redeliveries: redeliveries, duplicates: duplicates, eventsPastUntil: eventsPastUntil)
    }

    /// The `event_id.conflict` of a line whose event id is first met in this session, when the
    /// id's owner is an earlier session (`SessionAuditOptions.earlierOccurrences`).
    package static func conflictWithEarlierSession(_ line: SessionLine, sessionID: String, options: SessionAuditOptions) -> Finding? {
        guard !options.earlierOccurrences.isEmpty,
            let first = options.earlierOccurrences[line.decoded.eventIDHash]?.first(where: { $0.eventID.utf8Equals(line.event.eventID) }),
            !first.sessionID.utf8Equals(sessionID)
        else { return nil }
        return finding(
            EventIDConflict.violation(eventID: line.event.eventID, firstSession: first.sessionID, first: first.reference), line,
            sessionID: sessionID)
    }

    /// The `event_id.conflict` of a line whose event id an earlier line of the session has, with
    /// another content.
    package static func conflict(_ line: SessionLine, sessionID: String, first: EventReference) -> Finding {
        finding(EventIDConflict.violation(eventID: line.event.eventID, first: first), line, sessionID: sessionID)
    }

    /// The `seq.duplicate` of a line whose seq `winner` took.
    package static func seqDuplicate(_ line: SessionLine, sessionID: String, winner: EventReference) -> Finding {
        finding(SeqDuplicate.violation(seq: line.event.seq, line.event.name, winner: winner), line, sessionID: sessionID)
    }

    private static func finding(_ violation: Violation, _ line: SessionLine, sessionID: String) -> Finding {
        let witness: EventReference? = if case .event(let reference) = violation.setBy { reference } else { nil }
        return Finding(
            rule: violation.rule, sessionID: sessionID, seq: line.event.seq, eventID: line.event.eventID, location: line.location,
            message: violation.message, witness: witness, eventName: line.event.name)
    }

    /// Whether the lines are already in content order (the usual case: a router writes in order).
    static func isInOrder(_ lines: UnsafeBufferPointer<SessionLine>) -> Bool {
        var index = 1
        while index < lines.count {
            if precedes(lines[index], lines[index - 1]) { return false }
            index += 1
        }
        return true
    }

    /// Content order: seq, then the earliest instant, then the smallest event id, then the
    /// identity (different contents), then the location (identical copies).
    static func precedes(_ lhs: SessionLine, _ rhs: SessionLine) -> Bool {
        let left = lhs.decoded.event
        let right = rhs.decoded.event
        if left.seq != right.seq { return left.seq < right.seq }
        if !left.timestamp.isSameInstant(as: right.timestamp) { return left.timestamp < right.timestamp }
        if left.eventID != right.eventID { return left.eventID.utf8Precedes(right.eventID) }
        if lhs.decoded.identity != rhs.decoded.identity { return lhs.decoded.identity < rhs.decoded.identity }
        return lhs.location < rhs.location
    }
}

/// Groups a session's lines by their `event_id` or `correlation_id`, keyed by the hash the
/// decoder computed while it scanned the text. No string is retained, hashed or released per
/// line (keyed by the strings, retaining and releasing them was a twentieth of the fold's time
/// on 1 GB); texts are compared only where hashes are equal, and a text whose hash another text
/// took first (a 64-bit collision) is keyed by itself, so two texts never merge.
struct LinesByText {
    enum Field { case eventID, correlationID }
    struct Group {
        var first: Int
        var latest: Int
    }

    private let field: Field
    private var byHash: [PrehashedKey: Group]
    private var collided: [String: Group] = [:]

    init(_ field: Field, capacity: Int) {
        self.field = field
        byHash = Dictionary(minimumCapacity: capacity)
    }

    /// Adds line `index` (after every line added before it); returns the first line added with
    /// the same text (`index` itself when it is the first).
    mutating func add(_ index: Int, of lines: UnsafeBufferPointer<SessionLine>) -> Int {
        let key = PrehashedKey(field == .eventID ? lines[index].decoded.eventIDHash : lines[index].decoded.correlationIDHash)
        guard let slot = byHash.index(forKey: key) else {
            byHash[key] = Group(first: index, latest: index)
            return index
        }
        let first = byHash.values[slot].first
        if sameText(first, index, lines) {
            byHash.values[slot].latest = index
            return first
        }
        let text = field == .eventID ? lines[index].decoded.event.eventID : lines[index].decoded.event.correlationID
        if let group = collided[text] {
            collided[text]?.latest = index
            return group.first
        }
        collided[text] = Group(first: index, latest: index)
        return index
    }

    /// The last line added of each text.
    func forEachLatest(_ body: (Int) -> Void) {
        for group in byHash.values { body(group.latest) }
        for group in collided.values { body(group.latest) }
    }

    private func sameText(_ a: Int, _ b: Int, _ lines: UnsafeBufferPointer<SessionLine>) -> Bool {
        switch field {
        case .eventID: lines[a].decoded.event.eventID == lines[b].decoded.event.eventID
        case .correlationID: lines[a].decoded.event.correlationID == lines[b].decoded.event.correlationID
        }
    }
}

/// A key that is already a good 64-bit hash (a `StableHash`): hashed by one mix, not SipHash.
package struct PrehashedKey: Hashable {
    package var hash: UInt64

    package init(_ hash: UInt64) { self.hash = hash }

    package func hash(into hasher: inout Hasher) { hasher.combine(hash) }

    package func _rawHashValue(seed: Int) -> Int { Self.rawHashValue(hash, seed: seed) }

    @inline(__always)
    static func rawHashValue(_ hash: UInt64, seed: Int) -> Int {
        Int(truncatingIfNeeded: StableHash.mix(hash ^ UInt64(truncatingIfNeeded: seed)))
    }
}
