import Foundation
import NavEvents
import NavResults
import NavEngine
import NavModel
import NavReplay
import NavTestSupport
import Testing

@testable import NavReport

/// The nightly report's numbers, and that log strings stay text.
@Suite struct HTMLReportTests {
    /// Two sessions an hour apart: one clean, one that loses an event.
    func twoSessions() throws -> (AuditRun, TemporaryDirectory) {
        let directory = try TemporaryDirectory()
        var late = Sessions.broken("s-late")
        for index in late.indices {
            late[index].timestamp = Timestamp(epochMilliseconds: late[index].timestamp.epochMilliseconds + 3_600_000)
        }
        let path = try directory.write("a.ndjson", ndjson(Sessions.clean("s-early")) + ndjson(late))
        return (try audit([path], recordSteps: true), directory)
    }

    /// Findings over time are rates: a bucket's findings per 1,000 of the sessions active in it
    /// (an event in it, or events on both sides of it), so that three times the sessions with
    /// the same share of findings draw the same bar.
    @Test func findingsOverTimeArePer1000SessionsActiveInTheBucket() {
        let hour = FindingsByHour.hour
        let start: Int64 = 1_795_168_800_000  // 2026-11-20T10:00:00Z
        var findings = FindingsByHour()
        var sessions = ActiveSessions()
        // Hour 0: 3 sessions, 1 error. Hour 1: one of them still active and 3 more, 2 warnings.
        sessions.add(start: start + 10, end: start + hour + 10)
        sessions.add(start: start + 20, end: start + 30)
        sessions.add(start: start + 40, end: start + 50)
        for offset in [1, 2, 3] as [Int64] { sessions.add(start: start + hour + offset, end: start + hour + offset) }
        findings.add(start + 15, .error)
        findings.add(start + hour + 5, .warning)
        findings.add(start + hour + 6, .warning)
        var unit = ""
        let bars = ReportData.timeBuckets(
            findings, sessions: sessions, first: Timestamp(epochMilliseconds: start),
            last: Timestamp(epochMilliseconds: start + hour + 10), unit: &unit)
        #expect(unit == "hour")
        #expect(bars.map(\.sessions) == [3, 4])
        #expect(bars.map(\.errors) == [333, 0])
        #expect(bars.map(\.warnings) == [0, 500])
        #expect(bars.map(\.value) == [333, 500])
        // Per day once the events span more than three days: each session counts once a day.
        var days = ActiveSessions()
        days.add(start: start, end: start + 4 * 24 * hour)
        #expect(days.days.count == 5 && days.days.values.allSatisfy { $0 == 1 })
    }

    @Test func negativeDurationsHaveABarOfTheirOwnOnlyWhenThereAreSome() {
        var durations = Histogram.sessionDurations()
        durations.add(500)
        #expect(durations.bars.map(\.label) == ["<1 s"])
        durations.add(-10_000)
        durations.add(-1)
        #expect(durations.bars.map(\.label) == ["<0 s (clock went back)", "<1 s"])
        #expect(durations.bars.map(\.value) == [2, 1])
    }

    /// A timeline's state column lists a deep stack, and many modals, as findings do: the first
    /// 4, how many are left out, the last 12.
    @Test func aDeepStackIsCondensedInTheStateColumn() {
        let routes = (0..<40).map { "r\($0)" }
        let modals = (0..<20).map { "m\($0)" }
        let summary = HTMLReport.stateSummary(NavigationState(flow: "authorized", tab: "tab1", stacks: ["tab1": routes], modals: modals))
        #expect(summary.contains("tab1: r0 › r1 › r2 › r3 › … 24 more … › r28 › "))
        #expect(summary.hasSuffix("modals: m0, m1, m2, m3, … 4 more …, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17, m18, m19"))
        #expect(!summary.contains("r10 "))
    }

    /// So does its change column: each step of a deep stack's timeline named the whole stack
    /// twice (before and after), and the page grew with depth x events.
    @Test func aDeepStackIsCondensedInTheChangeColumn() throws {
        let directory = try TemporaryDirectory()
        var builder = EventBuilder(sessionID: "s-deep")
        var events = [builder.start()]
        for index in 0..<39 {
            events.append(
                builder.make(.routePush(stack: "onboarding", from: index == 0 ? nil : "r\(index - 1)", to: "r\(index)", params: nil)))
        }
        builder.nextSeq += 1  // a lost event: the session has an error, and a timeline
        events.append(builder.make(.routePush(stack: "onboarding", from: "r38", to: "r39", params: nil)))
        let path = try directory.write("deep.ndjson", ndjson(events))
        let run = try audit([path], recordSteps: true)
        let html = try HTMLReport.html(try ReportData(run: run, worstCount: 1), toolVersion: "test")
        #expect(
            html.contains(
                "<div class=\"chg\">onboarding: [r0, r1, r2, r3, … 23 more …, r27, r28, r29, r30, r31, r32, r33, r34, r35, r36, r37, r38] → "
                    + "[r0, r1, r2, r3, … 24 more …, r28, r29, r30, r31, r32, r33, r34, r35, r36, r37, r38, r39]</div>"))
        // (Every push is shown: its route is not in the PoC model.) No list past 16 names is
        // spelled out: 13 names in a row from the middle would be one.
        #expect(!html.contains("r5, r6, r7, r8, r9, r10, r11, r12, r13, r14, r15, r16, r17"))
        let short = StateChange.stack("tab1", from: ["a"], to: ["a", "b"])
        #expect(short.condensedDescription == short.description)
    }

    /// The text audit's `changed:` line too: a finding at each of 5,000 presented modals listed
    /// them all (a 1.5 MB log wrote 165 MB of text).
    @Test func manyModalsAreCondensedInTheTextAuditsChangedLine() throws {
        let modals = (0..<40).map { "m\($0)" }
        var finding = Finding(rule: .modalNotAllowed, sessionID: "s", seq: 41, eventID: "e41", location: nil, message: "m")
        finding.stateBefore = NavigationState(flow: "authorized", modals: Array(modals.dropLast()))
        finding.stateAfter = NavigationState(flow: "authorized", modals: modals)
        let text = TextWriter.group([finding], files: [], style: TextStyle(color: false))
        #expect(
            text.contains(
                "changed: modals: [m0, m1, m2, m3, … 23 more …, m27, m28, m29, m30, m31, m32, m33, m34, m35, m36, m37, m38] → "
                    + "[m0, m1, m2, m3, … 24 more …, m28, m29, m30, m31, m32, m33, m34, m35, m36, m37, m38, m39]"), "\(text)")
        #expect(!text.contains("m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17"))
    }

    @Test func sessionsGatheredInAnyOrderGiveTheSameReport() throws {
        // `navreplay report` adds each session as it folds (from any fold job, in any order)
        // and keeps only the worst: the page must be the one made from the whole run.
        let run = try audit(
            [Repository.path("SampleLogs/clean"), Repository.path("SampleLogs/violations")].flatMap { directory in
                try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".ndjson") }.sorted().map {
                    directory + "/" + $0
                }
            }, recordSteps: true)
        #expect(run.sessions.count >= 10)
        for worstCount in [0, 3, 50] {
            let whole = try HTMLReport.html(try ReportData(run: run, worstCount: worstCount), toolVersion: "test")
            var random = SeededRandom(seed: UInt64(worstCount))
            // Counts by label held in memory, or written to temporary files past 300 bytes.
            for (order, labelBudget) in [
                (Array(run.sessions.reversed()), Int.max), (run.sessions.shuffled(using: &random), Int.max),
                (run.sessions.shuffled(using: &random), 300),
            ] {
                let scratch = try TemporaryDirectory()
                let sessions = ReportAccumulator(worstCount: worstCount, labelBudget: labelBudget, temporaryDirectory: scratch.url.path)
                DispatchQueue.concurrentPerform(iterations: 2) { half in
                    for (index, audit) in order.enumerated() where index % 2 == half { sessions.add(audit) }
                }
                var streamed = run
                streamed.sessions = []
                let page = try HTMLReport.html(try ReportData(run: streamed, sessions: sessions), toolVersion: "test")
                let same = page == whole
                #expect(same, "worst \(worstCount), label budget \(labelBudget)")
                #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).isEmpty)
            }
        }
    }

    @Test func sessionsFoldedAgainReplaceTheirFirstShare() throws {
        // A session folded again (event ids shared with other sessions) replaces its first
        // audit: the page is the one made from the final audits, whatever the first ones held.
        let run = try audit(
            [Repository.path("SampleLogs/violations")].flatMap { directory in
                try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".ndjson") }.sorted().map {
                    directory + "/" + $0
                }
            }, recordSteps: true)
        #expect(run.sessions.contains { !$0.findings.isEmpty })
        let whole = try HTMLReport.html(try ReportData(run: run, worstCount: 3), toolVersion: "test")
        for (name, first) in [
            (
                "no findings at first",
                { (audit: SessionAudit) in
                    var first = audit
                    first.findings = []
                    return first
                }
            ),
            (
                "every finding twice at first",
                { (audit: SessionAudit) in
                    var first = audit
                    first.findings += audit.findings
                    return first
                }
            ),
        ] as [(String, (SessionAudit) -> SessionAudit)] {
            let sessions = ReportAccumulator(worstCount: 3)
            for audit in run.sessions { sessions.add(first(audit)) }
            for audit in run.sessions.reversed() { sessions.replace(first(audit), with: audit) }
            var streamed = run
            streamed.sessions = []
            let same = try HTMLReport.html(try ReportData(run: streamed, sessions: sessions), toolVersion: "test") == whole
            #expect(same, "\(name)")
        }
    }

    @Test func dataCountsFindingsPathsScreensDepthsAndLengths() throws {
        let (run, _) = try twoSessions()
        let data = try ReportData(run: run)
        #expect(data.errors == 1)
        #expect(data.warnings == 1)
        #expect(data.rules.map(\.rule) == [.stateMismatch, .seqGap])
        #expect(data.timeUnit == "hour")
        #expect(data.overTime.map(\.label) == ["2026-11-20 10:00", "2026-11-20 11:00"])
        // Per 1,000 sessions active in the hour: one session in each hour.
        #expect(data.overTime.map(\.sessions) == [1, 1])
        #expect(data.overTime.map(\.value) == [0, 2000])
        #expect(data.overTime[1].errors == 1000 && data.overTime[1].warnings == 1000)
        // Both sessions show onboarding's root, then welcome, then signup.
        let path = "onboarding/(root) → onboarding/welcome → onboarding/signup"
        #expect(data.topPaths == [ReportData.Bar(label: path, value: 2)])
        #expect(data.entries == [ReportData.Bar(label: "onboarding/(root)", value: 2)])
        #expect(data.topTransitions.first == ReportData.Bar(label: "onboarding/(root) → onboarding/welcome", value: 2))
        let onboarding = try #require(data.depths.first { $0.stack == "onboarding" })
        #expect(onboarding.maximum == 2)
        // Depths after each event: 0 1 2 (clean) and 0 1 2 2 (the pop first adopts the lost
        // "permissions", then pops it).
        #expect(onboarding.histogram == [2, 2, 3])
        #expect(data.sessionLengths.map(\.value).reduce(0, +) == 2)
        #expect(data.worst.map(\.audit.sessionID) == ["s-late"])
    }

    @Test func everyLogStringIsEscaped() throws {
        let directory = try TemporaryDirectory()
        let hostile = "</script><script>alert(1)</script>\"><img src=x onerror=alert(1)>]]>\u{1B}[31m\nnext"
        var builder = EventBuilder(sessionID: "s</script>\"><img src=x>")
        let events = [
            builder.start(),
            builder.make(.routePush(stack: "onboarding", from: nil, to: hostile, params: nil)),
            builder.make(.screenView(.stack("onboarding", route: hostile), params: nil)),
        ]
        let path = try directory.write("a.ndjson", ndjson(events))
        let page = try HTMLReport.html(try ReportData(run: try audit([path], recordSteps: true)), toolVersion: "test")
        #expect(!page.contains("<script"))
        #expect(!page.contains("<img"))
        #expect(!page.contains("\u{1B}"))
        #expect(page.contains("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(1)&gt;]]&gt;"))
        // Self-contained: nothing is loaded from anywhere.
        for forbidden in ["http://", "https://", "<link", "src=\"", "href=\"", "url(", "@import"] {
            #expect(!page.contains(forbidden), "\(forbidden)")
        }
        #expect(page.contains("Content-Security-Policy"))
    }

    @Test func aCleanRunSaysSo() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("a.ndjson", ndjson(Sessions.clean()))
        let page = try HTMLReport.html(try ReportData(run: try audit([path], recordSteps: true)), toolVersion: "test")
        #expect(page.contains("no findings"))
        #expect(page.contains("No session has a finding."))
    }

    @Test(arguments: [(0, 2), (1, 2), (2, 2), (7, 8), (56, 60), (99, 100), (101, 120), (1234, 1600)])
    func chartMaximaAreRoundAndEven(value: Int, expected: Int) {
        #expect(SVGChart.niceMaximum(value) == expected)
    }

    @Test(arguments: [(0, "0 ms"), (999, "999 ms"), (12_400, "12.4 s"), (185_000, "3 min 05 s"), (8_040_000, "2 h 14 min")])
    func durationsReadWell(milliseconds: Int64, text: String) {
        #expect(HTMLReport.duration(milliseconds) == text)
    }

    @Test func timeBucketsArePerDayForLongSpans() {
        var unit = ""
        let first = Timestamp(epochMilliseconds: EventBuilder.defaultStart)
        let last = Timestamp(epochMilliseconds: EventBuilder.defaultStart + 5 * 86_400_000)
        var findings = FindingsByHour()
        findings.add(EventBuilder.defaultStart + 86_400_000, .error)
        var sessions = ActiveSessions()
        sessions.add(start: EventBuilder.defaultStart, end: EventBuilder.defaultStart + 5 * 86_400_000)
        sessions.add(start: EventBuilder.defaultStart + 86_400_000, end: EventBuilder.defaultStart + 86_400_000)
        let bars = ReportData.timeBuckets(findings, sessions: sessions, first: first, last: last, unit: &unit)
        #expect(unit == "day")
        #expect(bars.map(\.label) == ["2026-11-20", "2026-11-21", "2026-11-22", "2026-11-23", "2026-11-24", "2026-11-25"])
        #expect(bars.map(\.sessions) == [1, 2, 1, 1, 1, 1])
        #expect(bars.map(\.errors) == [0, 500, 0, 0, 0, 0])
    }

    @Test func findingsAreCountedPerHourNotKeptOneByOne() {
        // A report of millions of findings holds a counter an hour, and none past the days a
        // chart can show (it would not be drawn).
        let start = EventBuilder.defaultStart
        var findings = FindingsByHour()
        for minute in 0..<600 { findings.add(start + Int64(minute) * 60_000, minute % 3 == 0 ? .error : .warning) }
        #expect(findings.counts.count == 10)
        #expect(findings.counts.values.map { $0.errors + $0.warnings }.reduce(0, +) == 600)
        // Taking a session's findings out again (it was folded again) leaves no empty hour.
        findings.add(start, .error, -1)
        for minute in 1..<60 { findings.add(start + Int64(minute) * 60_000, minute % 3 == 0 ? .error : .warning, -1) }
        #expect(findings.counts.count == 9)
        var unit = ""
        // 1,000 sessions active all along: a bucket's rate per 1,000 sessions is its count.
        var sessions = ActiveSessions()
        for _ in 0..<1000 { sessions.add(start: start, end: start + 10 * 3_600_000) }
        let bars = ReportData.timeBuckets(
            findings, sessions: sessions, first: Timestamp(epochMilliseconds: start),
            last: Timestamp(epochMilliseconds: start + 10 * 3_600_000), unit: &unit)
        #expect(unit == "hour")
        #expect(bars.map(\.value) == [0] + Array(repeating: 60, count: 9) + [0])
        #expect(bars.map(\.errors) == [0] + Array(repeating: 20, count: 9) + [0])

        var spread = FindingsByHour()
        for hour in 0...(Int64(FindingsByHour.maximumDays) * 24) { spread.add(start + hour * 3_600_000, .warning) }
        #expect(spread.overflowed)
        #expect(spread.counts.isEmpty)
        let last = Timestamp(epochMilliseconds: start + Int64(FindingsByHour.maximumDays) * 86_400_000)
        #expect(
            ReportData.timeBuckets(spread, sessions: sessions, first: Timestamp(epochMilliseconds: start), last: last, unit: &unit)
                .isEmpty)
    }

    @Test func histogramsCountIntoTheirBuckets() {
        var lengths = Histogram.sessionLengths()
        #expect(lengths.bars.isEmpty)
        for value: Int64 in [1, 1, 3, 10, 11, 1_000] { lengths.add(value) }
        #expect(lengths.bars.map(\.label) == ["1", "2–5", "6–10", "11–20", "21–50", "51–100", "101–200", "201–500", "501–1k"])
        #expect(lengths.bars.map(\.value) == [2, 1, 1, 1, 0, 0, 0, 0, 1])
        var other = Histogram.sessionLengths()
        other.add(5_000)
        lengths.merge(other)
        #expect(lengths.bars.last == ReportData.Bar(label: ">1k", value: 1))
    }
}
