/// Small inline SVG charts for the HTML report, drawn here: no script, no external resource.
///
/// Colours come from CSS classes (`bar`, `err`, `warn`, `axis`, `label`), so the page's light
/// and dark themes apply. Every label is escaped; each bar carries a `<title>` tooltip.
enum SVGChart {
    /// A vertical bar chart: one bar a bucket (stacked errors and warnings when `stacked`),
    /// labels under every `labelEvery`-th bar, a value axis with three ticks.
    static func columns(
        _ bars: [ReportData.Bar], stacked: Bool, caption: String, unit: String, maxLabels: Int = 12,
        width: Double = 720, height: Double = 240, css: String = "chart"
    ) -> String {
        guard !bars.isEmpty else { return "<p class=\"empty\">No data.</p>" }
        let left = 44.0
        let right = 8.0
        let top = 12.0
        let bottom = bars.count > 8 ? 52.0 : 30.0
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        let maximum = niceMaximum(bars.map(\.value).max() ?? 0)
        let slot = plotWidth / Double(bars.count)
        let barWidth = min(48, max(1.0, slot * 0.78))
        var parts: [String] = []
        parts.append(
            "<svg class=\"\(css)\" viewBox=\"0 0 \(fmt(width)) \(fmt(height))\" role=\"img\" aria-label=\"\(Markup.escape(caption, attribute: true))\">"
        )
        for tick in 0...2 {
            let value = maximum * tick / 2
            let y = top + plotHeight - plotHeight * Double(value) / Double(max(1, maximum))
            parts.append("<line class=\"grid\" x1=\"\(fmt(left))\" x2=\"\(fmt(width - right))\" y1=\"\(fmt(y))\" y2=\"\(fmt(y))\"/>")
            parts.append("<text class=\"tick\" x=\"\(fmt(left - 6))\" y=\"\(fmt(y + 4))\" text-anchor=\"end\">\(grouped(value))</text>")
        }
        let labelEvery = max(1, Int((Double(bars.count) / Double(maxLabels)).rounded(.up)))
        for (index, bar) in bars.enumerated() {
            let x = left + Double(index) * slot + (slot - barWidth) / 2
            let tooltip =
                "<title>\(Markup.text(bar.label)): \(grouped(bar.value)) \(Markup.escape(unit))"
                + (stacked ? " (\(grouped(bar.errors)) errors, \(grouped(bar.warnings)) warnings)" : "") + "</title>"
            func rect(_ value: Int, _ base: Int, _ css: String) -> String {
                let h = plotHeight * Double(value) / Double(max(1, maximum))
                let y = top + plotHeight - plotHeight * Double(base + value) / Double(max(1, maximum))
                return
                    "<rect class=\"\(css)\" x=\"\(fmt(x))\" y=\"\(fmt(y))\" width=\"\(fmt(barWidth))\" height=\"\(fmt(h))\" rx=\"1.5\">\(tooltip)</rect>"
            }
            if stacked {
                if bar.errors > 0 { parts.append(rect(bar.errors, 0, "err")) }
                if bar.warnings > 0 { parts.append(rect(bar.warnings, bar.errors, "warn")) }
            } else if bar.value > 0 {
                parts.append(rect(bar.value, 0, "bar"))
            }
            if index % labelEvery == 0 {
                let cx = left + Double(index) * slot + slot / 2
                let label = Markup.text(shortLabel(bar.label))
                if bars.count > 8 {
                    parts.append(
                        "<text class=\"label\" transform=\"translate(\(fmt(cx)),\(fmt(top + plotHeight + 12))) rotate(-30)\" text-anchor=\"end\">\(label)</text>"
                    )
                } else {
                    parts.append(
                        "<text class=\"label\" x=\"\(fmt(cx))\" y=\"\(fmt(top + plotHeight + 18))\" text-anchor=\"middle\">\(label)</text>")
                }
            }
        }
        parts.append(
            "<line class=\"axis\" x1=\"\(fmt(left))\" x2=\"\(fmt(width - right))\" y1=\"\(fmt(top + plotHeight))\" y2=\"\(fmt(top + plotHeight))\"/>"
        )
        parts.append("</svg>")
        return parts.joined()
    }

    /// One horizontal bar, for a row of an HTML bar list: `value` of `maximum`, split into
    /// errors and warnings when given.
    static func rowBar(_ bar: ReportData.Bar, maximum: Int, stacked: Bool) -> String {
        let width = 200.0
        let scale = width / Double(max(1, maximum))
        var parts = ["<svg class=\"rowbar\" viewBox=\"0 0 200 14\" preserveAspectRatio=\"none\" aria-hidden=\"true\">"]
        parts.append("<rect class=\"track\" x=\"0\" y=\"2\" width=\"200\" height=\"10\" rx=\"2\"/>")
        if stacked {
            let errorWidth = Double(bar.errors) * scale
            if bar.errors > 0 { parts.append("<rect class=\"err\" x=\"0\" y=\"2\" width=\"\(fmt(errorWidth))\" height=\"10\" rx=\"2\"/>") }
            if bar.warnings > 0 {
                parts.append(
                    "<rect class=\"warn\" x=\"\(fmt(errorWidth))\" y=\"2\" width=\"\(fmt(Double(bar.warnings) * scale))\" height=\"10\" rx=\"2\"/>"
                )
            }
        } else {
            parts.append("<rect class=\"bar\" x=\"0\" y=\"2\" width=\"\(fmt(Double(bar.value) * scale))\" height=\"10\" rx=\"2\"/>")
        }
        parts.append("</svg>")
        return parts.joined()
    }

    /// A 1-2-5 rounded maximum at or above `value`, so ticks fall on round numbers.
    static func niceMaximum(_ value: Int) -> Int {
        guard value > 0 else { return 2 }
        if value <= 2 { return 2 }
        var magnitude = 1
        while magnitude * 10 < value { magnitude *= 10 }
        for step in [12, 16, 20, 30, 40, 50, 60, 80, 100] where step * magnitude >= value * 10 {
            let candidate = step * magnitude / 10
            if candidate % 2 == 0 { return candidate }
        }
        return value + value % 2
    }

    /// Labels of time buckets lose their date when it repeats: "2026-11-20 10:00" → "10:00".
    static func shortLabel(_ label: String) -> String {
        label.count > 16 ? String(label.prefix(15)) + "…" : label
    }

    static func fmt(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}

/// `12345` → `12,345`.
func grouped(_ value: some BinaryInteger) -> String {
    let digits = String(value.magnitude)
    var result = ""
    for (index, character) in digits.enumerated() {
        if index > 0 && (digits.count - index) % 3 == 0 { result += "," }
        result.append(character)
    }
    return value < 0 ? "-" + result : result
}
