public import NavEvents
public import NavModel
public import NavReplay
public import Testing

/// The events as `navreplay` reads them: each encoded as its canonical line and decoded
/// again, numbered as lines 1, 2, … of file `file`.
///
/// - Throws: the decoding error of the first event whose canonical line is not a valid event
///   (which is a bug in the encoder, the decoder or the event).
public func sessionLines(_ events: [NavigationEvent], file: Int32 = 0) throws(EventDecodingError) -> [SessionLine] {
    let decoder = EventDecoder()
    var lines: [SessionLine] = []
    lines.reserveCapacity(events.count)
    for (index, event) in events.enumerated() {
        switch decoder.decode(event.canonicalJSON) {
        case .success(let decoded):
            lines.append(SessionLine(decoded: decoded, location: LineLocation(file: file, line: Int64(index + 1))))
        case .failure(let error):
            throw EventDecodingError(field: error.field, message: "event at seq \(event.seq): \(error.message)")
        }
    }
    return lines
}

/// Audits one session's events exactly as `navreplay audit` would (through canonical lines).
public func auditSession(
    _ events: [NavigationEvent], model: NavigationModel = .poc, sessionID: String? = nil
) throws(EventDecodingError) -> SessionAudit {
    let lines = try sessionLines(events)
    return SessionAuditor.audit(
        sessionID: sessionID ?? events.first?.sessionID ?? "", lines: lines, model: model)
}

/// The differences between an expected and an actual state, one per line, or `nil` when equal.
public func stateDifference(expected: NavigationState, actual: NavigationState) -> String? {
    guard expected != actual else { return nil }
    let changes = expected.changes(to: actual)
    let lines = changes.isEmpty ? ["(the states differ only in stacks absent on one side)"] : changes.map { "  \($0)" }
    return "expected → actual:\n" + lines.joined(separator: "\n")
}

/// A one-line summary of findings: `rule@seq` in output order.
public func findingSummary(_ findings: [Finding]) -> String {
    findings.isEmpty ? "none" : findings.map { "\($0.rule.rawValue)@\($0.seq.map(String.init) ?? "-")" }.joined(separator: ", ")
}

/// Replays events and checks, exhaustively, what the fold makes of them.
///
/// The expected final state is the start state (the model's initial state unless `from` is
/// given) changed by `update`; the expected findings are `findings`, as rule ids in output
/// order (none by default). A failure names what differs:
///
/// ```swift
/// expectReplay(events) {
///     $0.flow = "authorized"
///     $0.stacks["tab1"] = ["list"]
/// }
/// ```
@discardableResult
public func expectReplay(
    _ events: [NavigationEvent], model: NavigationModel = .poc, from start: NavigationState? = nil,
    findings expectedRules: [Rule] = [], sourceLocation: SourceLocation = #_sourceLocation,
    _ update: (inout NavigationState) -> Void = { _ in }
) -> SessionAudit? {
    let checked = checkReplay(events, model: model, from: start, findings: expectedRules, update)
    for problem in checked.problems { Issue.record(Comment(rawValue: problem), sourceLocation: sourceLocation) }
    return checked.audit
}

/// The replay `expectReplay` checks, with each difference from what is expected as one
/// message (none when the replay is as expected).
public func checkReplay(
    _ events: [NavigationEvent], model: NavigationModel = .poc, from start: NavigationState? = nil,
    findings expectedRules: [Rule] = [], _ update: (inout NavigationState) -> Void = { _ in }
) -> (audit: SessionAudit?, problems: [String]) {
    let audit: SessionAudit
    do {
        audit = try auditSession(events, model: model)
    } catch {
        return (nil, ["an event does not survive its canonical line: \(error)"])
    }
    var expected = start ?? model.initialState
    update(&expected)
    var problems: [String] = []
    let rules = audit.findings.map(\.rule)
    if rules != expectedRules {
        let detail = audit.findings.map { "  \($0.rule.rawValue) at seq \($0.seq.map(String.init) ?? "-"): \($0.message)" }
        var message = "findings: expected [\(expectedRules.map(\.rawValue).joined(separator: ", "))], "
        message += "found [\(rules.map(\.rawValue).joined(separator: ", "))]"
        if !detail.isEmpty { message += "\n" + detail.joined(separator: "\n") }
        problems.append(message)
    }
    if let difference = stateDifference(expected: expected, actual: audit.finalState) {
        problems.append("final state differs, \(difference)")
    }
    return (audit, problems)
}
