import NavEvents
import NavJSON
import NavModel
import NavReplay
import NavTestSupport
import Testing

/// docs/events-and-rules.md, Identity: redeliveries, `event_id.conflict`, `seq.duplicate`, and independence
/// from the order of the input lines.
@Suite("Session identity")
struct SessionIdentityTests {
    /// The line of seq 1 (a push of `detail` on tab1) written in another way that is the same JSON value.
    struct Redelivery: CustomTestStringConvertible, Sendable {
        var id: String
        var line: String
        var testDescription: String { id }
    }

    static let pushDetail =
        #"{"schema_version":1,"event_id":"e1","event_name":"route_push","session_id":"s1","seq":1,"timestamp":"2026-11-20T10:00:01Z","correlation_id":"c1","stack":"tab1","from_route":null,"to_route":"detail"}"#

    static let redeliveries: [Redelivery] = [
        Redelivery(id: "byte-identical copy", line: pushDetail),
        Redelivery(
            id: "keys in another order",
            line:
                #"{"to_route":"detail","from_route":null,"stack":"tab1","correlation_id":"c1","timestamp":"2026-11-20T10:00:01Z","seq":1,"session_id":"s1","event_name":"route_push","event_id":"e1","schema_version":1}"#
        ),
        Redelivery(
            id: "other whitespace",
            line:
                #"{ "schema_version" : 1 ,\#t"event_id": "e1", "event_name": "route_push", "session_id": "s1", "seq": 1, "timestamp": "2026-11-20T10:00:01Z", "correlation_id": "c1", "stack": "tab1", "from_route": null, "to_route": "detail" }  "#
        ),
        Redelivery(
            id: "escaped characters",
            line:
                #"{"schema_version":1,"event_id":"\u0065\u0031","event_name":"route_push","session_id":"s1","seq":1,"timestamp":"2026-11-20T10:00:01Z","correlation_id":"c1","stack":"tab\u0031","from_route":null,"to_route":"d\u0065tail"}"#
        ),
        Redelivery(
            id: "escaped key",
            line:
                #"{"schema_version":1,"event_id":"e1","event_name":"route_push","session_id":"s1","seq":1,"timestamp":"2026-11-20T10:00:01Z","correlation_id":"c1","\u0073tack":"tab1","from_route":null,"to_route":"detail"}"#
        ),
    ]

    @Test("an identical repeat is a redelivery: counted, folded once, no finding", arguments: redeliveries)
    func identicalRepeatIsARedelivery(_ repeat: Redelivery) throws {
        var log = SessionLog.authorized()
        log.raw(Self.pushDetail)
        log.nextSeq = 2
        log.raw(`repeat`.line)
        log.add(.push("tab1", from: "detail", to: "settings"))
        log.add(.view("tab1", "settings"))

        let result = try audit(log)

        #expect(summary(result) == [])
        #expect(result.redeliveries == 1)
        #expect(result.duplicates == 0)
        #expect(result.events == 4)
        #expect(result.finalState.stacks["tab1"] == ["detail", "settings"])
    }

    @Test func redeliveryIsDetectedWhateverTheInputOrder() throws {
        var log = SessionLog.authorized()
        log.add(.push("tab1", from: nil, to: "detail"))
        log.add(.push("tab1", from: "detail", to: "settings"))
        let lines = log.lines + [log.lines[1], log.lines[1]]

        let forward = try audit(lines: lines)
        let backward = try audit(lines: lines.reversed())

        for result in [forward, backward] {
            #expect(summary(result) == [])
            #expect(result.redeliveries == 2)
            #expect(result.events == 3)
            #expect(result.finalState.stacks["tab1"] == ["detail", "settings"])
        }
    }

    static let deepLink =
        #"{"schema_version":1,"event_id":"d1","event_name":"deep_link","session_id":"s1","seq":1,"timestamp":"2026-11-20T10:00:01Z","correlation_id":"c1","url":"app://tab1","outcome":"fallback","extra":{"a":1.0,"b":[true,null]}}"#

    @Test func escapedSolidusAndNestedKeyOrderAreTheSameValue() throws {
        var log = SessionLog.started()
        log.raw(Self.deepLink)
        log.raw(
            #"{"schema_version":1,"event_id":"d1","event_name":"deep_link","session_id":"s1","seq":1,"timestamp":"2026-11-20T10:00:01Z","correlation_id":"c1","url":"app:\/\/tab1","outcome":"fallback","extra":{"b":[true,null],"a":1.0}}"#
        )

        let result = try audit(log)

        #expect(summary(result) == [])
        #expect(result.redeliveries == 1)
        #expect(result.events == 2)
    }

    @Test func escapesInUnknownFieldsAreTheSameValue() throws {
        var log = SessionLog.started()
        log.raw(Self.deepLink)
        log.raw(
            #"{"schema_version":1,"event_id":"d1","event_name":"deep_link","session_id":"s1","seq":1,"timestamp":"2026-11-20T10:00:01Z","correlation_id":"c1","url":"app://tab1","outcome":"fallback","e\u0078tra":{"\u0061":1.0,"b":[true,null]}}"#
        )

        let result = try audit(log)

        #expect(summary(result) == [])
        #expect(result.redeliveries == 1)
    }

    @Test func theSameInstantWrittenDifferentlyIsAnotherValue() throws {
        var log = SessionLog.started()
        log.add(.deepLink("app://x"), seq: 1, eventID: "d", timestamp: "2026-11-20T10:00:01Z")
        log.add(.deepLink("app://x"), seq: 1, eventID: "d", timestamp: "2026-11-20T10:00:01.000Z")

        let result = try audit(log)

        #expect(result.redeliveries == 0)
        #expect(result.events == 2)
        #expect(summary(result).contains("seq.duplicate@1"))
    }

    @Test func numbersCompareByTheirJSONText() throws {
        var log = SessionLog.started()
        log.raw(Self.deepLink)
        log.raw(
            #"{"schema_version":1,"event_id":"d1","event_name":"deep_link","session_id":"s1","seq":1,"timestamp":"2026-11-20T10:00:01Z","correlation_id":"c1","url":"app://tab1","outcome":"fallback","extra":{"a":1.00,"b":[true,null]}}"#
        )

        let result = try audit(log)

        // Not the same JSON value: the same event_id with another content, at the same seq.
        #expect(result.redeliveries == 0)
        #expect(summary(result).contains("event_id.conflict@1"))
    }

    @Test func sameEventIDWithAnotherContentIsAConflictOnTheLaterSeqAndStillFolded() throws {
        var log = SessionLog.authorized()
        log.add(.push("tab1", from: nil, to: "detail"))
        log.add(.push("tab1", from: "detail", to: "settings"), eventID: "e1")
        // The later occurrence comes first in the file: seq order decides, not file order.
        let lines = [log.lines[0], log.lines[2], log.lines[1]]

        let result = try audit(lines: lines)

        #expect(summary(result) == ["event_id.conflict@2"])
        let conflict = try onlyFinding(.eventIDConflict, in: result)
        #expect(conflict.severity == .error)
        #expect(conflict.eventID == "e1")
        #expect(conflict.witness?.seq == 1)
        #expect(conflict.afterGap == false)
        #expect(result.redeliveries == 0)
        #expect(result.events == 3)
        #expect(result.finalState.stacks["tab1"] == ["detail", "settings"])
    }

    /// The auditor groups lines by the hashes the decoder gave their `event_id` and
    /// `correlation_id`, and compares the texts only where hashes are equal: with every hash
    /// forced equal, as if every id collided, nothing may change.
    @Test func collidingIDHashesChangeNothing() throws {
        var log = SessionLog.authorized(tab: "tab1")
        log.add(.push("tab1", from: nil, to: "detail"), eventID: "x")
        log.add(.push("tab1", from: "detail", to: "settings"), eventID: "y")
        // Two conflicts: "x" and "y" again with other contents.
        log.add(.view("tab1", "settings"), eventID: "x")
        log.add(.view("tab1", "settings"), eventID: "y")
        // A command whose group ends at once (its tab is not reached), then groups of others.
        log.add(.command("goAuthorizedTab2Root", from: "authorized", to: "authorized"), group: "cmd")
        log.add(.view("tab1", "settings"), group: "other")
        log.add(.view("tab1", "settings"), group: "other")
        let lines = try sessionLines(log.lines)
        var colliding = lines
        for index in colliding.indices {
            colliding[index].decoded.eventIDHash = 42
            colliding[index].decoded.correlationIDHash = 42
        }

        let expected = SessionAuditor.audit(sessionID: "s1", lines: lines, model: .poc)
        let result = SessionAuditor.audit(sessionID: "s1", lines: colliding, model: .poc)

        #expect(summary(expected) == ["event_id.conflict@3", "event_id.conflict@4", "command.postcondition@5", "analytics.duplicate@7"])
        #expect(summary(result) == summary(expected))
        #expect(result.findings.map(\.message) == expected.findings.map(\.message))
        #expect(result.findings.map(\.witness?.seq) == expected.findings.map(\.witness?.seq))
        #expect(result.finalState == expected.finalState)
    }

    /// `audit(lines: &lines)` moves each event out of its line while it folds and back after:
    /// it must give the audit the copying form gives, and leave every line as it was.
    @Test func auditingLinesInPlaceGivesTheSameAuditAndLeavesThemAsTheyWere() throws {
        var log = SessionLog.authorized(tab: "tab1")
        log.add(.push("tab1", from: nil, to: "detail"), eventID: "x")
        log.add(.push("tab1", from: "detail", to: "settings"), eventID: "y")
        log.add(.view("tab1", "settings"), eventID: "x")  // an event_id conflict
        log.add(.view("tab1", "settings"), seq: 7)  // a gap
        log.add(.command("goAuthorizedTab2Root", from: "authorized", to: "authorized"), group: "cmd")
        log.add(.view("tab1", "settings"), group: "other", timestamp: "2026-11-20T09:00:00.000Z")  // clock regression
        var lines = try sessionLines(log.lines)
        lines.append(lines[2])  // a redelivery
        lines.append(lines[4])
        lines[lines.count - 1].location = LineLocation(file: 1, line: 99)
        lines.reverse()  // out of seq order
        let before = lines
        let options = SessionAuditOptions(recordSteps: true)

        let copied = SessionAuditor.audit(sessionID: "s1", lines: lines, model: .poc, options: options)
        let inPlace = SessionAuditor.audit(sessionID: "s1", lines: &lines, model: .poc, options: options)

        #expect(Set(summary(copied)).isSuperset(of: ["event_id.conflict@3", "seq.gap@7", "clock.regression@9"]))
        #expect(summary(inPlace) == summary(copied))
        #expect(inPlace.findings.map(\.message) == copied.findings.map(\.message))
        #expect(inPlace.redeliveries == copied.redeliveries && inPlace.redeliveries == 2)
        #expect(inPlace.finalState == copied.finalState)
        #expect(inPlace.steps.map(\.event) == copied.steps.map(\.event))
        #expect(inPlace.screens == copied.screens)
        #expect(lines.map(\.event) == before.map(\.event))
        #expect(lines.map(\.location) == before.map(\.location))
        #expect(lines.map(\.decoded.identity) == before.map(\.decoded.identity))
    }

    @Test func distinctEventIDsWithTheSameContentAreNotAConflict() throws {
        var log = SessionLog.authorized()
        log.add(.push("tab1", from: nil, to: "detail"), eventID: "a")
        log.add(.push("tab1", from: "detail", to: "settings"), eventID: "b")

        let result = try audit(log)

        #expect(summary(result) == [])
        #expect(result.events == 3)
    }

    @Test func seqDuplicateFoldsTheEarliestTimestampAndCountsTheLoser() throws {
        var log = SessionLog.authorized()
        log.add(.push("tab1", from: nil, to: "detail"), seq: 1, eventID: "z-early", timestamp: "2026-11-20T10:00:01Z")
        log.add(.push("tab1", from: nil, to: "list"), seq: 1, eventID: "a-late", timestamp: "2026-11-20T10:00:01.5Z")
        log.add(.push("tab1", from: "detail", to: "settings"), seq: 2)

        for lines in [log.lines, log.lines.reversed()] {
            let result = try audit(lines: lines)

            #expect(summary(result) == ["seq.duplicate@1"])
            let duplicate = try onlyFinding(.seqDuplicate, in: result)
            #expect(duplicate.severity == .error)
            #expect(duplicate.eventID == "a-late")
            #expect(duplicate.witness?.eventID == "z-early")
            #expect(result.duplicates == 1)
            #expect(result.events == 3)
            #expect(result.finalState.stacks["tab1"] == ["detail", "settings"])
        }
    }

    @Test func recordedStepsHoldEveryFindingAndTheLinesNotFolded() throws {
        // seq 1 is taken twice (the later one is not folded), and seq 2 reuses seq 1's event id
        // with another content (a conflict, folded): both are found before the fold.
        var log = SessionLog.authorized()
        log.add(.push("tab1", from: nil, to: "detail"), seq: 1, eventID: "first", timestamp: "2026-11-20T10:00:01Z")
        log.add(.push("tab1", from: nil, to: "list"), seq: 1, eventID: "loser", timestamp: "2026-11-20T10:00:01.5Z")
        log.add(.push("tab1", from: "detail", to: "settings"), seq: 2, eventID: "first")
        for lines in [log.lines, log.lines.reversed()] {
            let result = try audit(lines: lines, options: SessionAuditOptions(recordSteps: true))
            #expect(summary(result) == ["seq.duplicate@1", "event_id.conflict@2"])
            let stepFindings = result.steps.flatMap(\.findings).map(\.rule)
            #expect(stepFindings == [.eventIDConflict], "the conflict, on the step of seq 2")
            #expect(result.steps.first { $0.event.seq == 2 }?.findings.map(\.rule) == [.eventIDConflict])
            #expect(result.unfolded.map(\.event.eventID) == ["loser"])
            #expect(result.unfolded.first?.findings.map(\.rule) == [.seqDuplicate])
            // Not kept without steps, nor past --until-seq.
            #expect(try audit(lines: lines).unfolded.isEmpty)
            #expect(try audit(lines: lines, options: SessionAuditOptions(recordSteps: true, untilSeq: 0)).unfolded.isEmpty)
        }
    }

    @Test func seqDuplicateAtTheSameInstantFoldsTheSmallestEventID() throws {
        var log = SessionLog.authorized()
        // The same instant written in two offsets; the text of "b" sorts first, the id of "a" does.
        log.add(.push("tab1", from: nil, to: "list"), seq: 1, eventID: "b", timestamp: "2026-11-20T10:00:01Z")
        log.add(.push("tab1", from: nil, to: "detail"), seq: 1, eventID: "a", timestamp: "2026-11-20T11:00:01+01:00")

        for lines in [log.lines, log.lines.reversed()] {
            let result = try audit(lines: lines)

            #expect(summary(result) == ["seq.duplicate@1"])
            let loser = try onlyFinding(.seqDuplicate, in: result)
            #expect(loser.eventID == "b")
            #expect(result.finalState.stacks["tab1"] == ["detail"])
            #expect(result.duplicates == 1)
        }
    }

    @Test func consecutiveSeqsWithDifferentEventsAreNotDuplicates() throws {
        var log = SessionLog.authorized()
        log.add(.push("tab1", from: nil, to: "list"))
        log.add(.push("tab1", from: "list", to: "detail"))

        let result = try audit(log)

        #expect(summary(result) == [])
        #expect(result.duplicates == 0)
    }

    /// A messy session: a redelivery, a conflict, a duplicate seq, a gap, a lost push, a clock step back.
    static func messySession() -> [String] {
        var log = SessionLog.authorized()
        log.add(.push("tab1", from: nil, to: "list"))
        log.add(.push("tab1", from: "list", to: "detail"))
        log.add(.push("tab1", from: "list", to: "settings"), seq: 2, eventID: "dup", timestamp: "2026-11-20T10:00:09Z")
        log.nextSeq = 3
        log.add(.view("tab1", "detail"), eventID: "e1")
        log.lose()
        log.add(.pop("tab1", from: "settings", to: "detail"))
        log.add(.present("success"), timestamp: "2026-11-20T09:00:00Z")
        log.group(
            "logout", .command("logoutToOnboarding", from: "authorized", to: "onboarding"),
            .flow(from: "authorized", to: "onboarding"))
        return log.lines + [log.lines[1], log.lines[5]]
    }

    @Test(arguments: [1, 2, 3, 42, 1234])
    func findingsDoNotDependOnTheOrderOfTheLines(seed: UInt64) throws {
        let lines = Self.messySession()
        let reference = try audit(lines: lines)
        var generator = SeededRandom(seed: seed)
        let shuffled = lines.shuffled(using: &generator)

        let result = try audit(lines: shuffled)

        #expect(summary(result) == summary(reference), "seed \(seed)")
        #expect(result.findings.map(\.eventID) == reference.findings.map(\.eventID), "seed \(seed)")
        #expect(result.findings.map(\.afterGap) == reference.findings.map(\.afterGap), "seed \(seed)")
        #expect(result.finalState == reference.finalState, "seed \(seed)")
        #expect(result.redeliveries == reference.redeliveries, "seed \(seed)")
        #expect(result.duplicates == reference.duplicates, "seed \(seed)")
        #expect(result.events == reference.events, "seed \(seed)")
    }

    @Test func theMessySessionHasTheFindingsTheContractPrescribes() throws {
        let result = try audit(lines: Self.messySession())

        #expect(
            summary(result) == [
                "seq.duplicate@2", "event_id.conflict@3", "seq.gap@5", "state.mismatch@5", "clock.regression@6",
                "command.postcondition@7",
            ])
        #expect(result.redeliveries == 2)
        #expect(result.duplicates == 1)
    }
}
