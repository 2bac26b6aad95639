public import NavEvents
import NavJSON
import NavModel
public import NavReplay
import NavInput
public import NavResults
public import NavRuns

/// What the nightly report shows, computed from an audit run whose sessions recorded their
/// steps (`SessionAuditOptions(recordSteps: true)`). Pure: the same run gives the same data.
public struct ReportData: Sendable {
    /// One bar of a chart: a label, its value, and optional parts (errors, warnings).
    public struct Bar: Sendable, Equatable {
        public var label: String
        public var value: Int
        public var errors = 0
        public var warnings = 0
        /// For a rate: the sessions it is per (findings over time: the sessions active then).
        public var sessions = 0
    }

    public struct RuleRow: Sendable, Equatable {
        public var rule: Rule
        public var count: Int
        public var sessions: Int
    }

    /// The depth of one stack after each event: how many events left it at each depth.
    public struct DepthRow: Sendable, Equatable {
        public var stack: String
        public var histogram: [Int]
        public var maximum: Int
        public var mean: Double
    }

    /// A session among the worst, with its timeline.
    public struct WorstSession: Sendable {
        public var audit: SessionAudit
        public var errors: Int
        public var warnings: Int
    }

    public var run: AuditRun
    /// From an event store (`report --store`): findings per batch and per app version.
    public var trends: ReportTrends?
    /// The rules `diff --by app_version` finds significantly changed in the newest version.
    public var regressions: ReportRegressions?
    public var firstTimestamp: Timestamp?
    public var lastTimestamp: Timestamp?
    public var errors = 0
    public var warnings = 0
    public var rules: [RuleRow] = []
    /// Findings per hour or per day (`timeUnit`), by the offending events' timestamps.
    public var overTime: [Bar] = []
    public var timeUnit = "hour"
    /// Findings of unreadable lines, which have no timestamp.
    public var untimedFindings = 0
    public var topPaths: [Bar] = []
    public var topTransitions: [Bar] = []
    public var entries: [Bar] = []
    public var exits: [Bar] = []
    public var screenViews: [Bar] = []
    public var depths: [DepthRow] = []
    public var sessionLengths: [Bar] = []
    public var sessionDurations: [Bar] = []
    public var worst: [WorstSession] = []
    /// The journeys' section (`JourneyReport`), in place of the paths counted here, when given.
    public var journeysHTML: String?

    /// The number of sessions with at least one finding.
    public var sessionsWithFindings = 0

    /// - Parameters:
    ///   - worstCount: how many of the worst sessions get a timeline.
    ///   - topCount: how many rows the "top" lists keep.
    public init(run: AuditRun, worstCount: Int = 5, topCount: Int = 10) throws {
        let sessions = ReportAccumulator(worstCount: worstCount)
        for audit in run.sessions { sessions.add(audit) }
        try self.init(run: run, sessions: sessions, topCount: topCount)
    }

    /// The report of a run whose sessions were gathered into `sessions` as they folded (a
    /// streamed run keeps none of them itself). Throws when the label counts past their
    /// budget could not be written to temporary files (`SpillingCounter`).
    public init(run: AuditRun, sessions accumulated: ReportAccumulator, topCount: Int = 10) throws {
        try accumulated.checkSteps()
        self.run = run
        let totals = accumulated.totals
        for (rule, count) in run.counts.findingsByRule {
            if rule.severity == .error { errors += count } else { warnings += count }
        }
        rules = run.counts.findingsByRule.map { RuleRow(rule: $0.key, count: $0.value, sessions: totals.sessionsByRule[$0.key] ?? 0) }
            .sorted { ($0.rule.severity, $0.count, $1.rule.rawValue) > ($1.rule.severity, $1.count, $0.rule.rawValue) }
        firstTimestamp = totals.first?.timestamp
        lastTimestamp = totals.last?.timestamp
        sessionsWithFindings = totals.sessionsWithFindings
        let depthCounts = totals.depths
        untimedFindings = totals.untimedFindings + run.invalidFindings.count

        typealias Group = ReportAccumulator.LabelGroup
        let limits = [Group.path: topCount, .transition: topCount, .entry: topCount, .exit: topCount, .view: max(topCount, 15)]
        let tops = try accumulated.topLabels(limits)
        func bars(_ group: Group) -> [Bar] { (tops[group] ?? []).map { Bar(label: $0.label, value: $0.count) } }
        topPaths = bars(.path)
        topTransitions = bars(.transition)
        entries = bars(.entry)
        exits = bars(.exit)
        screenViews = bars(.view)
        depths = depthCounts.keys.sorted().map { stack in
            let histogram = depthCounts[stack] ?? []
            let total = histogram.reduce(0, +)
            let weighted = histogram.enumerated().reduce(0) { $0 + $1.offset * $1.element }
            return DepthRow(
                stack: stack, histogram: histogram, maximum: histogram.count - 1,
                mean: total == 0 ? 0 : Double(weighted) / Double(total))
        }

        sessionLengths = totals.lengths.bars
        sessionDurations = totals.durations.bars
        overTime = Self.timeBuckets(
            totals.findingsByHour, sessions: totals.activeSessions, first: firstTimestamp, last: lastTimestamp, unit: &timeUnit)

        worst = totals.worst.ranked
    }

    /// Findings per 1,000 sessions active in each UTC hour when the events span three days or
    /// less, else in each UTC day (errors and warnings each rounded to a whole number; `sessions`
    /// holds the divisor); every bucket between the first and last event is present, empty ones
    /// included. None past `FindingsByHour.maximumDays` buckets.
    static func timeBuckets(
        _ findings: FindingsByHour, sessions: ActiveSessions, first: Timestamp?, last: Timestamp?, unit: inout String
    ) -> [Bar] {
        guard let first, let last else { return [] }
        let hour = FindingsByHour.hour
        let day = 24 * hour
        let span = last.epochMilliseconds - first.epochMilliseconds
        let size = span <= 3 * day ? hour : day
        unit = size == hour ? "hour" : "day"
        func floor(_ value: Int64) -> Int64 { FindingsByHour.floor(value, to: size) }
        let start = floor(first.epochMilliseconds)
        let count = Int((floor(last.epochMilliseconds) - start) / size) + 1
        guard count > 0, count <= FindingsByHour.maximumDays, !findings.overflowed, !sessions.overflowed else { return [] }
        var bars = (0..<count).map { index -> Bar in
            let text = Timestamp(epochMilliseconds: start + Int64(index) * size).text
            // "2026-11-20T10:00:00.000Z" → "2026-11-20 10:00" or "2026-11-20".
            let label = size == hour ? String(text.prefix(10)) + " " + String(text.dropFirst(11).prefix(5)) : String(text.prefix(10))
            return Bar(label: label, value: 0, sessions: sessions.count(at: start + Int64(index) * size, size: size))
        }
        // Hours in key order: the same sums whatever order the dictionary holds them in.
        for hourStart in findings.counts.keys.sorted() {
            let index = Int((floor(hourStart) - start) / size)
            guard bars.indices.contains(index), let count = findings.counts[hourStart] else { continue }
            bars[index].errors += count.errors
            bars[index].warnings += count.warnings
        }
        for index in bars.indices {
            let active = Double(max(bars[index].sessions, 1))
            bars[index].errors = Int((Double(bars[index].errors) * 1000 / active).rounded())
            bars[index].warnings = Int((Double(bars[index].warnings) * 1000 / active).rounded())
            bars[index].value = bars[index].errors + bars[index].warnings
        }
        return bars
    }
}

/// Findings counted per UTC hour (the chart's finest bucket), by severity: memory for the hours
/// that have findings, not for each finding, so a report of millions of findings stays small.
struct FindingsByHour {
    static let hour: Int64 = 3_600_000
    /// The chart shows at most this many days (else nothing): hours past that many days' worth
    /// need not be kept.
    static let maximumDays = 2_000
    var counts: [Int64: (errors: Int, warnings: Int)] = [:]
    /// Findings spread over more hours than `maximumDays` holds: the events then span more
    /// than that many days, and the chart is not drawn.
    var overflowed = false

    static func floor(_ value: Int64, to size: Int64) -> Int64 {
        value >= 0 ? value / size * size : ((value - size + 1) / size) * size
    }

    /// Adds `sign` (1, or -1 to take a session's findings out again) findings at `time`.
    mutating func add(_ time: Int64, _ severity: Severity, _ sign: Int = 1) {
        adjust(Self.floor(time, to: Self.hour), errors: severity == .error ? sign : 0, warnings: severity == .error ? 0 : sign)
    }

    mutating func merge(_ other: FindingsByHour) {
        if other.overflowed { overflow() }
        for (hourStart, count) in other.counts { adjust(hourStart, errors: count.errors, warnings: count.warnings) }
    }

    private mutating func adjust(_ hourStart: Int64, errors: Int, warnings: Int) {
        guard !overflowed else { return }
        var count = counts[hourStart] ?? (0, 0)
        count.errors += errors
        count.warnings += warnings
        counts[hourStart] = count.errors == 0 && count.warnings == 0 ? nil : count
        if counts.count > Self.maximumDays * 24 { overflow() }
    }

    private mutating func overflow() {
        overflowed = true
        counts = [:]
    }
}

/// A histogram with fixed buckets (upper bounds, inclusive) and an overflow bucket, counted as
/// values come: one counter a bucket, whatever the number of sessions.
struct Histogram {
    let buckets: [(bound: Int64, label: String)]
    let overflow: String
    var counts: [Int]

    init(_ buckets: [(bound: Int64, label: String)], overflow: String) {
        self.buckets = buckets
        self.overflow = overflow
        counts = Array(repeating: 0, count: buckets.count + 1)
    }

    static func sessionLengths() -> Histogram {
        Histogram(
            [
                (1, "1"), (5, "2–5"), (10, "6–10"), (20, "11–20"), (50, "21–50"), (100, "51–100"), (200, "101–200"),
                (500, "201–500"), (1000, "501–1k"),
            ],
            overflow: ">1k")
    }

    static func sessionDurations() -> Histogram {
        Histogram(
            // A session whose last event is timed before its first (the clock went back) has
            // a duration below zero: a bar of its own, not "<1 s", shown only when there is one.
            [
                (-1, "<0 s (clock went back)"), (999, "<1 s"), (9_999, "1–10 s"), (29_999, "10–30 s"), (59_999, "30–60 s"),
                (299_999, "1–5 min"),
                (899_999, "5–15 min"), (3_599_999, "15–60 min"), (14_399_999, "1–4 h"),
            ],
            overflow: ">4 h")
    }

    mutating func add(_ value: Int64) {
        counts[buckets.firstIndex { value <= $0.bound } ?? buckets.count] += 1
    }

    mutating func merge(_ other: Histogram) {
        for index in counts.indices { counts[index] += other.counts[index] }
    }

    /// The bars, trailing empty buckets dropped; none when nothing was counted.
    var bars: [ReportData.Bar] {
        var bars = zip(buckets.map(\.label) + [overflow], counts).map { ReportData.Bar(label: $0, value: $1) }
        if let first = buckets.first, first.bound < 0, counts[0] == 0 { bars.removeFirst() }
        while let last = bars.last, last.value == 0, bars.count > 1 { bars.removeLast() }
        return counts.allSatisfy { $0 == 0 } ? [] : bars
    }
}

/// The per-session part of a report, gathered one session at a time, from any thread and in any
/// order: every total is a sum, and every extreme has a tie-break, so the report is the same
/// whatever the order. Only the worst sessions (with their steps) are kept: a streamed audit
/// (`navreplay report`) then holds one session's states at a time, not every session's. The
/// counts by label (screen paths, one nearly per session) are held up to a budget, then
/// written to temporary files (`SpillingCounter`).
public final class ReportAccumulator: @unchecked Sendable {
    // @unchecked: `gathered` and `labels` are touched only under `lock`.
    private let lock = NSLockLike()
    let worstCount: Int
    private var gathered: Totals
    private let labels: SpillingCounter

    /// What a label counted by `labels` is: the groups of the report's "top" lists.
    public enum LabelGroup: Int, Sendable {
        /// A session's visible screens, consecutive repeats collapsed.
        case path
        /// Two consecutive screens of a session.
        case transition
        /// A session's first screen.
        case entry
        /// A session's last screen.
        case exit
        /// The screen of a `screen_view` event.
        case view
    }

    struct Totals {
        /// The earliest start and the latest end, with the session each came from: among equal
        /// instants, the first session in session order (as a walk in that order finds it).
        var first: (timestamp: Timestamp, session: String)?
        var last: (timestamp: Timestamp, session: String)?
        /// One session's labels to count, each once an occurrence (`add` only).
        var labels: [(group: LabelGroup, label: String)] = []
        var depths: [String: [Int]] = [:]
        var lengths = Histogram.sessionLengths()
        var durations = Histogram.sessionDurations()
        var findingsByHour = FindingsByHour()
        var activeSessions = ActiveSessions()
        var untimedFindings = 0
        var sessionsByRule: [Rule: Int] = [:]
        var sessionsWithFindings = 0
        /// The worst sessions so far.
        var worst: Leaders<ReportData.WorstSession>

        init(worstCount: Int) {
            worst = Leaders(keeping: worstCount, by: ReportAccumulator.isWorse)
        }

        /// Adds another part's totals (another session's, another job's): sums, and extremes
        /// with their tie-breaks, so the order of parts does not matter.
        mutating func merge(_ other: Totals) {
            if let first = other.first, self.first.map({ ReportAccumulator.replaces(first, $0, latest: false) }) ?? true {
                self.first = first
            }
            if let last = other.last, self.last.map({ ReportAccumulator.replaces(last, $0, latest: true) }) ?? true { self.last = last }
            depths.merge(other.depths) { old, new in
                var sum = old.count >= new.count ? old : new
                for (index, count) in (old.count >= new.count ? new : old).enumerated() { sum[index] += count }
                return sum
            }
            lengths.merge(other.lengths)
            durations.merge(other.durations)
            findingsByHour.merge(other.findingsByHour)
            activeSessions.merge(other.activeSessions)
            untimedFindings += other.untimedFindings
            sessionsByRule.merge(other.sessionsByRule, uniquingKeysWith: +)
            sessionsWithFindings += other.sessionsWithFindings
            for candidate in other.worst.ranked { worst.add(candidate) }
        }
    }

    var totals: Totals { lock.withLock { gathered } }

    /// - Parameters:
    ///   - labelBudget: about how many bytes the counts by label may hold before they are
    ///     written to temporary files; `Int.max` keeps them all in memory.
    ///   - temporaryDirectory: where those files go (`nil`: `$TMPDIR` or `/tmp`).
    public init(worstCount: Int = 5, labelBudget: Int = .max, temporaryDirectory: String? = nil) {
        self.worstCount = worstCount
        gathered = Totals(worstCount: worstCount)
        labels = SpillingCounter(budgetBytes: labelBudget, temporaryDirectory: temporaryDirectory)
    }

    /// Each group's `limits[group]` highest counts, highest first, then by label (UTF-8 byte
    /// order). Once only: the temporary files are removed.
    public func topLabels(_ limits: [LabelGroup: Int]) throws -> [LabelGroup: [SpillingCounter.Entry]] {
        let tops = try lock.withLock { try labels.top(Dictionary(uniqueKeysWithValues: limits.map { ($0.key.rawValue, $0.value) })) }
        return Dictionary(uniqueKeysWithValues: tops.compactMap { group, entries in LabelGroup(rawValue: group).map { ($0, entries) } })
    }

    /// Adds one session (its steps are needed: `SessionAuditOptions(recordSteps: true)`).
    public func add(_ audit: SessionAudit) {
        var totals = Totals(worstCount: worstCount)
        add(audit, to: &totals)
        combine(Share(totals: totals))
    }

    /// Adds one session to a fold job's totals; its labels go to the shared counts by label,
    /// which hold them up to their budget, in batches (a session's views are as many as its
    /// events).
    func add(_ audit: SessionAudit, to totals: inout Totals) {
        var mine = Totals(worstCount: 1)
        if let start = audit.start { mine.first = (start, audit.sessionID) }
        if let end = audit.end { mine.last = (end, audit.sessionID) }
        if let start = audit.start, let end = audit.end {
            mine.activeSessions.add(start: start.epochMilliseconds, end: end.epochMilliseconds)
        }
        func countLabels(atLeast batch: Int) {
            guard mine.labels.count >= batch else { return }
            let labels = mine.labels
            mine.labels = []
            lock.withLock { for (group, label) in labels { self.labels.add(label, group: group.rawValue) } }
        }
        let screens = audit.screens.map(\.label)
        if let entry = screens.first, let exit = screens.last {
            mine.labels.append((.path, screens.joined(separator: " → ")))
            mine.labels.append((.entry, entry))
            mine.labels.append((.exit, exit))
        }
        for (from, to) in zip(screens, screens.dropFirst()) {
            mine.labels.append((.transition, from + " → " + to))
            countLabels(atLeast: 4096)
        }
        var times = FindingSteps(audit.findings)
        do {
            try audit.forEachStep { step, cursor in
                times.step(seq: step.event.seq, time: step.event.timestamp.epochMilliseconds)
                if case .screenView(let claim, _) = step.event.payload {
                    mine.labels.append((.view, claim.screen.label))
                    countLabels(atLeast: 4096)
                }
                cursor.forEachStackDepth { stack, depth in
                    var histogram = mine.depths[stack] ?? []
                    if histogram.count <= depth { histogram += Array(repeating: 0, count: depth + 1 - histogram.count) }
                    histogram[depth] += 1
                    mine.depths[stack] = histogram
                }
            }
        } catch {
            fail(error)
        }
        times.finish()
        let findings = Self.findingShare(of: audit, times: times.steps.map { $0?.time })
        for (time, severity) in findings.times { mine.findingsByHour.add(time, severity) }
        mine.untimedFindings = findings.untimed
        mine.sessionsByRule = findings.sessionsByRule
        mine.lengths.add(Int64(audit.events))
        if let duration = audit.durationMilliseconds { mine.durations.add(duration) }
        if audit.findingCount > 0 { mine.sessionsWithFindings = 1 }
        if let candidate = findings.worst { mine.worst.add(candidate) }
        countLabels(atLeast: 0)
        totals.merge(mine)
    }

    /// The first error met reading a session's steps back (a session audited from disk walks
    /// its steps from there), thrown by `ReportData.init(run:sessions:)`.
    private var failure: (any Error)?

    private func fail(_ error: any Error) {
        lock.withLock { if failure == nil { failure = error } }
    }

    /// Throws the first error met reading a session's steps back, if any.
    func checkSteps() throws {
        if let failure = lock.withLock({ failure }) { throw failure }
    }

    /// Replaces a session added before (`previous`) with the same session folded again, with
    /// more findings: its event ids shared with other sessions resolved (`SessionFolder.replace`).
    /// The events are the same, so only the findings' share changes.
    public func replace(_ previous: SessionAudit, with audit: SessionAudit) {
        let old = Self.findingShare(of: previous, times: findingTimes(of: previous))
        let new = Self.findingShare(of: audit, times: findingTimes(of: audit))
        lock.withLock {
            for (time, severity) in old.times { gathered.findingsByHour.add(time, severity, -1) }
            for (time, severity) in new.times { gathered.findingsByHour.add(time, severity) }
            gathered.untimedFindings += new.untimed - old.untimed
            gathered.sessionsByRule.merge(old.sessionsByRule.mapValues { -$0 }, uniquingKeysWith: +)
            gathered.sessionsByRule.merge(new.sessionsByRule, uniquingKeysWith: +)
            gathered.sessionsByRule = gathered.sessionsByRule.filter { $0.value != 0 }
            if previous.findingCount > 0 { gathered.sessionsWithFindings -= 1 }
            if audit.findingCount > 0 { gathered.sessionsWithFindings += 1 }
            gathered.worst.removeAll {
                $0.audit.sessionID.utf8Equals(previous.sessionID) && $0.audit.start == previous.start && $0.audit.events == previous.events
            }
            if let candidate = new.worst { gathered.worst.add(candidate) }
        }
    }

    private func findingTimes(of audit: SessionAudit) -> [Int64?] {
        var times = FindingSteps(audit.findings)
        do {
            try audit.forEachStep { step, _ in times.step(seq: step.event.seq, time: step.event.timestamp.epochMilliseconds) }
        } catch {
            fail(error)
        }
        times.finish()
        return times.steps.map { $0?.time }
    }

    /// A session's findings, as the report counts them: each at the time of its seq (or of the
    /// latest seq before it: `times`, one a finding), by rule, and the session as a candidate for
    /// the worst.
    private static func findingShare(
        of audit: SessionAudit, times findingTimes: [Int64?]
    ) -> (
        times: [(Int64, Severity)], untimed: Int, sessionsByRule: [Rule: Int], worst: ReportData.WorstSession?
    ) {
        var times: [(Int64, Severity)] = []
        var untimed = 0
        for (finding, time) in zip(audit.findings, findingTimes) where finding.seq != nil {
            if let time { times.append((time, finding.severity)) } else { untimed += 1 }
        }
        var sessionsByRule: [Rule: Int] = [:]
        for rule in Set(audit.findings.map(\.rule)) { sessionsByRule[rule] = 1 }
        let errors = audit.findings.filter { $0.severity == .error }.count
        let worst =
            audit.findingCount > 0 ? ReportData.WorstSession(audit: audit, errors: errors, warnings: audit.findings.count - errors) : nil
        return (times, untimed, sessionsByRule, worst)
    }

    /// Whether `a` is earlier (or, `latest`, later) than `b`; among equal instants, the first
    /// in session order wins, as a walk in that order keeps the first it meets.
    static func replaces(_ a: (timestamp: Timestamp, session: String), _ b: (timestamp: Timestamp, session: String), latest: Bool) -> Bool {
        if a.timestamp.isSameInstant(as: b.timestamp) { return a.session.utf8Precedes(b.session) }
        return latest ? b.timestamp < a.timestamp : a.timestamp < b.timestamp
    }

    /// Most errors, then warnings, then findings (dropped ones included); then session order.
    static func isWorse(_ a: ReportData.WorstSession, than b: ReportData.WorstSession) -> Bool {
        (a.errors, a.warnings, a.audit.findingCount, b.audit.sessionID) > (b.errors, b.warnings, b.audit.findingCount, a.audit.sessionID)
    }
}

/// A report gathers sessions as an accumulator: each fold job adds its sessions to totals of its
/// own, which are combined into the report's; a session folded again is replaced in the report's.
extension ReportAccumulator: SessionAccumulator {
    public struct Folder: SessionFolder {
        let report: ReportAccumulator

        public func makeLocal() -> Share { Share(totals: Totals(worstCount: report.worstCount)) }

        public func add(_ audit: SessionAudit, model: Int, files: [String], to local: inout Share) {
            report.add(audit, to: &local.totals)
        }

        /// Applied to the report's totals at once: the jobs that added the sessions folded
        /// again were combined before any session is folded again.
        public func replace(_ previous: SessionAudit, with audit: SessionAudit, model: Int, files: [String], in local: inout Share) {
            report.replace(previous, with: audit)
        }
    }

    /// One fold job's totals.
    public struct Share {
        var totals: Totals
    }

    public var folder: Folder { Folder(report: self) }

    public func begin(invalid: [Finding], files: [String]) {}

    public func combine(_ local: consuming Share) {
        let totals = local.totals
        lock.withLock { gathered.merge(totals) }
    }
}
