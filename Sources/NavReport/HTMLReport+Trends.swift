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
/// the newest app version than in the one before, as the diff words them.
public struct ReportRegressions: Sendable, Equatable {
    /// The versions compared (`nil` without sessions of two), and the comparisons made.
    public var baseline, candidate: String?
    public var comparisons: Int
    /// The significant rule rows, in the diff's order, as cells: rule, direction (`regression`
    /// or `improvement`), each side (`2.00% (400/20000)`), the difference with its 95% interval, q.
    public var rows: [[String]]

    public init(baseline: String?, candidate: String?, comparisons: Int, rows: [[String]]) {
        (self.baseline, self.candidate, self.comparisons, self.rows) = (baseline, candidate, comparisons, rows)
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
        guard !regressions.rows.isEmpty else { return html + "<p class=\"empty\">\(made): none significant.</p></section>" }
        html += "<p>\(made): \(regressions.rows.count) rule(s) significant.</p><table><thead><tr><th>rule</th><th>direction</th>"
        html +=
            "<th>\(Markup.text(baseline))</th><th>\(Markup.text(candidate))</th><th>difference (95% CI)</th><th>q</th></tr></thead><tbody>"
        for row in regressions.rows {
            html +=
                "<tr>"
                + row.enumerated().map { $0 == 0 ? "<td><code>\(Markup.text($1))</code></td>" : "<td>\(Markup.text($1))</td>" }.joined()
                + "</tr>"
        }
        return html + "</tbody></table></section>"
    }
}
