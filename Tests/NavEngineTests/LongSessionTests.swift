import Foundation
import NavEvents
import NavJSON
import NavLongSessions
import NavModel
import NavReplay
import NavResults
import NavTestSupport
import Testing

@testable import NavEngine

/// A session audited from disk (`LongSession`, its lines sorted in runs on disk and read back one
/// at a time) gives the audit a session held in memory gives (`SessionAuditor`): the same
/// findings, counts, screens and final state, and the same steps and lines not folded, walked
/// again from disk. Random sessions with every identity case: redeliveries, seqs taken twice,
/// event ids reused with another content or owned by an earlier session, lost events, a clock
/// going back, groups left open, lines in any order.
@Suite("Long sessions folded from disk")
struct LongSessionTests {
    /// A random session's lines: random events (most break some rule), then redeliveries,
    /// duplicate seqs, reused event ids and a gap, shuffled.
    static func lines(seed: UInt64, count: Int) throws -> [SessionLine] {
        var random = SeededRandom(seed: seed)
        var builder = EventBuilder(sessionID: "s-long")
        let stacks = ["tab1", "tab2", "onboarding"]
        let routes = ["list", "detail", "settings", "feed", "welcome"]
        var events = [builder.start()]
        var group: String?
        for _ in 0..<count {
            let stack = stacks.randomElement(using: &random)!
            let payload: NavigationEvent.Payload
            switch Int.random(in: 0..<12, using: &random) {
            case 0, 1, 2, 3:
                payload = .routePush(
                    stack: stack, from: routes.randomElement(using: &random), to: routes.randomElement(using: &random)!, params: nil)
            case 4, 5: payload = .routePop(stack: stack, from: routes.randomElement(using: &random), to: nil, amount: .count(1))
            case 6: payload = .screenView(.stack(stack, route: routes.randomElement(using: &random)), params: nil)
            case 7: payload = .commandApplied(command: "goAuthorizedTab1Root", fromFlow: "onboarding", toFlow: "authorized")
            case 8: payload = .flowSwitch(from: "onboarding", to: ["authorized", "onboarding"].randomElement(using: &random)!)
            case 9: payload = .tabSwitch(from: "tab1", to: ["tab1", "tab2"].randomElement(using: &random)!)
            case 10: payload = .modalPresent(modal: ["paywall", "success"].randomElement(using: &random)!, style: .sheet)
            default: payload = .modalDismiss(modal: ["paywall", "success"].randomElement(using: &random)!)
            }
            // Some events share a correlation group with the ones before them.
            if Int.random(in: 0..<3, using: &random) == 0 { group = "g\(builder.nextSeq)" }
            events.append(builder.make(payload, correlationID: Bool.random(using: &random) ? group : nil))
        }
        var texts = events.map(\.canonicalJSON)
        for _ in 0..<(count / 20) {
            let index = Int.random(in: 0..<events.count, using: &random)
            switch Int.random(in: 0..<4, using: &random) {
            case 0: texts.append(texts[index])  // a redelivery
            case 1:
                // Another event at the same seq.
                var other = events[index]
                other.eventID += "-other"
                other.payload = .screenView(.stack("tab1", route: nil), params: nil)
                texts.append(other.canonicalJSON)
            case 2:
                // An event id used again with another content.
                var other = events[Int.random(in: 0..<events.count, using: &random)]
                other.eventID = events[index].eventID
                other.seq += 1_000_000
                texts.append(other.canonicalJSON)
            default:
                // A later event a second earlier (the clock went back).
                var other = events[index]
                other.eventID += "-late"
                other.seq = builder.nextSeq + Int64(index)
                other.timestamp = Timestamp(epochMilliseconds: EventBuilder.defaultStart - 1_000)
                texts.append(other.canonicalJSON)
            }
        }
        texts.shuffle(using: &random)
        return try texts.enumerated().map { offset, text in
            guard case .success(let decoded) = EventDecoder().decode(text) else { throw DecodeFailure(text: text) }
            return SessionLine(decoded: decoded, location: LineLocation(file: Int32(offset % 2), line: Int64(offset + 1)))
        }
    }

    struct DecodeFailure: Error { var text: String }

    /// Everything an audit holds, in text, steps and lines not folded included.
    static func describe(_ audit: SessionAudit) throws -> [String] {
        var lines = [
            "events \(audit.events) past \(audit.eventsPastUntil) redeliveries \(audit.redeliveries) duplicates \(audit.duplicates)",
            "seqs \(String(describing: audit.firstSeq))...\(String(describing: audit.lastSeq)) "
                + "\(String(describing: audit.start))...\(String(describing: audit.end))",
            "final \(audit.finalState.json)", "screens \(audit.screens.map(\.label))",
            "dropped \(audit.droppedFindings.map { "\($0.key.rawValue) \($0.value)" }.sorted())",
        ]
        lines += audit.findings.map(describe)
        try audit.forEachEntry(
            step: { step, cursor in
                lines.append(
                    "step \(step.event.seq) \(step.location) \(step.findings.map(describe)) \(cursor.state.json) \(cursor.changes) "
                        + "\(cursor.condensedState.json) \(cursor.condensedChanges)")
            },
            unfolded: { line in lines.append("unfolded \(line.event.seq) \(line.location) \(line.findings.map(describe))") })
        return lines
    }

    static func describe(_ finding: Finding) -> String {
        "\(finding.rule.rawValue) \(String(describing: finding.seq)) \(String(describing: finding.eventID)) "
            + "\(String(describing: finding.location)) \(finding.message) \(String(describing: finding.expected)) "
            + "\(String(describing: finding.found)) \(finding.afterGap) \(String(describing: finding.witness)) "
            + "\(finding.stateBefore?.json ?? "-") \(finding.stateAfter?.json ?? "-") \(finding.changes)"
    }

    /// The options a session may be audited with, each case of them.
    static func options(_ variant: Int, lines: [SessionLine]) -> SessionAuditOptions {
        var options = SessionAuditOptions()
        switch variant {
        case 0: break
        case 1:
            options.recordSteps = true
            options.keepStates = false
        case 2:
            options.recordSteps = true
            options.untilSeq = 150
            options.openSessions = ["s-long"]
        case 3:
            options.maxFindings = 7
            options.recordScreens = false
        default:
            // The owners of a few event ids are an earlier session.
            options.recordSteps = true
            for line in lines.prefix(5) {
                options.earlierOccurrences[line.decoded.eventIDHash] = [
                    EarlierOccurrence(
                        eventID: line.event.eventID, sessionID: "s-earlier",
                        reference: EventReference(seq: 3, eventID: line.event.eventID, name: .routePush, location: nil))
                ]
            }
        }
        return options
    }

    @Test(arguments: Repository.cases([(1, 1_000), (2, 400), (3, 64)], underSanitizer: 2))
    func aSessionFoldedFromDiskIsAuditedAsOneHeld(seed: UInt64, budget: Int) throws {
        let lines = try Self.lines(seed: seed, count: 600)
        let key = SessionKey(model: 0, id: "s-long")
        for variant in 0..<5 {
            let options = Self.options(variant, lines: lines)
            let held = SessionAuditor.audit(sessionID: key.id, lines: lines, model: .poc, options: options)
            let long = try LongSession(key: key, model: .poc, budget: budget, temporaryDirectory: nil)
            for line in lines { try long.add(line) }
            #expect(long.lineCount == lines.count)
            let fromDisk = try long.audit(options: options)
            let expected = try Self.describe(held)
            let got = try Self.describe(fromDisk)
            #expect(got.count == expected.count, "seed \(seed), variant \(variant)")
            for (index, (want, have)) in zip(expected, got).enumerated() where want != have {
                Issue.record("seed \(seed), variant \(variant), entry \(index):\n  held: \(want)\n  disk: \(have)")
                break
            }
            #expect(fromDisk.stepWalk != nil || !options.recordSteps)
            #expect(fromDisk.steps.isEmpty, "a session folded from disk keeps no step")
        }
    }

    /// Its files are gone once the last copy of its audit is.
    @Test func itsFilesGoWithItsLastAudit() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("long-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var audit: SessionAudit?
        do {
            let long = try LongSession(key: SessionKey(model: 0, id: "s-long"), model: .poc, budget: 256, temporaryDirectory: directory)
            for line in try Self.lines(seed: 4, count: 200) { try long.add(line) }
            audit = try long.audit(options: SessionAuditOptions(recordSteps: true))
        }
        #expect(try !FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
        var steps = 0
        try audit?.forEachStep { _, _ in steps += 1 }
        #expect(steps == audit?.events)
        audit = nil
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
    }
}
