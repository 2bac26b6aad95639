import NavEvents
import NavJSON
import NavModel
import NavReplay
import NavResults
import NavInput

/// The nightly report: one self-contained HTML page (`navreplay report --output report.html`).
///
/// No script, no external stylesheet, font or image: inline CSS and inline SVG drawn by
/// `SVGChart`, and a Content-Security-Policy that forbids loading anything, so the page opens
/// offline and a hostile log string could not run even if it escaped. Every log-supplied string
/// goes through `Markup.text` (control characters made visible, then HTML-escaped). The layout
/// is responsive: cards and lists reflow on a phone, wide charts and tables scroll sideways in
/// their own box.
///
/// Sections: totals; findings by rule and severity; findings over time; navigation paths
/// (top paths with repeats collapsed, transitions, where sessions enter and end); screen views
/// per route; stack depth per stack; session length and duration; the worst sessions with
/// their timelines (state after each event, offending events highlighted with the rule's
/// explanation, witnesses marked); unreadable lines; inputs.
public enum HTMLReport {
    /// - Parameters:
    ///   - title: the page's title.
    ///   - toolVersion: the `navreplay` version, for the footer.
    ///   - timelineLimit: a worst session with more events shows the events around its
    ///     findings, the first and the last ones.
    public static func html(
        _ data: ReportData, title: String = "NavReplay audit", toolVersion: String, timelineLimit: Int = 80
    ) throws -> String {
        var page: [String] = []
        page.append(
            """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
            <meta name="color-scheme" content="light dark">
            <title>\(Markup.text(title))</title>
            <style>\(css)</style>
            </head>
            <body>
            """)
        page.append(header(data, title: title))
        page.append("<main>")
        page.append(totals(data))
        page.append(trends(data))
        page.append(regressions(data))
        page.append(overTime(data))
        page.append(rules(data))
        page.append(paths(data))
        page.append(screens(data))
        page.append(depths(data))
        page.append(lengths(data))
        page.append(try worst(data, timelineLimit: timelineLimit))
        page.append(invalid(data))
        page.append(inputs(data))
        page.append("</main>")
        page.append(
            "<footer>Written by navreplay \(Markup.escape(toolVersion)) from \(grouped(data.run.counts.files)) file(s). "
                + "Every rule, with its explanation, likely causes and an example: <code>navreplay rules</code>.</footer>")
        page.append("</body>\n</html>\n")
        return page.joined(separator: "\n")
    }

    // MARK: Sections

    static func header(_ data: ReportData, title: String) -> String {
        var span = "no events"
        if let first = data.firstTimestamp, let last = data.lastTimestamp {
            span = "events from <time>\(Markup.text(utc(first)))</time> to <time>\(Markup.text(utc(last)))</time> UTC"
        }
        let verdict: String
        if data.errors > 0 {
            verdict = "<span class=\"pill err\">\(grouped(data.errors)) error(s)</span>"
        } else if data.warnings > 0 {
            verdict = "<span class=\"pill warn\">no errors</span>"
        } else {
            verdict = "<span class=\"pill ok\">no findings</span>"
        }
        return """
            <header><div class="wrap"><h1>\(Markup.text(title)) \(verdict)</h1>
            <p class="sub">\(grouped(data.run.counts.files)) file(s) · \(span)</p></div></header>
            """
    }

    static func totals(_ data: ReportData) -> String {
        let counts = data.run.counts
        let cards: [(String, String, String)] = [
            ("Sessions", grouped(counts.sessions), ""),
            ("Events folded", grouped(counts.events), ""),
            ("Findings", grouped(counts.findings), counts.findings > 0 ? "hot" : ""),
            ("Errors", grouped(data.errors), data.errors > 0 ? "err" : ""),
            ("Warnings", grouped(data.warnings), data.warnings > 0 ? "warn" : ""),
            ("Sessions with findings", grouped(data.sessionsWithFindings), ""),
            ("Lines read", grouped(counts.lines), ""),
            ("Invalid lines", grouped(counts.invalidLines), counts.invalidLines > 0 ? "err" : ""),
            ("Redeliveries", grouped(counts.redeliveries), ""),
            ("Duplicates", grouped(counts.duplicates), ""),
            ("Blank lines", grouped(counts.blankLines), ""),
            ("Unreadable files", grouped(counts.unreadableFiles), counts.unreadableFiles > 0 ? "err" : ""),
        ]
        return section("totals", "Totals", nil)
            + "<div class=\"cards\">"
            + cards.map { "<div class=\"card \($0.2)\"><div class=\"num\">\($0.1)</div><div class=\"cap\">\($0.0)</div></div>" }
            .joined()
            + "</div></section>"
    }

    static func rules(_ data: ReportData) -> String {
        guard !data.rules.isEmpty else {
            return section("rules", "Findings by rule", nil) + "<p class=\"empty\">No findings: every rule held.</p></section>"
        }
        let maximum = data.rules.map(\.count).max() ?? 1
        var rows: [String] = []
        for row in data.rules {
            let bar = ReportData.Bar(
                label: row.rule.rawValue, value: row.count, errors: row.rule.severity == .error ? row.count : 0,
                warnings: row.rule.severity == .warning ? row.count : 0)
            rows.append(
                "<li><span class=\"name\"><span class=\"sev \(row.rule.severity.rawValue)\">\(row.rule.severity.rawValue)</span> "
                    + "<code>\(row.rule.rawValue)</code><span class=\"hint\">\(Markup.escape(row.rule.summary))</span></span>"
                    + SVGChart.rowBar(bar, maximum: maximum, stacked: true)
                    + "<span class=\"val\">\(grouped(row.count))<small>\(row.rule == .schemaInvalid ? "lines" : "\(grouped(row.sessions)) session(s)")</small></span></li>"
            )
        }
        return section(
            "rules", "Findings by rule and severity", "\(grouped(data.errors)) error(s) and \(grouped(data.warnings)) warning(s).")
            + "<ul class=\"bars cols\">" + rows.joined() + "</ul></section>"
    }

    static func overTime(_ data: ReportData) -> String {
        let total = data.overTime.reduce(0) { $0 + $1.value }
        var note =
            "Findings per 1,000 sessions active in each \(data.timeUnit) (UTC), by the offending event’s timestamp, "
            + "so that more sessions do not look like a trend."
        if data.untimedFindings > 0 {
            note += " \(grouped(data.untimedFindings)) finding(s) of unreadable lines have no time and are not shown."
        }
        let chart =
            total == 0 && data.overTime.isEmpty
            ? "<p class=\"empty\">No timed findings.</p>"
            : SVGChart.columns(
                data.overTime.map { bar in
                    var copy = bar
                    copy.label = data.timeUnit == "hour" ? String(bar.label.dropFirst(5)) : bar.label
                    return copy
                }, stacked: true, caption: "Findings per 1,000 sessions, per \(data.timeUnit)", unit: "per 1,000 sessions",
                height: 210)
        return section("time", "Findings over time", note) + "<div class=\"scroll\">" + chart + "</div>"
            + legend([("err", "errors"), ("warn", "warnings")]) + "</section>"
    }

    static func paths(_ data: ReportData) -> String {
        if let journeys = data.journeysHTML {
            let note =
                "Screens where the router logs a <code>screen_view</code>; a transition is two consecutive views of different screens, by the operation that led to it."
            return section("paths", "Navigation paths", note) + journeys + "</section>"
        }
        var html = section(
            "paths", "Navigation paths",
            "Each session’s visible screens in order, consecutive repeats collapsed.")
        html += "<h3>Top paths</h3>" + barList(data.topPaths, unit: "session(s)", mono: true, wrap: true)
        html +=
            "<div class=\"two\"><div><h3>Where sessions enter</h3>" + barList(data.entries, unit: "session(s)", mono: true)
            + "</div><div><h3>Where sessions end</h3>" + barList(data.exits, unit: "session(s)", mono: true) + "</div></div>"
        html += "<h3>Top transitions</h3>" + barList(data.topTransitions, unit: "time(s)", mono: true)
        return html + "</section>"
    }

    static func screens(_ data: ReportData) -> String {
        section("screens", "Screen views per route", "<code>screen_view</code> events, by the screen they report.")
            + barList(data.screenViews, unit: "view(s)", mono: true) + "</section>"
    }

    static func depths(_ data: ReportData) -> String {
        guard !data.depths.isEmpty else {
            return section("depth", "Stack depth per stack", nil) + "<p class=\"empty\">No events.</p></section>"
        }
        var cells: [String] = []
        for row in data.depths {
            let bars = row.histogram.enumerated().map { ReportData.Bar(label: String($0.offset), value: $0.element) }
            cells.append(
                "<figure class=\"depth\"><figcaption><code>\(Markup.text(row.stack))</code> max \(row.maximum), mean "
                    + "\(String(format1(row.mean)))</figcaption>"
                    + SVGChart.columns(
                        bars, stacked: false, caption: "Depth of \(row.stack)", unit: "event(s)", maxLabels: 10, width: 380,
                        height: 170, css: "chart small")
                    + "</figure>")
        }
        return section("depth", "Stack depth per stack", "How deep each stack was after each event (routes above its root).")
            + "<div class=\"grid\">" + cells.joined() + "</div></section>"
    }

    static func lengths(_ data: ReportData) -> String {
        section("lengths", "Session length and duration", nil)
            + "<div class=\"two\"><figure><figcaption>Events per session</figcaption><div class=\"scroll\">"
            + SVGChart.columns(
                data.sessionLengths, stacked: false, caption: "Events per session", unit: "session(s)", width: 480, height: 220,
                css: "chart half")
            + "</div></figure><figure><figcaption>Duration (first to last event)</figcaption><div class=\"scroll\">"
            + SVGChart.columns(
                data.sessionDurations, stacked: false, caption: "Session duration", unit: "session(s)", width: 480, height: 220,
                css: "chart half")
            + "</div></figure></div></section>"
    }

    /// Throws when a session audited from disk cannot read its steps back.
    static func worst(_ data: ReportData, timelineLimit: Int) throws -> String {
        var html = section(
            "worst", "The worst sessions",
            "Most errors first. Each event with the state after it; offending events are highlighted with the rule’s explanation, "
                + "witnesses (the events that set up the broken expectation) are marked.")
        if data.worst.isEmpty {
            let any = data.sessionsWithFindings > 0
            return html + "<p class=\"empty\">\(any ? "No timelines asked for (--worst 0)." : "No session has a finding.")</p></section>"
        }
        for (index, worst) in data.worst.enumerated() {
            html += try timeline(worst, files: data.run.files, open: index == 0, limit: timelineLimit)
        }
        return html + "</section>"
    }

    /// One worst session's timeline. Its steps are walked twice (the first walk finds which to
    /// show), so that nothing is held a step: a session audited from disk walks them from there.
    static func timeline(_ worst: ReportData.WorstSession, files: [String], open: Bool, limit: Int) throws -> String {
        let audit = worst.audit
        var witnesses: [Int64: [String]] = [:]
        for finding in audit.findings {
            if let witness = finding.witness {
                witnesses[witness.seq, default: []].append("\(finding.rule.rawValue) at seq \(finding.seq.map(String.init) ?? "?")")
            }
        }
        // Each finding goes with the step of its seq; one of an event that was not folded
        // (seq.duplicate), with the step folded at its seq or the nearest before it (the first
        // step when none is before it). Steps near a finding or a witness are shown, with the
        // first and last three, when there are more than `limit`.
        var found = FindingSteps(audit.findings)
        var marked = Set<Int>()
        try audit.forEachStep { step, _ in
            if witnesses[step.event.seq] != nil { marked.insert(found.count) }
            found.step(seq: step.event.seq, time: 0)
        }
        found.finish()
        let count = found.count
        var findingsBySeq: [Int64: [Finding]] = [:]
        for (finding, step) in zip(audit.findings, found.steps) {
            guard let seq = finding.seq else { continue }
            let target = step ?? found.first
            findingsBySeq[target?.seq ?? seq, default: []].append(finding)
            if let target { marked.insert(target.index) }
        }
        var shown = Set(0..<count)
        if count > limit {
            shown = Set((0..<count).prefix(3)).union((0..<count).suffix(3))
            for index in marked {
                for near in max(0, index - 2)...min(count - 1, index + 2) { shown.insert(near) }
            }
        }
        let startMillis = audit.start?.epochMilliseconds ?? 0
        var rows: [String] = []
        var skipped = 0
        var index = 0
        try audit.forEachStep { step, cursor in
            defer { index += 1 }
            guard shown.contains(index) else {
                skipped += 1
                return
            }
            if skipped > 0 {
                rows.append("<tr class=\"gap\"><td colspan=\"4\">⋯ \(grouped(skipped)) event(s) without findings ⋯</td></tr>")
                skipped = 0
            }
            let findings = findingsBySeq[step.event.seq] ?? []
            let worstSeverity = findings.contains { $0.severity == .error } ? "err" : (findings.isEmpty ? "" : "warn")
            let witnessOf = witnesses[step.event.seq] ?? []
            var classes = worstSeverity.isEmpty ? [] : ["hit", worstSeverity]
            if !witnessOf.isEmpty { classes.append("witness") }
            let offset = step.event.timestamp.epochMilliseconds - startMillis
            var what = "<code class=\"ev\">\(step.event.name.rawValue)</code> " + Markup.text(describe(step.event))
            let changes = cursor.condensedChanges
            if !changes.isEmpty {
                what += "<div class=\"chg\">" + changes.map { Markup.text($0.description) }.joined(separator: "<br>") + "</div>"
            }
            if !witnessOf.isEmpty {
                what += "<div class=\"wit\">witness of " + witnessOf.map { Markup.text($0) }.joined(separator: ", ") + "</div>"
            }
            rows.append(
                "<tr class=\"\(classes.joined(separator: " "))\"><td class=\"seq\">\(step.event.seq)</td>"
                    + "<td class=\"t\">+\(Markup.escape(duration(offset)))</td><td>\(what)</td>"
                    + "<td class=\"state\">\(stateSummary(cursor.condensedState))</td></tr>")
            for finding in findings {
                rows.append(
                    "<tr class=\"finding \(finding.severity == .error ? "err" : "warn")\"><td></td><td colspan=\"3\">"
                        + "<span class=\"sev \(finding.severity.rawValue)\">\(finding.severity.rawValue)</span> "
                        + "<code>\(finding.rule.rawValue)</code> "
                        + (finding.seq != step.event.seq ? "(seq \(finding.seq.map(String.init) ?? "?"), not folded) " : "")
                        + "<strong>\(Markup.text(finding.message))</strong>"
                        + "<div class=\"why\">\(Markup.escape(finding.rule.explanation))</div>"
                        + "<div class=\"loc\">\(Markup.text(TextWriter.location(finding.location, files)))"
                        + (finding.afterGap ? " · after a seq gap: the lost events may explain it" : "") + "</div></td></tr>")
            }
        }
        if skipped > 0 { rows.append("<tr class=\"gap\"><td colspan=\"4\">⋯ \(grouped(skipped)) more event(s) ⋯</td></tr>") }
        let summary =
            "<summary><code>\(Markup.text(audit.sessionID))</code> "
            + "<span class=\"pill \(worst.errors > 0 ? "err" : "none")\">\(worst.errors) error(s)</span> "
            + "<span class=\"pill \(worst.warnings > 0 ? "warn" : "none")\">\(worst.warnings) warning(s)</span> <span class=\"meta\">\(grouped(audit.events)) events · "
            + "\(Markup.escape(audit.durationMilliseconds.map(duration) ?? "no duration"))</span></summary>"
        return "<details class=\"session\"\(open ? " open" : "")>" + summary
            + "<div class=\"scroll\"><table class=\"timeline\"><thead><tr><th>seq</th><th>time</th><th>event</th>"
            + "<th>state after</th></tr></thead><tbody>" + rows.joined() + "</tbody></table></div>"
            + "<p class=\"final\">final state: <code>\(Markup.text(audit.finalState.json))</code></p></details>"
    }

    static func invalid(_ data: ReportData) -> String {
        let findings = data.run.invalidFindings
        guard !findings.isEmpty else { return "" }
        let rows = findings.prefix(50).map { finding in
            "<tr><td>\(Markup.text(TextWriter.location(finding.location, data.run.files)))</td><td>\(Markup.text(finding.message))</td></tr>"
        }
        let more =
            findings.count > 50 ? "<p class=\"note\">and \(grouped(findings.count - 50)) more (see <code>--quarantine</code>).</p>" : ""
        return section(
            "invalid", "Unreadable lines", "Lines that are not valid v1 events (<code>schema.invalid</code>); they are not folded.")
            + "<div class=\"scroll\"><table class=\"plain\"><thead><tr><th>where</th><th>why</th></tr></thead><tbody>"
            + rows.joined() + "</tbody></table></div>" + more + "</section>"
    }

    static func inputs(_ data: ReportData) -> String {
        let rows = data.run.fileReports.map { report in
            "<tr><td><code>\(Markup.text(report.path))</code></td><td class=\"n\">\(grouped(report.lines))</td>"
                + "<td class=\"n\">\(grouped(report.bytes))</td><td>\(report.error.map { "<span class=\"sev error\">" + Markup.text($0.message) + "</span>" } ?? "read")</td></tr>"
        }
        return section("inputs", "Inputs", nil)
            + "<div class=\"scroll\"><table class=\"plain\"><thead><tr><th>file</th><th>lines</th><th>bytes</th><th></th></tr></thead><tbody>"
            + rows.joined() + "</tbody></table></div></section>"
    }

    // MARK: Pieces

    static func section(_ id: String, _ title: String, _ note: String?) -> String {
        "<section id=\"\(id)\"><h2>\(title)</h2>" + (note.map { "<p class=\"note\">\($0)</p>" } ?? "")
    }

    static func legend(_ items: [(String, String)]) -> String {
        "<p class=\"legend\">" + items.map { "<span><i class=\"\($0.0)\"></i>\($0.1)</span>" }.joined() + "</p>"
    }

    /// A list of labelled horizontal bars; labels are log-supplied and escaped.
    static func barList(_ bars: [ReportData.Bar], unit: String, mono: Bool, wrap: Bool = false) -> String {
        guard !bars.isEmpty else { return "<p class=\"empty\">No data.</p>" }
        let maximum = bars.map(\.value).max() ?? 1
        let rows = bars.map { bar in
            "<li><span class=\"name\(wrap ? " wrapping" : "")\">" + (mono ? "<code>" : "") + Markup.text(bar.label)
                + (mono ? "</code>" : "")
                + "</span>" + SVGChart.rowBar(bar, maximum: maximum, stacked: false)
                + "<span class=\"val\">\(grouped(bar.value))<small>\(unit)</small></span></li>"
        }
        return "<ul class=\"bars\">" + rows.joined() + "</ul>"
    }

    /// What an event says, in a few words: its stack and routes, flows, tab, modal or command.
    static func describe(_ event: NavigationEvent) -> String {
        func route(_ name: String?) -> String { name ?? "(root)" }
        switch event.payload {
        case .sessionStart(let snapshot): return snapshot == nil ? "" : "restored from a snapshot"
        case .routePush(let stack, let from, let to, _): return "\(stack): \(route(from)) → push \(to)"
        case .routePop(let stack, let from, let to, let amount):
            let how: String
            switch amount {
            case .count(let count): how = "pop \(count)"
            case .toRoot: how = "pop to root"
            }
            return "\(stack): \(route(from)) → \(how) → \(route(to))"
        case .routeReplace(let stack, let from, let to, _): return "\(stack): replace \(route(from)) with \(to)"
        case .routePopTo(let stack, let from, let to): return "\(stack): \(route(from)) → pop to \(route(to))"
        case .routeInsert(let stack, let route, let index, _): return "\(stack): insert \(route) at \(index)"
        case .routeRemove(let stack, let route): return "\(stack): remove \(route)"
        case .flowSwitch(let from, let to): return "\(from) → \(to)"
        case .tabSwitch(let from, let to): return "\(from ?? "none") → \(to)"
        case .commandApplied(let command, let from, let to): return "\(command) (\(from) → \(to))"
        case .modalPresent(let modal, let style): return "\(modal) (\(style.rawValue))"
        case .modalDismiss(let modal): return modal
        case .screenView(let claim, _): return claim.screen.label
        case .deepLink(let url, let outcome): return "\(url) (\(outcome.rawValue))"
        }
    }

    /// The state in one short line: flow, tab, the stacks that are not at their root, modals.
    static func stateSummary(_ state: NavigationState) -> String {
        var parts = ["<b>\(Markup.text(state.flow))</b>"]
        if let tab = state.tab { parts.append("tab <b>\(Markup.text(tab))</b>") }
        for name in state.stacks.keys.sorted() {
            guard let routes = state.stacks[name], !routes.isEmpty else { continue }
            // As findings list them: a deep stack at every step of a timeline made the page grow
            // with depth x events.
            parts.append("\(Markup.text(name)): " + ListedNames(routes).shown.map { Markup.text($0) }.joined(separator: " › "))
        }
        if !state.modals.isEmpty {
            parts.append("modals: " + ListedNames(state.modals).shown.map { Markup.text($0) }.joined(separator: ", "))
        }
        return parts.joined(separator: " · ")
    }

    /// `2026-11-20T10:15:30.123Z` → `2026-11-20 10:15:30`.
    static func utc(_ timestamp: Timestamp) -> String {
        let text = Timestamp(epochMilliseconds: timestamp.epochMilliseconds).text
        return String(text.prefix(10)) + " " + String(text.dropFirst(11).prefix(8))
    }

    /// Milliseconds for people: `850 ms`, `12.4 s`, `3 min 05 s`, `2 h 14 min`.
    static func duration(_ milliseconds: Int64) -> String {
        if milliseconds < 0 { return "−" + duration(-milliseconds) }
        if milliseconds < 1000 { return "\(milliseconds) ms" }
        if milliseconds < 60_000 { return format1(Double(milliseconds) / 1000) + " s" }
        let seconds = milliseconds / 1000
        if seconds < 3600 { return "\(seconds / 60) min \(two(seconds % 60)) s" }
        return "\(seconds / 3600) h \(two(seconds / 60 % 60)) min"
    }

    static func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }

    static func format1(_ value: Double) -> String {
        let tenths = Int64((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
