import Foundation
import NavEvents
import NavJSON
import NavModel
import NavReplay
import Testing

/// docs/events-and-rules.md, Identity: an event id's occurrences are ordered by (`session_id`, `seq`), and
/// every one after the first is an `event_id.conflict`, in another session too.
@Suite("event_id.conflict across sessions")
struct CrossSessionConflictTests {
    /// Sessions' lines, decoded, keyed by session id, in session order. `SessionLog` names
    /// event ids by seq (`e0`, `e1`...) in every session: those are made the session's own.
    static func sessions(_ logs: [SessionLog]) throws -> [(key: String, lines: [SessionLine])] {
        try logs.sorted { $0.sessionID.utf8.lexicographicallyPrecedes($1.sessionID.utf8) }.map { log in
            let own = log.lines.map {
                $0.replacingOccurrences(of: #"(\"event_id\":\")(e[0-9]+\")"#, with: "$1\(log.sessionID)-$2", options: .regularExpression)
            }
            return (key: log.sessionID, lines: try sessionLines(own))
        }
    }

    static func auditAll(_ logs: [SessionLog]) throws -> [String: SessionAudit] {
        let sessions = try Self.sessions(logs)
        // The owners, resolved whole and gathered line by line in reverse (as a refold does):
        // the same.
        let owners = EarlierOccurrence.resolve(sessions.map(\.lines))
        var gathered = EarlierOccurrence.Owners()
        for session in sessions.reversed() { for line in session.lines.reversed() { gathered.offer(line) } }
        #expect(Self.described(gathered.shared) == Self.described(owners))
        var audits: [String: SessionAudit] = [:]
        for session in sessions {
            var options = SessionAuditOptions()
            options.earlierOccurrences = owners
            audits[session.key] = SessionAuditor.audit(sessionID: session.key, lines: session.lines, model: .poc, options: options)
        }
        return audits
    }

    static func described(_ owners: [UInt64: [EarlierOccurrence]]) -> [String] {
        owners.values.flatMap { $0 }.map {
            "\($0.eventID) \($0.sessionID) \($0.reference.seq) \($0.reference.location.map { "\($0.line)" } ?? "")"
        }.sorted()
    }

    @Test func anIDOfAnEarlierSessionIsAConflictInTheLaterOneOnly() throws {
        var first = SessionLog.authorized(sessionID: "s-a")
        first.add(.push("tab1", from: nil, to: "detail"), eventID: "shared")
        var second = SessionLog.authorized(sessionID: "s-b")
        second.add(.push("tab1", from: nil, to: "settings"))
        second.add(.view("tab1", "settings"), eventID: "shared")
        // Given in the other order: session order decides, not the input's.
        let audits = try Self.auditAll([second, first])

        #expect(summary(try #require(audits["s-a"])) == [])
        let later = try #require(audits["s-b"])
        #expect(summary(later) == ["event_id.conflict@\(second.nextSeq - 1)"])
        let conflict = try onlyFinding(.eventIDConflict, in: later)
        #expect(conflict.sessionID == "s-b")
        #expect(conflict.eventID == "shared")
        #expect(conflict.witness?.seq == first.nextSeq - 1)
        #expect(conflict.witness?.name == .routePush)
        #expect(conflict.message.contains(#"first seen in session "s-a""#), "\(conflict.message)")
        // Still folded, as a conflict within a session is.
        #expect(later.events == Int(second.nextSeq))
    }

    @Test func everyOccurrenceInTheLaterSessionIsAConflictAndRepeatsStayRedeliveries() throws {
        var first = SessionLog.authorized(sessionID: "a")
        first.add(.push("tab1", from: nil, to: "detail"), eventID: "x")
        var second = SessionLog.authorized(sessionID: "b")
        let one = second.add(.push("tab1", from: nil, to: "detail"), eventID: "x")
        let two = second.add(.push("tab1", from: "detail", to: "settings"), eventID: "x")
        second.raw(second.lines.last!)  // an identical repeat: a redelivery, no finding
        let audits = try Self.auditAll([first, second])

        let later = try #require(audits["b"])
        #expect(summary(later) == ["event_id.conflict@\(one)", "event_id.conflict@\(two)"])
        #expect(later.redeliveries == 1)
        // The first one here points at session a, the second at the first one here.
        #expect(later.findings[0].witness?.location == LineLocation(file: 0, line: Int64(first.lines.count)))
        #expect(later.findings[1].witness?.seq == one)
    }

    @Test func threeSessionsShareAnIDWithTheFirstInSessionOrder() throws {
        var logs: [SessionLog] = []
        for id in ["m", "c", "x"] {
            var log = SessionLog.authorized(sessionID: id)
            log.add(.push("tab1", from: nil, to: "detail"), eventID: "same")
            logs.append(log)
        }
        let audits = try Self.auditAll(logs)
        #expect(summary(try #require(audits["c"])) == [])
        for id in ["m", "x"] {
            let conflict = try onlyFinding(.eventIDConflict, in: try #require(audits[id]))
            #expect(conflict.message.contains(#"session "c""#), "\(conflict.message)")
        }
    }

    @Test func sessionsThatShareNoIDGetNothing() throws {
        var first = SessionLog.authorized(sessionID: "a")
        first.add(.view("tab1", "root"), eventID: "a-1")
        var second = SessionLog.authorized(sessionID: "b")
        second.add(.view("tab1", "root"), eventID: "b-1")
        #expect(EarlierOccurrence.resolve(try Self.sessions([first, second]).map(\.lines)).isEmpty)
        // A session alone shares nothing, even with an id twice.
        var twice = SessionLog.authorized(sessionID: "a")
        twice.add(.view("tab1", "root"), eventID: "x")
        twice.add(.push("tab1", from: nil, to: "detail"), eventID: "x")
        #expect(EarlierOccurrence.resolve(try Self.sessions([twice]).map(\.lines)).isEmpty)
    }

    @Test func idsAreComparedAsBytes() throws {
        // "é" precomposed and decomposed: equal Swift strings, two different ids.
        var first = SessionLog.authorized(sessionID: "a")
        first.add(.push("tab1", from: nil, to: "detail"), eventID: "caf\u{E9}")
        var second = SessionLog.authorized(sessionID: "b")
        second.add(.push("tab1", from: nil, to: "detail"), eventID: "cafe\u{301}")
        let audits = try Self.auditAll([first, second])
        #expect(summary(try #require(audits["b"])) == [])
    }

    @Test func aConflictAfterAGapIsMarkedSo() throws {
        var first = SessionLog.authorized(sessionID: "a")
        first.add(.view("tab1", "root"), eventID: "shared")
        var second = SessionLog.authorized(sessionID: "b")
        second.lose()
        let seq = second.add(.view("tab1", "root"), eventID: "shared")
        let audits = try Self.auditAll([first, second])
        let conflict = try onlyFinding(.eventIDConflict, in: try #require(audits["b"]))
        #expect(conflict.seq == seq)
        #expect(conflict.afterGap)
    }
}
