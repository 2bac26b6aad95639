public import NavJSON

/// A diff's outputs: text, JSON, NDJSON and Markdown (docs/analytics.md).
public enum DiffWriter {
    /// `{"by", "baseline", "candidate", "alpha", "min_effect", "sessions", "ungrouped",
    /// "comparisons": [...]}`, the comparisons in the diff's order.
    public static func json(_ result: DiffResult, by: String, ungrouped: Int = 0) -> String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.member("by", by)
        writer.member("baseline", result.baseline)
        writer.member("candidate", result.candidate)
        writer.key("alpha")
        writer.numberText(number(result.thresholds.alpha))
        writer.key("min_effect")
        writer.numberText(number(result.thresholds.minEffect))
        writer.key("sessions")
        writer.beginObject()
        writer.member("baseline", result.sessions.baseline)
        writer.member("candidate", result.sessions.candidate)
        writer.endObject()
        writer.member("ungrouped", ungrouped)
        writer.key("comparisons")
        writer.beginArray()
        for comparison in result.comparisons { write(comparison, to: &writer) }
        writer.endArray()
        writer.endObject()
        return writer.string + "\n"
    }

    /// One comparison a line, as in `json`'s `comparisons`.
    public static func ndjson(_ result: DiffResult) -> String {
        result.comparisons.map { comparison in
            var writer = JSONWriter()
            write(comparison, to: &writer)
            return writer.string + "\n"
        }.joined()
    }

    static func write(_ comparison: DiffComparison, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("kind", comparison.indicator.kind.rawValue)
        writer.member("key", comparison.indicator.key)
        for (name, side) in [("baseline", comparison.baseline), ("candidate", comparison.candidate)] {
            writer.key(name)
            writer.beginObject()
            writer.member("sessions", side.sessions)
            if let with = side.with { writer.member("with", with) }
            if let rate = side.rate {
                writer.key("rate")
                writer.numberText(number(rate))
            }
            if comparison.indicator.kind == .distribution {
                for (index, name) in ["p50", "p90", "p99"].enumerated() {
                    writer.key(name)
                    if let value = side.percentiles?[index] { writer.int(value) } else { writer.null() }
                }
            }
            writer.endObject()
        }
        writer.key("effect")
        writer.numberText(number(comparison.effect))
        writer.key("ci")
        if let interval = comparison.interval {
            writer.beginArray()
            writer.numberText(number(interval.low))
            writer.numberText(number(interval.high))
            writer.endArray()
        } else {
            writer.null()
        }
        if comparison.indicator.kind != .distribution {
            writer.key("ratio")
            if let ratio = comparison.ratio {
                writer.beginObject()
                writer.key("value")
                writer.numberText(number(ratio.value))
                writer.key("ci")
                writer.beginArray()
                writer.numberText(number(ratio.low))
                writer.numberText(number(ratio.high))
                writer.endArray()
                writer.endObject()
            } else {
                writer.null()
            }
        }
        writer.member("test", comparison.test.rawValue)
        writer.key("p")
        writer.numberText(number(comparison.p))
        writer.key("q")
        writer.numberText(number(comparison.q))
        writer.member("significant", comparison.significant)
        writer.member("direction", comparison.direction.rawValue)
        writer.endObject()
    }

    /// A JSON number: Swift's shortest text that reads back as the same `Double`; `null` for a
    /// value that is not finite.
    static func number(_ value: Double) -> String { value.isFinite ? "\(value)" : "null" }

    /// The summary line: the groups, their sessions, and how many comparisons were made and
    /// were significant.
    public static func headline(_ result: DiffResult, by: String) -> String {
        let significant = result.significant.count
        let thresholds = "q < \(result.thresholds.alpha), effect at least \(points(result.thresholds.minEffect)) points"
        return
            "\(by) \(result.baseline) (\(result.sessions.baseline) sessions) against \(result.candidate) (\(result.sessions.candidate) sessions): "
            + "\(result.comparisons.count) comparison(s), "
            + (significant == 0 ? "none significant" : "\(significant) significant") + " (\(thresholds))"
    }

    /// The headline, then one row a comparison: the significant ones first.
    public static func text(_ result: DiffResult, by: String) -> String {
        var lines = [headline(result, by: by)]
        let rows = result.comparisons.map { comparison -> [String] in
            [
                comparison.direction.rawValue, comparison.indicator.kind.rawValue, comparison.indicator.key,
                side(comparison.baseline, comparison), side(comparison.candidate, comparison), effect(comparison),
                "q " + short(comparison.q),
            ]
        }
        var widths = [Int](repeating: 0, count: 7)
        for row in rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
        for row in rows {
            let cells = row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
            }
            lines.append("  " + cells.joined(separator: "  "))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The headline, and a table of the significant comparisons.
    public static func markdown(_ result: DiffResult, by: String) -> String {
        var lines = ["**" + headline(result, by: by) + "**", ""]
        let significant = result.significant
        guard !significant.isEmpty else { return (lines + ["No significant difference."]).joined(separator: "\n") + "\n" }
        lines.append(
            "| direction | kind | key | \(cell(result.baseline)) | \(cell(result.candidate)) | effect (95% CI) | q |")
        lines.append("|---|---|---|---:|---:|---|---:|")
        for comparison in significant {
            lines.append(
                "| \(comparison.direction.rawValue) | \(comparison.indicator.kind.rawValue) | `\(cell(comparison.indicator.key))` | "
                    + "\(side(comparison.baseline, comparison)) | \(side(comparison.candidate, comparison)) | \(effect(comparison)) | "
                    + "\(short(comparison.q)) |")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func cell(_ text: String) -> String { text.replacing("|", with: "\\|") }

    /// `2.00% (400/20000)`, or `p50 12, p90 40, p99 90` for a distribution.
    public static func side(_ side: DiffComparison.Side, _ comparison: DiffComparison) -> String {
        if let with = side.with, let rate = side.rate { return "\(percent(rate)) (\(with)/\(side.sessions))" }
        guard let percentiles = side.percentiles, percentiles.count == 3 else { return "no sessions" }
        return "p50 \(percentiles[0]), p90 \(percentiles[1]), p99 \(percentiles[2])"
    }

    /// `+1.00 points [0.70, 1.30]`, or `P(larger) +3.10 points` for a distribution.
    public static func effect(_ comparison: DiffComparison) -> String {
        let sign = comparison.effect >= 0 ? "+" : "−"
        let size = "\(sign)\(points(abs(comparison.effect))) points"
        guard let interval = comparison.interval else { return "P(larger) \(size)" }
        return "\(size) [\(signed(interval.low)), \(signed(interval.high))]"
    }

    /// A fraction as percentage points with two decimals: 0.0123 → `1.23`.
    public static func points(_ fraction: Double) -> String { fixed(fraction * 100, decimals: 2) }

    static func signed(_ fraction: Double) -> String { (fraction < 0 ? "−" : "") + points(abs(fraction)) }

    /// `2.00%`.
    public static func percent(_ rate: Double) -> String { points(rate) + "%" }

    /// A p- or q-value in three significant digits: `0.0312`, `1.2e-10`, `1`.
    public static func short(_ value: Double) -> String {
        guard value.isFinite, value > 0 else { return value == 0 ? "0" : "n/a" }
        if value >= 0.001 { return fixed(value, decimals: value >= 0.1 ? 2 : value >= 0.01 ? 3 : 4).replacing(/\.?0+$/, with: "") }
        var exponent = 0
        var mantissa = value
        while mantissa < 1 {
            mantissa *= 10
            exponent -= 1
        }
        let digits = fixed(mantissa, decimals: 1)
        return digits == "10.0" ? "1.0e\(exponent + 1)" : digits + "e\(exponent)"
    }

    /// `value` rounded half away from zero to `decimals` places.
    public static func fixed(_ value: Double, decimals: Int) -> String {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = Int64((abs(value) * scale).rounded())
        let whole = scaled / Int64(scale)
        let part = String(scaled % Int64(scale))
        let fraction = decimals == 0 ? "" : "." + String(repeating: "0", count: decimals - part.count) + part
        return (value < 0 && scaled != 0 ? "-" : "") + "\(whole)" + fraction
    }
}
