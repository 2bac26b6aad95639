import Foundation
import NavEvents
import NavJSON
import NavResults
import NavEngine
import NavModel
import NavReplay
import NavTestSupport
import Testing

@testable import NavReport

/// `navreplay replay`'s writer: one entry (a line of NDJSON, a few lines of text) per folded
/// event and per line not folded, each passed on as it is made, never the whole replay at once.
@Suite struct ReplayWriterTests {
    @Test func eachEntryIsWrittenAsItIsMade() throws {
        let directory = try TemporaryDirectory()
        var events = Sessions.broken("s-replay")
        var duplicate = events[2]  // another event at seq 2: not folded (seq.duplicate)
        duplicate.eventID = "zz-not-folded"
        duplicate.timestamp = Timestamp(epochMilliseconds: duplicate.timestamp.epochMilliseconds + 1)
        events.append(duplicate)
        let path = try directory.write("a.ndjson", ndjson(events))
        let run = try audit([path], recordSteps: true)
        let session = try #require(run.sessions.first)
        #expect(session.steps.count == 4)
        #expect(session.unfolded.count == 1)

        var chunks: [[UInt8]] = []
        try ReplayWriter.ndjson(session, files: run.files) { chunks.append($0) }
        let lines = chunks.split(separator: [0x0A]).map { $0.flatMap { $0 } }
        #expect(lines.count == 5)
        #expect(chunks.flatMap { $0 } == ReplayWriter.ndjson(session, files: run.files))
        let records = try lines.map { line -> JSONObject in
            guard case .object(let object) = try JSONValue.parse(line) else { throw CancellationError() }
            return object
        }
        #expect(records.map { $0["seq"] } == ["0", "1", "2", "2", "4"].map(JSONValue.number))
        #expect(records[3]["folded"] == .bool(false))
        // The state after each step is the fold's: the last one is the session's final state.
        var finalState = JSONWriter()
        session.finalState.write(to: &finalState)
        #expect(records[4]["state"] == (try JSONValue.parse(finalState.bytes)))
        #expect(records[1]["changes"] == .array([.string("onboarding: [] → [welcome]")]))

        var texts: [String] = []
        try ReplayWriter.text(session, files: run.files, style: TextStyle(color: false)) { texts.append($0) }
        #expect(texts.count == 1 + 5 + 1)  // the title, one per entry, the final state
        #expect(texts.joined() == ReplayWriter.text(session, files: run.files, style: TextStyle(color: false)))
        #expect(texts[2].hasPrefix("  seq 1  route_push      onboarding: [] → [welcome]\n      state: "))
    }
}
