public import NavEvents
import NavJSON
public import NavModel

/// The second half of a session audit: the session's folded events, one at a time in content
/// order, through `NavigationFold`, with the checks between consecutive events (gaps, a missing
/// or late `session_start`, the clock) and what the audit keeps (findings up to the cap, screens,
/// steps). `SessionAuditor` drives it over a session held in memory; a session too large for
/// memory is driven from its sorted lines on disk, one line at a time (`NavPartitions`), and gives
/// the same audit.
///
/// What it holds does not grow with the events, but for what the audit keeps: the findings up to
/// twice the cap, the screens, and, with `recordSteps`, the steps (or, with `rollingSteps`, the
/// last step's state only).
package struct SessionFolding {
    package let sessionID: String
    package let options: SessionAuditOptions
    private var fold: NavigationFold
    private var audit: SessionAudit
    private var findings: [Finding] = []
    private let keptFindingsBound: Int
    /// With `rollingSteps`: the state after the last step only (for a walk that hands each step on
    /// as it folds, `StepStates.Cursor` at it).
    private let rollingSteps: Bool
    /// With `recordSteps` and `outlineSteps`: each step's outline is kept, not its state.
    private let outlinesSteps: Bool
    private var previous: (seq: Int64, timestamp: Timestamp, reference: EventReference)?
    private var firstGapSeq: Int64?
    /// The findings of the group that ended at the last event, held until the next one: if seqs
    /// are missing right after it, the group's lost events may be those, and they are after the gap.
    private var endedAtLastEvent: [Finding] = []
    private var folded = 0
    private var first: (seq: Int64, timestamp: Timestamp)?

    /// `rollingSteps`: keep the last step's state only (`lastStep`), not every step's.
    package init(sessionID: String, model: NavigationModel, options: SessionAuditOptions, rollingSteps: Bool = false) {
        self.sessionID = sessionID
        self.options = options
        self.rollingSteps = rollingSteps
        outlinesSteps = options.recordSteps && options.outlineSteps && !rollingSteps
        fold = NavigationFold(model: model)
        fold.keepsStates = options.keepStates
        // The final state is set at the end.
        audit = SessionAudit(sessionID: sessionID, findings: [], finalState: NavigationState(flow: ""))
        if (options.recordSteps && !outlinesSteps) || rollingSteps {
            audit.states = StepStates(initial: fold.state, rolling: rollingSteps)
        }
        // Findings past the cap are counted, not kept: the first `maxFindings` in output order
        // are kept, and the others dropped as they pile up (at twice the cap), so that a session
        // of a million findings holds 2 x the cap, not a million. (Later findings can still come
        // first in output order: a group's postcondition is found at its end.)
        keptFindingsBound = options.maxFindings < Int.max / 4 ? max(2 * options.maxFindings, 1024) : Int.max
    }

    /// A finding found before the fold (identity and sequence: `event_id.conflict`,
    /// `seq.duplicate`), in the order they are found.
    package mutating func add(_ finding: Finding) {
        findings.append(finding)
        if findings.count >= keptFindingsBound { keepFirstFindings() }
    }

    package mutating func add(contentsOf early: [Finding]) {
        for finding in early { add(finding) }
    }

    /// A line not folded (it lost its seq), with its findings, kept with `recordSteps`.
    package mutating func addUnfolded(_ line: UnfoldedLine) {
        if options.recordSteps && !rollingSteps { audit.unfolded.append(line) }
    }

    /// Folds the next event in content order; `endsGroup`: it is the last event of its
    /// correlation group; `earlyFindings`: the findings found before the fold on its line (they
    /// were added with `add(_:)`), which its step lists first. Returns the step with `rollingSteps`
    /// (`recordSteps` keeps it in the audit).
    @discardableResult
    package mutating func fold(
        _ event: NavigationEvent, at location: LineLocation, contentIdentity: UInt64?, endsGroup: Bool,
        earlyFindings: [Finding] = []
    ) -> ReplayStep? {
        var eventFindings: [Finding] = []
        // With `keepStates`: the state before the event, taken at its first note.
        var stateBefore: NavigationState?
        func note(_ violation: Violation) {
            let witness: EventReference? = if case .event(let reference) = violation.setBy { reference } else { nil }
            let finding = Finding(
                rule: violation.rule, sessionID: sessionID, seq: event.seq, eventID: event.eventID, location: location,
                message: violation.message, expected: violation.expected, found: violation.found, witness: witness,
                eventName: event.name)
            if options.keepStates, stateBefore == nil { stateBefore = fold.state }  // notes come before the event is applied
            eventFindings.append(finding)
        }
        let previousReference = previous?.reference
        var gapBefore = false
        if let previous, let violation = SeqGap.check(seq: event.seq, previousSeq: previous.seq, previous: previousReference) {
            note(violation)
            if firstGapSeq == nil { firstGapSeq = event.seq }
            fold.startResynchronising()
            gapBefore = true
        }
        if !endedAtLastEvent.isEmpty { keepEndedAtLastEvent(gapAfter: gapBefore) }
        if let violation = SessionNoStart.check(event.name, seq: event.seq, previous: previousReference) { note(violation) }
        if let previous,
            let violation = ClockRegression.check(
                event.timestamp, previousSeq: previous.seq, previousTimestamp: previous.timestamp, previous: previousReference)
        {
            note(violation)
        }
        let applied = fold.apply(event, at: location, contentIdentity: contentIdentity)
        if !applied.isEmpty { eventFindings += applied }
        var ended: [Finding] = []
        if endsGroup {
            ended = fold.endGroup(event.correlationID)
            // A group whose events span a gap (it ends after it; its finding is at an event
            // before it): the lost events may explain what it did not do.
            if !ended.isEmpty, let firstGapSeq, event.seq >= firstGapSeq {
                for index in ended.indices { ended[index].afterGap = true }
            }
            if !ended.isEmpty { eventFindings += ended }
        }
        if let before = stateBefore {
            // The notes (the first findings of the event) are explained here; the fold
            // explained its own.
            let explanation = StateExplanation(before: before, after: fold.state)
            for index in eventFindings.indices where eventFindings[index].stateAfter == nil {
                eventFindings[index].explain(explanation)
            }
        }
        if options.recordScreens, let screen = fold.visibleScreen, audit.screens.last != screen {
            audit.screens.append(screen)
        }
        var step: ReplayStep?
        if rollingSteps {
            step = ReplayStep(event: event, location: location, findings: earlyFindings + eventFindings)
            audit.states.record(fold.state)
        } else if options.recordSteps {
            // Appended, not kept for the caller: a copy of the step is a retain of each of its
            // event's strings.
            audit.steps.append(
                ReplayStep(
                    event: event, location: location, findings: earlyFindings.isEmpty ? eventFindings : earlyFindings + eventFindings))
            if outlinesSteps { audit.outlines.append(fold.outline) } else { audit.states.record(fold.state) }
        }
        if !eventFindings.isEmpty {
            // The group's findings not yet after a gap wait for the next event (`endedAtLastEvent`).
            let held = ended.first.map { !$0.afterGap } ?? false
            findings += held ? eventFindings.dropLast(ended.count) : eventFindings[...]
            if held { endedAtLastEvent = ended }
            if findings.count >= keptFindingsBound { keepFirstFindings() }
        }
        if first == nil { first = (event.seq, event.timestamp) }
        previous = (event.seq, event.timestamp, EventReference(event, at: location))
        folded += 1
        return step
    }

    /// Room for `count` more steps (with `recordSteps`), so that the steps grow once.
    package mutating func reserveSteps(_ count: Int) {
        guard options.recordSteps, !rollingSteps else { return }
        audit.steps.reserveCapacity(audit.steps.count + count)
        if outlinesSteps { audit.outlines.reserveCapacity(audit.outlines.count + count) }
    }

    /// With `rollingSteps`: the state after the last step folded, and what it changed.
    package var lastStep: StepStates.Cursor { audit.states.cursorAtLast() }

    /// The findings of the group that ended at the last event, after a gap if one comes right
    /// after it.
    private mutating func keepEndedAtLastEvent(gapAfter: Bool) {
        if gapAfter {
            for index in endedAtLastEvent.indices { endedAtLastEvent[index].afterGap = true }
        }
        findings += endedAtLastEvent
        endedAtLastEvent.removeAll()
        if findings.count >= keptFindingsBound { keepFirstFindings() }
    }

    private mutating func keepFirstFindings() {
        findings.sortForOutput()
        if findings.count > options.maxFindings {
            for dropped in findings[options.maxFindings...] { audit.droppedFindings[dropped.rule, default: 0] += 1 }
            findings.removeSubrange(options.maxFindings...)
        }
    }

    /// The audit, once every line is folded or set aside.
    package consuming func finish(redeliveries: Int, duplicates: Int, eventsPastUntil: Int) -> SessionAudit {
        if !endedAtLastEvent.isEmpty { keepEndedAtLastEvent(gapAfter: false) }
        if let firstGapSeq {
            for index in findings.indices where (findings[index].seq ?? -1) >= firstGapSeq {
                findings[index].afterGap = true
            }
        }
        keepFirstFindings()
        audit.findings = findings
        audit.redeliveries = redeliveries
        audit.duplicates = duplicates
        audit.events = folded
        audit.eventsPastUntil = eventsPastUntil
        audit.firstSeq = first?.seq
        audit.lastSeq = previous?.seq
        audit.start = first?.timestamp
        audit.end = previous?.timestamp
        audit.finalState = fold.state
        if rollingSteps { audit.states = SessionAudit.noSteps }
        return audit
    }
}
