public import NavReplay

/// The night over nights, from an event store: findings per batch and per app version, as rates
/// per 1,000 sessions, and the rules whose rate rose in the newest version.
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

    /// A rule whose rate rose from the version before to the newest, with sessions to look at.
    public struct Regression: Sendable, Equatable {
        public var rule: Rule
        public var previousRate: Double
        public var newestRate: Double
        public var sessions: [String]

        public init(rule: Rule, previousRate: Double, newestRate: Double, sessions: [String]) {
            self.rule = rule
            self.previousRate = previousRate
            self.newestRate = newestRate
            self.sessions = sessions
        }
    }

    public var batches: [Period] = []
    public var versions: [Period] = []
    public var newestVersion: String?
    public var previousVersion: String?
    public var regressions: [Regression] = []

    public init() {}
}

extension HTMLReport {
    static func trends(_ data: ReportData) -> String {
        guard let trends = data.trends else { return "" }
        var html = section(
            "trends", "Trends",
            "From the event store: findings per batch (those it first reported) and per app version, per 1,000 sessions.")
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
        html += "<h3>Regressions</h3>"
        if let newest = trends.newestVersion, let previous = trends.previousVersion {
            if trends.regressions.isEmpty {
                html += "<p class=\"empty\">No rule's rate rose from \(Markup.text(previous)) to \(Markup.text(newest)).</p>"
            } else {
                var rows = [
                    "<table><thead><tr><th>rule</th><th>\(Markup.text(previous))</th><th>\(Markup.text(newest))</th><th>sessions to look at</th></tr></thead><tbody>"
                ]
                for regression in trends.regressions {
                    rows.append(
                        "<tr><td><code>\(regression.rule.rawValue)</code></td><td>\(rate(regression.previousRate))</td>"
                            + "<td>\(rate(regression.newestRate))</td><td>"
                            + regression.sessions.map { "<code>\(Markup.text($0))</code>" }.joined(separator: " ") + "</td></tr>")
                }
                rows.append("</tbody></table>")
                html += rows.joined()
            }
        } else {
            html += "<p class=\"empty\">Regressions need sessions of two app versions.</p>"
        }
        return html + "</section>"
    }

    static func rate(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(grouped(tenths / 10)).\(tenths % 10)"
    }
}
