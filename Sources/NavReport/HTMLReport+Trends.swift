public import NavReplay

/// The night over nights, from an event store: findings per batch (labelled by its date) and per
/// app version, as rates per 1,000 sessions.
public struct ReportTrends: Sendable {
    /// A batch or an app version: its sessions and the findings they hold.
    public struct Period: Sendable, Equatable {
        public var label: String
        public var sessions: Int
        public var findings: Int
        public var errors: Int
        public var warnings: Int

        public init(label: String, sessions: Int, findings: Int, errors: Int, warnings: Int) {
            self.label = label
            self.sessions = sessions
            self.findings = findings
            self.errors = errors
            self.warnings = warnings
        }

        /// Findings per 1,000 sessions.
        public var rate: Double { sessions == 0 ? 0 : Double(findings) * 1000 / Double(sessions) }
    }

    public var batches: [Period] = []
    public var versions: [Period] = []

    public init() {}
}

extension HTMLReport {
    static func trends(_ data: ReportData) -> String {
        guard let trends = data.trends else { return "" }
        var html = section(
            "trends", "Trends",
            "From the event store: findings per batch (those it first reported; a batch is named by the day of the newest event it had seen) and per app version, per 1,000 sessions."
        )
        func table(_ title: String, _ periods: [ReportTrends.Period]) -> String {
            var rows = [
                "<table><thead><tr><th>\(title)</th><th>sessions</th><th>findings</th><th>errors</th><th>warnings</th><th>per 1,000 sessions</th></tr></thead><tbody>"
            ]
            for period in periods {
                rows.append(
                    "<tr><td>\(Markup.text(period.label))</td><td>\(grouped(period.sessions))</td><td>\(grouped(period.findings))</td>"
                        + "<td>\(grouped(period.errors))</td><td>\(grouped(period.warnings))</td><td>\(rate(period.rate))</td></tr>")
            }
            rows.append("</tbody></table>")
            return rows.joined()
        }
        html += "<h3>By batch</h3>" + (trends.batches.isEmpty ? "<p class=\"empty\">No batch yet.</p>" : table("batch", trends.batches))
        html +=
            "<h3>By app version</h3>"
            + (trends.versions.isEmpty ? "<p class=\"empty\">No session names its app version.</p>" : table("app_version", trends.versions))
        return html + "</section>"
    }

    static func rate(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(grouped(tenths / 10)).\(tenths % 10)"
    }
}

/// The rules that `diff --by app_version` finds significantly more (or less) often broken in
/// the newest app version than in the one before.
public struct ReportRegressions: Sendable, Equatable {
    public struct Row: Sendable, Equatable {
        public var rule: Rule
        /// `regression` or `improvement`.
        public var direction: String
        public var baselineWith: Int
        public var baselineSessions: Int
        public var candidateWith: Int
        public var candidateSessions: Int
        /// Candidate rate − baseline rate, with its 95% interval.
        public var difference: Double
        public var low: Double
        public var high: Double
        public var q: Double

        public init(
            rule: Rule, direction: String, baselineWith: Int, baselineSessions: Int, candidateWith: Int, candidateSessions: Int,
            difference: Double, low: Double, high: Double, q: Double
        ) {
            self.rule = rule
            self.direction = direction
            self.baselineWith = baselineWith
            self.baselineSessions = baselineSessions
            self.candidateWith = candidateWith
            self.candidateSessions = candidateSessions
            self.difference = difference
            self.low = low
            self.high = high
            self.q = q
        }
    }

    /// The versions compared; `nil` without sessions of two versions.
    public var baseline: String?
    public var candidate: String?
    /// Comparisons made (rules, screens, transitions, exits, flows, distributions).
    public var comparisons: Int
    /// The significant rule rows, in the diff's order.
    public var rows: [Row]

    public init(baseline: String?, candidate: String?, comparisons: Int, rows: [Row]) {
        self.baseline = baseline
        self.candidate = candidate
        self.comparisons = comparisons
        self.rows = rows
    }
}

extension HTMLReport {
    static func regressions(_ data: ReportData) -> String {
        guard let regressions = data.regressions else { return "" }
        var html = section(
            "regressions", "Regressions",
            "Rules broken by a significantly different share of sessions in the newest app version than in the one before, as <code>navreplay diff --by app_version</code> finds them: q &lt; 0.05 (Benjamini-Hochberg over every comparison) and a difference of at least 0.5 percentage points."
        )
        guard let baseline = regressions.baseline, let candidate = regressions.candidate else {
            return html + "<p class=\"empty\">Regressions need sessions of two app versions.</p></section>"
        }
        let made = "\(grouped(regressions.comparisons)) comparison(s) of \(Markup.text(baseline)) against \(Markup.text(candidate))"
        guard !regressions.rows.isEmpty else {
            return html + "<p class=\"empty\">\(made): none significant.</p></section>"
        }
        html += "<p>\(made): \(regressions.rows.count) rule(s) significant.</p>"
        var rows = [
            "<table><thead><tr><th>rule</th><th>direction</th><th>\(Markup.text(baseline))</th><th>\(Markup.text(candidate))</th>"
                + "<th>difference (95% CI)</th><th>q</th></tr></thead><tbody>"
        ]
        for row in regressions.rows {
            rows.append(
                "<tr><td><code>\(row.rule.rawValue)</code></td><td>\(row.direction)</td>"
                    + "<td>\(share(row.baselineWith, row.baselineSessions))</td><td>\(share(row.candidateWith, row.candidateSessions))</td>"
                    + "<td>\(points(row.difference)) [\(points(row.low)), \(points(row.high))]</td><td>\(significance(row.q))</td></tr>")
        }
        rows.append("</tbody></table>")
        return html + rows.joined() + "</section>"
    }

    /// `2.00% (400 of 20,000)`.
    static func share(_ with: Int, _ sessions: Int) -> String {
        let rate = sessions == 0 ? 0 : Double(with) / Double(sessions)
        return "\(decimal(rate * 100, places: 2))% (\(grouped(with)) of \(grouped(sessions)))"
    }

    /// A fraction in signed percentage points: `+1.00 pts`.
    static func points(_ fraction: Double) -> String {
        (fraction < 0 ? "−" : "+") + decimal(abs(fraction) * 100, places: 2) + " pts"
    }

    static func significance(_ q: Double) -> String {
        if q >= 0.001 { return decimal(q, places: 4) }
        var exponent = 0
        var mantissa = q
        while mantissa < 1 && exponent > -400 {
            mantissa *= 10
            exponent -= 1
        }
        return q == 0 ? "0" : decimal(mantissa, places: 1) + "e\(exponent)"
    }

    static func decimal(_ value: Double, places: Int) -> String {
        var scale = 1
        for _ in 0..<places { scale *= 10 }
        let scaled = Int((value * Double(scale)).rounded())
        let fraction = String(scaled % scale)
        return "\(scaled / scale)." + String(repeating: "0", count: places - fraction.count) + fraction
    }
}
