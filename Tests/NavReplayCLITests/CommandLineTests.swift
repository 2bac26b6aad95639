import Foundation
import NavModel
import NavTestSupport
import Testing

/// The built binary, end to end: exit codes, standard input, formats, errors.
@Suite struct CommandLineTests {
    static let clean = """
        {"schema_version":1,"event_id":"e0","event_name":"session_start","session_id":"s","seq":0,"timestamp":"2026-11-20T10:00:00Z","correlation_id":"c0","app_version":"1"}
        {"schema_version":1,"event_id":"e1","event_name":"route_push","session_id":"s","seq":1,"timestamp":"2026-11-20T10:00:01Z","correlation_id":"c1","stack":"onboarding","from_route":null,"to_route":"welcome"}

        """

    @Test func readsStandardInput() throws {
        let result = try navreplay(["audit", "--format", "ndjson", "-"], stdin: Data(Self.clean.utf8))
        #expect(result.status == 0)
        #expect(result.stdout == "")
        #expect(result.stderr.contains("2 event(s) folded"))
    }

    @Test func anEventIDReusedByAnotherSessionIsAConflictForAuditAndReplay() throws {
        // Session "s-b" reuses, for another event, an event id of "s-a" (first in session order).
        let log = """
            {"schema_version":1,"event_id":"b0","event_name":"session_start","session_id":"s-b","seq":0,"timestamp":"2026-11-20T10:00:00Z","correlation_id":"c0","app_version":"1"}
            {"schema_version":1,"event_id":"shared","event_name":"route_push","session_id":"s-b","seq":1,"timestamp":"2026-11-20T10:00:01Z","correlation_id":"c1","stack":"onboarding","from_route":null,"to_route":"welcome"}
            {"schema_version":1,"event_id":"a0","event_name":"session_start","session_id":"s-a","seq":0,"timestamp":"2026-11-20T10:00:00Z","correlation_id":"c0","app_version":"1"}
            {"schema_version":1,"event_id":"shared","event_name":"route_push","session_id":"s-a","seq":1,"timestamp":"2026-11-20T10:00:02Z","correlation_id":"c1","stack":"onboarding","from_route":null,"to_route":"welcome"}

            """
        for arguments in [["audit", "--format", "ndjson", "-"], ["audit", "--format", "ndjson", "--pre-grouped", "-"]] {
            let result = try navreplay(arguments, stdin: Data(log.utf8))
            #expect(result.status == 1, "\(arguments)")
            let findings = result.stdout.split(separator: "\n")
            #expect(findings.count == 1, "\(arguments): \(result.stdout)")
            #expect(findings.first?.contains(#""rule":"event_id.conflict","severity":"error","session_id":"s-b","seq":1"#) == true)
            #expect(findings.first?.contains(#"first seen in session \"s-a\" at seq 1 (route_push)"#) == true, "\(result.stdout)")
        }
        // Replaying one session alone still sees the other session's use of the id.
        #expect(try navreplay(["replay", "--session", "s-b", "-"], stdin: Data(log.utf8)).status == 1)
        #expect(try navreplay(["replay", "--session", "s-a", "-"], stdin: Data(log.utf8)).status == 0)
    }

    /// Session ids are an app's own: when two apps' folders both hold the id, replay says so
    /// rather than show one of them.
    @Test func replayRefusesASessionIdThatTwoAppsHold() throws {
        let scratch = try TemporaryDirectory()
        let log = try String(contentsOfFile: Repository.path("SampleLogs/clean/app-2026-11-20-upload1.ndjson"), encoding: .utf8)
        let model = NavigationModel.pocWithDeepLinksJSON + "\n"  // the model the clean PoC logs were written with
        for app in ["a", "b"] {
            try FileManager.default.createDirectory(atPath: scratch.path(app), withIntermediateDirectories: true)
            _ = try scratch.write("\(app)/model.json", model)
            _ = try scratch.write("\(app)/log.ndjson", log)
        }
        let both = try navreplay(["replay", "-q", "--session", "s-clean-onboarding", scratch.url.path])
        #expect(both.status == 2)
        #expect(both.stderr.contains("is in the logs of 2 apps"), "\(both.stderr)")
        let one = try navreplay(["replay", "-q", "--session", "s-clean-onboarding", scratch.path("a")])
        #expect(one.status == 0, "\(one.stderr)")
    }

    @Test func warningsFailOnlyWithFailOnWarning() throws {
        let gap =
            Self.clean + """
                {"schema_version":1,"event_id":"e3","event_name":"route_push","session_id":"s","seq":3,"timestamp":"2026-11-20T10:00:03Z","correlation_id":"c3","stack":"onboarding","from_route":"welcome","to_route":"signup"}

                """
        #expect(try navreplay(["audit", "-q", "-"], stdin: Data(gap.utf8)).status == 0)
        #expect(try navreplay(["audit", "-q", "--fail-on", "warning", "-"], stdin: Data(gap.utf8)).status == 1)
        #expect(try navreplay(["audit", "-q", "--fail-on", "never", "SampleLogs"]).status == 0)
    }

    @Test func aMissingFileIsExitTwoAndTheOthersAreStillAudited() throws {
        let result = try navreplay(["audit", "--format", "ndjson", "no-such-file.ndjson", "SampleLogs/violations"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("no-such-file.ndjson: no such file"))
        #expect(result.stdout.contains("\"rule\":\"state.mismatch\""))
    }

    @Test func aCorruptGzipAuditsTheLinesBeforeTheErrorAndExitsTwo() throws {
        let scratch = try TemporaryDirectory()
        let source = try Data(contentsOf: URL(fileURLWithPath: Repository.path("SampleLogs/clean/app-2026-11-20-upload2.ndjson.gz")))
        var bytes = [UInt8](source)
        bytes.removeLast(bytes.count / 3)  // truncated in transit
        let path = try scratch.write("cut.ndjson.gz", bytes: bytes)
        let result = try navreplay(["audit", "--format", "ndjson", path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("truncated"))
        #expect(!result.stderr.contains(" 0 line(s)"))
    }

    @Test func usageErrorsExitTwo() throws {
        #expect(try navreplay(["audit"]).status == 2)
        #expect(try navreplay(["audit", "--format", "yaml", "x"]).status == 2)
        #expect(try navreplay(["frobnicate"]).status == 2)
        #expect(try navreplay(["audit", "--model", "no-such-model.json", "SampleLogs"]).status == 2)
    }

    @Test func helpAndVersion() throws {
        let help = try navreplay(["audit", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("navreplay audit SampleLogs"))
        #expect(help.stdout.contains("--fail-on"))
        let version = try navreplay(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0.1.0")
    }

    @Test func validateChecksLinesOnly() throws {
        let result = try navreplay(["validate", "--format", "ndjson", "SampleLogs"])
        #expect(result.status == 1)
        let rules = result.stdout.split(separator: "\n").map { $0.contains("\"rule\":\"schema.invalid\"") }
        #expect(rules.count == 4)
        #expect(rules.allSatisfy { $0 })
        // Its summary does not claim a fold it did not do.
        #expect(
            result.stderr.contains("line(s): 643 valid event(s), 2 blank, 4 invalid (lines checked alone, not folded); 4 finding(s)"),
            "\(result.stderr)")
        #expect(!result.stderr.contains("folded,"))
        #expect(try navreplay(["validate", "SampleLogs/clean"]).status == 0)
    }

    @Test func replayShowsTheStateAfterEachEvent() throws {
        let result = try navreplay(["replay", "--session", "s-bad-lost-event", "--format", "ndjson", "SampleLogs"])
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 11)
        #expect(lines.last?.contains("\"findings\":[]") == true)
        #expect(result.stdout.contains("\"findings\":[\"seq.gap\",\"state.mismatch\"]"))
        let until = try navreplay(["replay", "--session", "s-bad-lost-event", "--until-seq", "3", "--format", "ndjson", "SampleLogs"])
        #expect(until.stdout.split(separator: "\n").count == 4)
        #expect(try navreplay(["replay", "--session", "nobody", "SampleLogs"]).status == 2)
        // Text: each event's line, then the whole state after it, then its findings.
        let text = try navreplay(["replay", "--session", "s-bad-lost-event", "--until-seq", "9", "SampleLogs"]).stdout
        let textLines = text.split(separator: "\n").map(String.init)
        let push = try #require(textLines.firstIndex { $0.hasPrefix("  seq 5  route_push") }, "\(text)")
        #expect(
            textLines[push + 1]
                == #"      state: {"flow":"authorized","tab":"tab1","stacks":{"onboarding":[],"tab1":["list"],"tab2":[]},"modals":[]}"#)
        #expect(textLines.filter { $0.hasPrefix("      state: ") }.count == 8, "one state a folded event (seq 0...6 and 9): \(text)")
        let pop = try #require(textLines.firstIndex { $0.hasPrefix("  seq 9  route_pop") })
        #expect(textLines[pop + 1].hasPrefix("      state: ") && textLines[pop + 2].contains("seq.gap"))
    }

    @Test func replayWritesItsSummaryAndFailsOnTheFindingsItShows() throws {
        // A seq.duplicate at seq 2 (a rival event, found before the fold) and a state.mismatch
        // at seq 3 (found by the fold): replaying up to seq 1 shows neither, and passes.
        let log = """
            {"schema_version":1,"event_id":"e0","event_name":"session_start","session_id":"s","seq":0,"timestamp":"2026-11-20T10:00:00Z","correlation_id":"c0","app_version":"1"}
            {"schema_version":1,"event_id":"e1","event_name":"screen_view","session_id":"s","seq":1,"timestamp":"2026-11-20T10:00:01Z","correlation_id":"c1","stack":"onboarding","to_route":null}
            {"schema_version":1,"event_id":"e2","event_name":"screen_view","session_id":"s","seq":2,"timestamp":"2026-11-20T10:00:02Z","correlation_id":"c2","stack":"onboarding","to_route":null}
            {"schema_version":1,"event_id":"rival","event_name":"screen_view","session_id":"s","seq":2,"timestamp":"2026-11-20T10:00:09Z","correlation_id":"c2","stack":"onboarding","to_route":null}
            {"schema_version":1,"event_id":"e3","event_name":"route_push","session_id":"s","seq":3,"timestamp":"2026-11-20T10:00:03Z","correlation_id":"c3","stack":"onboarding","from_route":"nope","to_route":"welcome"}

            """
        let scratch = try TemporaryDirectory()
        let path = try scratch.write("s.ndjson", log)
        let summary = scratch.path("summary.json")
        let shown = try navreplay(["replay", "--session", "s", "--until-seq", "1", "--summary", summary, path])
        #expect(shown.status == 0, "\(shown.stdout)")
        #expect(
            shown.stderr.hasPrefix("navreplay: session \"s\": 2 event(s) replayed (seq 0 to 1), 2 past --until-seq; 0 finding(s)"),
            "\(shown.stderr)")
        #expect(shown.stderr.hasSuffix("read 1 file(s), 5 line(s) to find it\n"), "\(shown.stderr)")
        let counts = try Summary(path: summary)
        counts.expectBalanced()
        #expect(counts["duplicates"] == 1, "\(counts.json)")
        for until in ["2", "3"] {
            #expect(try navreplay(["replay", "--session", "s", "--until-seq", until, path]).status == 1, "until \(until)")
        }
        let whole = try navreplay(["replay", "--quiet", "--session", "s", path])
        #expect(whole.status == 1)
        #expect(whole.stderr.isEmpty, "\(whole.stderr)")
    }

    @Test func replayShowsTheFindingsFoundBeforeTheFold() throws {
        // s-bad-identity: a second writer's event takes seq 3 (seq.duplicate, not folded), and
        // seq 4 reuses the event_id of seq 1 (event_id.conflict, folded): both found before the
        // fold, as the audit reports them.
        let audit = try navreplay(["audit", "--quiet", "--format", "ndjson", "SampleLogs/violations"])
        let expected = audit.stdout.split(separator: "\n").filter { $0.contains("\"session_id\":\"s-bad-identity\"") }
        #expect(expected.count == 2)
        let result = try navreplay(["replay", "--session", "s-bad-identity", "--format", "ndjson", "SampleLogs/violations"])
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let notFolded = try #require(lines.first { $0.contains("\"folded\":false") })
        #expect(notFolded.hasPrefix("{\"seq\":3,\"event_id\":\"rival-writer-0001\""))
        #expect(notFolded.hasSuffix("\"findings\":[\"seq.duplicate\"]}"))
        let index = try #require(lines.firstIndex(of: notFolded))
        #expect(lines[index - 1].hasPrefix("{\"seq\":3,") && lines[index + 1].hasPrefix("{\"seq\":4,"), "after the step of its seq")
        #expect(lines[index + 1].hasSuffix("\"findings\":[\"event_id.conflict\"]}"))
        let findings = lines.map { $0.components(separatedBy: "\"findings\":[").last ?? "" }.filter { $0 != "]}" }
        #expect(findings.count == expected.count, "every finding of the session, once")

        let text = try navreplay(["replay", "--session", "s-bad-identity", "SampleLogs/violations"]).stdout
        #expect(text.contains("(not folded: SampleLogs/violations/app-2026-11-20-broken.ndjson:17)"))
        #expect(text.contains("seq.duplicate: seq 3 is already taken"))
        #expect(text.contains("event_id.conflict: event_id"))
        // Cut before them, neither shows.
        let until = try navreplay(["replay", "--session", "s-bad-identity", "--until-seq", "2", "SampleLogs/violations"]).stdout
        #expect(!until.contains("seq.duplicate") && !until.contains("event_id.conflict"))
    }

    @Test func schemaPrintsTheCommittedSchemas() throws {
        for (flag, file) in [([String](), "navigation-event.v1.schema.json"), (["--model"], "navigation-model.v1.schema.json")] {
            let result = try navreplay(["schema"] + flag)
            let committed = try String(contentsOfFile: Repository.path("Schemas/" + file), encoding: .utf8)
            #expect(result.stdout == committed)
        }
    }

    @Test func sessionsAsCSV() throws {
        let result = try navreplay(["sessions", "--format", "csv", "SampleLogs/clean"])
        let rows = result.stdout.split(separator: "\r\n")
        #expect(rows.first == "session_id,events,first_seq,last_seq,start,end,duration_ms,final_state,screens,findings")
        #expect(rows.count == 5)
    }

    @Test func quarantineKeepsInvalidLinesLosslessly() throws {
        let scratch = try TemporaryDirectory()
        let quarantine = scratch.url.appendingPathComponent("q.ndjson").path
        var input = [UInt8](Self.clean.utf8)
        input += [0x7B, 0xFF, 0xFE, 0x7D, 0x0A]  // invalid UTF-8
        let result = try navreplay(["audit", "-q", "--quarantine", quarantine, "-"], stdin: Data(input))
        #expect(result.status == 1)
        let text = try String(contentsOfFile: quarantine, encoding: .utf8)
        let record = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(record["line"] as? Int == 3)
        #expect(record["file"] as? String == "-")
        #expect(record["raw"] is NSNull)
        #expect(Data(base64Encoded: record["raw_base64"] as? String ?? "") == Data([0x7B, 0xFF, 0xFE, 0x7D]))
    }

    @Test func aDirectoryModelIsUsed() throws {
        let scratch = try TemporaryDirectory()
        _ = try scratch.write(
            "model.json",
            """
            {"model_version":1,"name":"tiny","initial":{"flow":"main"},"flows":{"main":{"stack":"home"}},
             "stacks":{"home":{"routes":["a"]}}}
            """)
        _ = try scratch.write(
            "log.ndjson",
            """
            {"schema_version":1,"event_id":"e0","event_name":"session_start","session_id":"s","seq":0,"timestamp":"2026-11-20T10:00:00Z","correlation_id":"c0","app_version":"1"}
            {"schema_version":1,"event_id":"e1","event_name":"route_push","session_id":"s","seq":1,"timestamp":"2026-11-20T10:00:01Z","correlation_id":"c1","stack":"home","from_route":null,"to_route":"a"}

            """)
        let result = try navreplay(["audit", scratch.url.path])
        #expect(result.status == 0, "\(result.stdout)")
        let withPoC = try navreplay(["audit", "--model", "/dev/null", scratch.url.path])
        #expect(withPoC.status == 2)
    }

    @Test func eachSubdirectoryFoldsWithItsOwnModel() throws {
        let scratch = try TemporaryDirectory()
        let tiny = """
            {"model_version":1,"name":"tiny","initial":{"flow":"main"},"flows":{"main":{"stack":"home"}},
             "stacks":{"home":{"routes":["a"]}}}
            """
        let log = """
            {"schema_version":1,"event_id":"e0","event_name":"session_start","session_id":"s","seq":0,"timestamp":"2026-11-20T10:00:00Z","correlation_id":"c0","app_version":"1"}
            {"schema_version":1,"event_id":"e1","event_name":"route_push","session_id":"s","seq":1,"timestamp":"2026-11-20T10:00:01Z","correlation_id":"c1","stack":"home","from_route":null,"to_route":"a"}

            """
        try FileManager.default.createDirectory(at: scratch.url.appendingPathComponent("tiny/day1"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: scratch.url.appendingPathComponent("poc"), withIntermediateDirectories: true)
        _ = try scratch.write("tiny/model.json", tiny)
        _ = try scratch.write("tiny/day1/log.ndjson", log)
        _ = try scratch.write("poc/log.ndjson", log)  // the same session id, another app: PoC has no stack "home"
        let result = try navreplay(["audit", "--format", "ndjson", scratch.url.path])
        #expect(result.status == 1)
        let findings = result.stdout.split(separator: "\n")
        #expect(findings.count == 1)
        #expect(findings.first?.contains("\"rule\":\"stack.unknown\"") == true)
        #expect(findings.first?.contains("poc/log.ndjson") == true)
        #expect(result.stderr.contains("2 session(s)"))
    }

    @Test func oneSessionIDUnderTwoModelsGivesTheSameBytesInAnyArgumentOrder() throws {
        // Two apps (two model.json) with a session "s" each: two sessions, ordered by model,
        // and models are numbered by their paths, not by the order of the arguments.
        let scratch = try TemporaryDirectory()
        for (app, route) in [("a", "x"), ("b", "y")] {
            try FileManager.default.createDirectory(at: scratch.url.appendingPathComponent(app), withIntermediateDirectories: true)
            _ = try scratch.write(
                "\(app)/model.json",
                """
                {"model_version":1,"name":"\(app)","initial":{"flow":"main"},"flows":{"main":{"stack":"home"}},"stacks":{"home":{"routes":["\(route)"]}}}
                """)
            _ = try scratch.write(
                "\(app)/log.ndjson",
                """
                {"schema_version":1,"event_id":"e0","event_name":"session_start","session_id":"s","seq":0,"timestamp":"2026-11-20T10:00:00Z","correlation_id":"c0","app_version":"1"}
                {"schema_version":1,"event_id":"e1","event_name":"route_push","session_id":"s","seq":1,"timestamp":"2026-11-20T10:00:01Z","correlation_id":"c1","stack":"home","from_route":null,"to_route":"z"}

                """)
        }
        let a = scratch.url.appendingPathComponent("a").path
        let b = scratch.url.appendingPathComponent("b").path
        // Two findings (route.unknown); a header and two records (CSV lines end in CRLF).
        for (command, lines) in [(["audit", "--format", "ndjson"], 2), (["sessions", "--format", "csv"], 3)] {
            let forward = try navreplay(command + [a, b])
            let backward = try navreplay(command + [b, a])
            #expect(forward.stdout.split(whereSeparator: \.isNewline).count == lines, "\(command): \(forward.stdout)")
            #expect(forward.stdout == backward.stdout, "\(command)")
        }
    }
}
