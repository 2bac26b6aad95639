import Foundation
import NavTestSupport
import Testing

/// One long session stays within `--memory-limit`: past a partition's share of it, its lines are
/// sorted on disk and folded one at a time (`LongSession`). Held whole, one session of 1,000,000
/// events (190 MB) peaked at 631 MB with `--memory-limit 64M`, and `report` at 962 MB.
@Suite("One long session")
struct LongSessionCLITests {
    /// One session of `events` pushes, pops and screen views, with a redelivery, a taken seq, a
    /// reused event id and a lost event every few hundred lines, in blocks shuffled (as uploads
    /// interleave); or, with `sessions`, as many sessions sharing those events.
    static func log(events: Int, sessions: Int = 1, in scratch: TemporaryDirectory, name: String) throws -> String {
        var random = SeededRandom(seed: 33)
        var lines: [String] = []
        lines.reserveCapacity(events + events / 50)
        func line(_ session: Int, _ seq: Int, _ name: String, _ fields: String, id: String? = nil, second: Int? = nil) -> String {
            #"{"schema_version":1,"event_id":"\#(id ?? "e\(session)-\(seq)")","event_name":"\#(name)","session_id":"s\#(session)","#
                + #""seq":\#(seq),"timestamp":"2026-11-20T10:\#(two((second ?? seq) / 60 % 60)):\#(two((second ?? seq) % 60))Z","#
                + #""correlation_id":"c\#(seq / 2)",\#(fields)}"#
        }
        let perSession = events / sessions
        for session in 0..<sessions {
            lines.append(
                line(
                    session, 0, "session_start",
                    #""app_version":"1","snapshot":{"flow":"authorized","tab":"tab1","stacks":{"tab1":["list"]},"modals":[]}"#))
            var depth = 0
            for seq in 1..<perSession {
                if seq % 397 == 0 { continue }  // lost
                var text: String
                if seq % 2 == 1 {
                    if depth < 6 && (depth == 0 || Bool.random(using: &random)) {
                        text = line(
                            session, seq, "route_push",
                            #""stack":"tab1","from_route":"\#(depth == 0 ? "list" : "detail")","to_route":"detail""#)
                        depth += 1
                    } else {
                        depth -= 1
                        text = line(
                            session, seq, "route_pop",
                            #""stack":"tab1","from_route":"detail","to_route":"\#(depth == 0 ? "list" : "detail")","count":1"#)
                    }
                } else {
                    text = line(session, seq, "screen_view", #""stack":"tab1","to_route":"\#(depth == 0 ? "list" : "detail")""#)
                }
                lines.append(text)
                if seq % 211 == 0 { lines.append(text) }  // redelivered
                if seq % 307 == 0 {
                    lines.append(line(session, seq, "screen_view", #""stack":"tab1","to_route":"list""#, id: "e\(session)-\(seq)-b"))
                }
                if seq % 401 == 0 {
                    lines.append(line(session, seq + 1_000_000, "screen_view", #""stack":"tab1","to_route":"list""#, id: "e\(session)-1"))
                }
                if seq % 503 == 0 {
                    lines.append(
                        line(session, seq, "screen_view", #""stack":"tab1","to_route":"list""#, id: "e\(session)-\(seq)-c", second: 0))
                }
            }
        }
        var shuffled: [String] = []
        shuffled.reserveCapacity(lines.count)
        for block in stride(from: 0, to: lines.count, by: 64) {
            shuffled += lines[block..<min(block + 64, lines.count)].shuffled(using: &random)
        }
        return try scratch.write(name, shuffled.joined(separator: "\n") + "\n")
    }

    static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// Every output of a long session folded from disk (partitioned with `--memory-limit 1M`, and
    /// pre-grouped) is the one of the session held in memory, byte for byte.
    @Test(
        arguments: Repository.cases(
            [
                ["audit", "--format", "ndjson", "--explain"], ["audit", "--format", "text"], ["audit", "--format", "json"],
                ["sessions", "--format", "ndjson"], ["sessions", "--format", "sqlite"], ["report"],
                ["replay", "--format", "ndjson", "--session", "s0"], ["replay", "--session", "s0", "--until-seq", "5000"],
            ], underSanitizer: 2))
    func aSessionFoldedFromDiskWritesWhatItWouldHeld(_ command: [String]) throws {
        let scratch = try TemporaryDirectory()
        let log = try Self.log(events: 12_000, in: scratch, name: "long.ndjson")
        var written: [String] = []
        for (name, options) in [
            ("held", [String]()), ("partitioned", ["--memory-limit", "1M", "--jobs", "2"]),
            ("pre-grouped", ["--memory-limit", "1M", "--pre-grouped"]),
        ] {
            let output = scratch.path(name + ".out")
            let result = try navreplay(command + ["--quiet", "--fail-on", "never", "--output", output] + options + [log])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            if command.contains("sqlite") {
                let dump = try run("/usr/bin/env", ["sqlite3", output, ".dump"])
                #expect(dump.status == 0, "\(dump.stderr)")
                written.append(dump.stdout)
            } else {
                written.append(try String(contentsOfFile: output, encoding: .utf8))
            }
        }
        #expect(!written[0].isEmpty)
        for (index, other) in written.enumerated().dropFirst() {
            let same = other == written[0]
            #expect(same, "\(command): run \(index) differs from the session held in memory")
        }
    }

    /// One session against 500 sessions of the same bytes, with `--memory-limit 8M`: held whole
    /// while it folds, one session of 50,000 events (10 MB) peaked 22 MB higher in `audit` (a
    /// release build: its partition read whole, its lines decoded, the fold's tables of them);
    /// of 20,000 events, 39 MB higher in `sessions --format sqlite` (its rows made whole) and
    /// 19 MB in `report` (its steps kept for its timeline). From disk, less than 1 MB higher.
    @Test(
        .enabled(if: Repository.measuresMemory, "peak memory means nothing under a sanitizer"),
        arguments: [
            (["audit", "--format", "ndjson"], 50_000), (["sessions", "--format", "sqlite"], 20_000), (["report"], 20_000),
        ])
    func aLongSessionPeaksNoHigherThanShortOnes(_ command: [String], events: Int) throws {
        let scratch = try TemporaryDirectory()
        let long = try Self.log(events: events, in: scratch, name: "long.ndjson")
        let short = try Self.log(events: events, sessions: 500, in: scratch, name: "short.ndjson")
        var peaks: [Int] = []
        for log in [short, long] {
            let output = scratch.path("out")
            unlink(output)
            let result = try navreplayChild(command + ["--quiet", "--fail-on", "never", "--memory-limit", "8M", "--output", output, log])
            #expect(result.exitStatus == 0, "\(result.stderrText)")
            peaks.append(result.peakRSSBytes)
        }
        let extra = (peaks[1] - peaks[0]) / 1_048_576
        #expect(extra < 8, "\(command): one long session peaked \(extra) MB above as many bytes of short ones (\(peaks))")
    }
}
