public import NavAnalytics
import NavModel

/// The report's journeys, as an HTML fragment in the report's own classes: transitions out of and
/// into the most visited screens with their operations, where sessions enter and end, and a
/// funnel when one is asked for. Every name from the logs goes through `Markup.text`.
public enum JourneyReport {
    public static func html(_ paths: PathsResult, funnel: FunnelResult?, top: Int = 5) -> String {
        var html = ""
        for row in paths.screens.prefix(top) {
            let out = paths.transitions.filter { $0.from == row.screen }
            let into = paths.transitions.filter { $0.to == row.screen }
            html += "<h3><code>\(Markup.text(row.screen.label))</code> <small>\(row.views) view(s), \(row.sessions) session(s)</small></h3>"
            html += "<div class=\"two\"><div>" + transitions(out, heading: "next", other: { $0.to }, top: top)
            html += "</div><div>" + transitions(into, heading: "before", other: { $0.from }, top: top) + "</div></div>"
        }
        html += "<div class=\"two\"><div><h3>Where sessions enter</h3>" + ranking(paths.entries, top: top * 2)
        html += "</div><div><h3>Where sessions end</h3>" + ranking(paths.exits, top: top * 2) + "</div></div>"
        if let funnel { html += self.funnel(funnel) }
        return html
    }

    private static func transitions(
        _ rows: [PathsResult.TransitionRow], heading: String, other: (PathsResult.TransitionRow) -> Screen, top: Int
    ) -> String {
        var body = rows.prefix(top).map { row in
            "<tr><td><code>\(Markup.text(other(row).label))</code></td><td>\(row.count)</td><td>\(row.sessions)</td><td>"
                + PathsResult.operationText(row.operations) + "</td></tr>"
        }
        if rows.count > top {
            body.append(
                "<tr><td>other (\(rows.count - top))</td><td>\(rows.dropFirst(top).reduce(0) { $0 + $1.count })</td><td></td><td></td></tr>"
            )
        }
        return table(["\(heading) screen", "times", "sessions", "operations"], body)
    }

    private static func ranking(_ rows: [(screen: Screen, sessions: Int)], top: Int) -> String {
        var body = rows.prefix(top).map { "<tr><td><code>\(Markup.text($0.screen.label))</code></td><td>\($0.sessions)</td></tr>" }
        if rows.count > top {
            body.append("<tr><td>other (\(rows.count - top))</td><td>\(rows.dropFirst(top).reduce(0) { $0 + $1.sessions })</td></tr>")
        }
        return table(["screen", "sessions"], body)
    }

    private static func funnel(_ funnel: FunnelResult) -> String {
        let body = funnel.all.steps.map { row in
            let places = row.droppedTo.map { place in
                (place.other > 0 ? "other (\(place.other))" : "<code>\(Markup.text(place.screen?.label ?? "(exit)"))</code>")
                    + " \(place.sessions)"
            }
            let times = (row.time ?? []).map { FunnelResult.duration($0) }
            let cells =
                ["<code>\(Markup.text(row.step.description))</code>", "\(row.sessions)", FunnelResult.percent(row.conversionFromPrevious)]
                + [FunnelResult.percent(row.conversionFromFirst), row.dropOff.map(String.init) ?? ""]
                + (times.isEmpty ? ["", "", ""] : times) + [places.joined(separator: ", ")]
            return "<tr>" + cells.map { "<td>\($0)</td>" }.joined() + "</tr>"
        }
        let note = "<p class=\"note\">Time from the previous step by numpy's default linear percentiles.</p>"
        return "<h3>Funnel of \(funnel.all.sessions) session(s)</h3>"
            + table(["step", "sessions", "from previous", "from first", "drop-off", "p50", "p90", "p99", "dropped sessions went to"], body)
            + note
    }

    private static func table(_ header: [String], _ rows: [String]) -> String {
        guard !rows.isEmpty else { return "<p class=\"empty\">No data.</p>" }
        return "<div class=\"scroll\"><table class=\"plain\"><thead><tr>" + header.map { "<th>\($0)</th>" }.joined()
            + "</tr></thead><tbody>" + rows.joined() + "</tbody></table></div>"
    }
}
