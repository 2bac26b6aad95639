import Foundation
import NavTestSupport
import Testing

/// No output, and no memory, grows with a stack's depth times the events (only `replay`, which
/// writes every full state, does). A black-box hunt's 962 KB log (a snapshot of 120,000 routes,
/// then 600 pushes with a finding each) made `audit --format json` write 1.9 GB and peak at
/// 6 GB, the text audit peak at 1.1 GB, and `sessions --format sqlite` write 1.4 GB; a clean
/// session of 12,000 pushes wrote a 2 GB database. Smaller here; sizes, not times, are checked.
@Suite("Depth x events")
struct DepthTimesEventsTests {
    static let limit = 256 << 10

    /// A snapshot of `depth` routes on tab1 in flow onboarding, then `pushes` pushes on tab1,
    /// each a `stack.not_owned`.
    static func deepLog(depth: Int, pushes: Int, in scratch: TemporaryDirectory) throws -> String {
        let routes = Array(repeating: #""list""#, count: depth).joined(separator: ",")
        var text = line(
            0, "session_start", #""app_version":"1","snapshot":{"flow":"onboarding","tab":null,"stacks":{"tab1":[\#(routes)]},"modals":[]}"#
        )
        for seq in 1...pushes {
            text += line(seq, "route_push", #""stack":"tab1","from_route":"list","to_route":"list""#)
        }
        return try scratch.write("deep.ndjson", text)
    }

    /// A clean session: `pushes` pushes of one route in flow authorized.
    static func pushesLog(_ pushes: Int, in scratch: TemporaryDirectory) throws -> String {
        var text = line(0, "session_start", #""app_version":"1","snapshot":{"flow":"authorized","tab":"tab1","stacks":{},"modals":[]}"#)
        for seq in 1...pushes {
            let from = seq == 1 ? "null" : #""list""#
            text += line(seq, "route_push", #""stack":"tab1","from_route":\#(from),"to_route":"list""#)
        }
        return try scratch.write("pushes.ndjson", text)
    }

    static func line(_ seq: Int, _ name: String, _ fields: String) -> String {
        #"{"schema_version":1,"event_id":"e\#(seq)","event_name":"\#(name)","session_id":"s1","seq":\#(seq),"#
            + #""timestamp":"2026-11-20T10:00:00Z","correlation_id":"c\#(seq)",\#(fields)}"# + "\n"
    }

    static func size(_ path: String) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
    }

    /// Every format of `audit` on a deep stack with a finding at each push: whole states made
    /// json and ndjson --explain write 2 x 100 x 20,000 names (about 28 MB).
    @Test(arguments: [
        ["--format", "json"], ["--format", "ndjson", "--explain"], ["--format", "text"], ["--format", "ndjson"],
        ["--format", "sarif"], ["--format", "junit"], ["--format", "github"],
    ])
    func auditOutputsDoNotGrowWithTheDepth(format: [String]) throws {
        let scratch = try TemporaryDirectory()
        let log = try Self.deepLog(depth: 20_000, pushes: 100, in: scratch)
        let output = scratch.path("out")
        let result = try navreplay(["audit", "--quiet", "--output", output, log] + format)
        #expect(result.status == 1, "\(result.stderr)")
        let written = try Self.size(output)
        #expect(written > 0 && written < Self.limit, "\(format): \(written) bytes")
        if format.contains("--explain") {
            let first = try #require(try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").first)
            let condensed =
                first.contains(#""… 19984 more …""#) && first.contains(#""changes":["tab1: [list, list, list, list, … 19984 more …,"#)
            #expect(condensed, "\(first.prefix(300))")
        }
    }

    /// The sessions database stores each event's state and changes as findings list them: whole,
    /// a clean session of 3,000 pushes wrote 3,000 x 1,500 names twice (about 63 MB).
    @Test func theSessionsDatabaseDoesNotGrowWithTheDepth() throws {
        let scratch = try TemporaryDirectory()
        for (name, log, events) in [
            ("deep", try Self.deepLog(depth: 20_000, pushes: 100, in: scratch), 101),
            ("pushes", try Self.pushesLog(3_000, in: scratch), 3_001),
        ] {
            let database = scratch.path("\(name).db")
            let result = try navreplay(["sessions", "--quiet", "--format", "sqlite", "--output", database, log])
            #expect(result.status == 0, "\(result.stderr)")
            let written = try Self.size(database)
            // About 1 KB a row: the event, its state and changes as findings list them.
            #expect(written < 2_048 * events + Self.limit, "\(name): \(written) bytes for \(events) events")
            let last = try run("/usr/bin/env", ["sqlite3", database, "SELECT state_after, changes FROM events ORDER BY seq DESC LIMIT 1"])
            let condensed = last.stdout.contains("more …")
            #expect(condensed, "\(name): \(last.stdout.prefix(300))")
        }
    }

    /// The text audit held each finding's two whole states until its session ended: 100 findings
    /// on a stack of 40,000 routes held some 100 x 40,000 x 16 bytes (64 MB) more than the NDJSON
    /// audit, which keeps none.
    @Test(.enabled(if: Repository.measuresMemory, "peak memory means nothing under a sanitizer")) func theTextAuditHoldsNoWholeStates()
        throws
    {
        let scratch = try TemporaryDirectory()
        let log = try Self.deepLog(depth: 40_000, pushes: 100, in: scratch)
        let bare = try navreplayChild(["audit", "--quiet", "--format", "ndjson", "--output", scratch.path("bare"), log])
        let text = try navreplayChild(["audit", "--quiet", "--output", scratch.path("text"), log])
        #expect(bare.exitStatus == 1 && text.exitStatus == 1, "\(text.stderrText)")
        let extra = (text.peakRSSBytes - bare.peakRSSBytes) / 1_048_576
        #expect(extra < 24, "the text audit peaked \(extra) MB above the NDJSON audit")
    }
}
