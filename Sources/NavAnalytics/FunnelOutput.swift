public import NavJSON
import NavModel
import NavReplay

extension FunnelResult {
    /// `{"sessions", "entered", "completed", "within_ms", "percentile_method", "steps", "by",
    /// "groups", "findings"}` (docs/analytics.md).
    public func json() -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.member("sessions", all.sessions)
        writer.member("entered", all.steps.first?.sessions ?? 0)
        writer.member("completed", all.steps.last?.sessions ?? 0)
        writer.key("within_ms")
        if let within { writer.int(within) } else { writer.null() }
        writer.member("percentile_method", Percentiles.method)
        writer.key("steps")
        Self.write(all.steps, to: &writer)
        writer.member("by", by?.rawValue)
        writer.key("groups")
        writer.beginArray()
        for group in groups {
            writer.beginObject()
            writer.member("value", group.value)
            writer.member("sessions", group.sessions)
            writer.key("steps")
            Self.write(group.steps, to: &writer)
            writer.endObject()
        }
        writer.endArray()
        writer.key("findings")
        writer.beginArray()
        for row in rules {
            writer.beginObject()
            writer.member("rule", row.rule.rawValue)
            for (name, side) in [("with", row.with), ("without", row.without)] {
                writer.key(name)
                writer.beginObject()
                writer.member("sessions", side.sessions)
                writer.member("entered", side.entered)
                writer.member("completed", side.completed)
                writer.key("conversion")
                writer.number(side.conversion)
                writer.endObject()
            }
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes + [UInt8(ascii: "\n")]
    }

    private static func write(_ steps: [StepRow], to writer: inout JSONWriter) {
        writer.beginArray()
        for row in steps {
            writer.beginObject()
            writer.member("step", row.step.description)
            writer.member("sessions", row.sessions)
            writer.key("conversion_from_previous")
            writer.number(row.conversionFromPrevious)
            writer.key("conversion_from_first")
            writer.number(row.conversionFromFirst)
            writer.key("drop_off")
            if let dropOff = row.dropOff { writer.int(dropOff) } else { writer.null() }
            writer.key("dropped_to")
            writer.beginArray()
            for place in row.droppedTo {
                writer.beginObject()
                if place.other > 0 {
                    writer.member("other", place.other)
                } else {
                    writer.key("screen")
                    if let screen = place.screen { screen.write(to: &writer) } else { writer.null() }
                }
                writer.member("sessions", place.sessions)
                writer.endObject()
            }
            writer.endArray()
            writer.key("time_from_previous_ms")
            if let time = row.time {
                writer.beginObject()
                for (percent, value) in zip(percents, time) {
                    writer.key("p\(percent)")
                    writer.number(value)
                }
                writer.endObject()
            } else {
                writer.null()
            }
            writer.endObject()
        }
        writer.endArray()
    }

    /// The funnel as a table, the places dropped sessions went, the breakdown side by side, and
    /// conversion with and without each rule's findings.
    public func text() -> String {
        let window = within.map { " within \(Self.duration(Double($0))) of the first step" } ?? ""
        var lines = ["Funnel of \(steps.count) step(s) over \(all.sessions) session(s)\(window):"]
        var table = [["step", "sessions", "from previous", "from first", "drop-off", "p50", "p90", "p99"]]
        for row in all.steps {
            let time = row.time?.map { Self.duration($0) } ?? ["", "", ""]
            table.append(
                [
                    row.step.description, "\(row.sessions)", Self.percent(row.conversionFromPrevious),
                    Self.percent(row.conversionFromFirst),
                    row.dropOff.map(String.init) ?? "",
                ] + time)
        }
        lines += TextTable.lines(table, rightAligned: 0)
        lines.append("  (p50, p90, p99: time from the previous step, by numpy's default linear percentiles)")
        let drops = all.steps.filter { !$0.droppedTo.isEmpty }
        if !drops.isEmpty {
            lines += ["", "Where the sessions that dropped went instead (the next screen after their last step):"]
            for row in drops {
                let places = row.droppedTo.map { place in
                    (place.other > 0 ? "other (\(place.other))" : place.screen?.label ?? "(exit)") + " \(place.sessions)"
                }
                lines.append("  before \(row.step): " + places.joined(separator: ", "))
            }
        }
        if let by, !groups.isEmpty {
            lines += ["", "By \(by.rawValue) (sessions, and conversion from the first step):"]
            var side = [["step"] + groups.map { $0.value ?? "(none)" }]
            for index in steps.indices {
                side.append(
                    [steps[index].description]
                        + groups.map { "\($0.steps[index].sessions) \(Self.percent($0.steps[index].conversionFromFirst))" })
            }
            side.append(["sessions"] + groups.map { "\($0.sessions)" })
            lines += TextTable.lines(side, rightAligned: 0)
        }
        if !rules.isEmpty {
            lines += ["", "Conversion (first step to last) of sessions with and without findings of each rule:"]
            var table = [["rule", "with", "entered", "completed", "conversion", "without", "entered", "completed", "conversion"]]
            for row in rules {
                table.append(
                    [row.rule.rawValue]
                        + [row.with, row.without].flatMap {
                            ["\($0.sessions)", "\($0.entered)", "\($0.completed)", Self.percent($0.conversion)]
                        })
            }
            lines += TextTable.lines(table, rightAligned: 0)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    public static func percent(_ value: Double?) -> String {
        guard let value else { return "" }
        return oneDecimal(value * 100) + "%"
    }

    public static func duration(_ milliseconds: Double) -> String {
        let size = abs(milliseconds)
        if size < 1000 { return "\(Int64(milliseconds.rounded())) ms" }
        if size < 60_000 { return oneDecimal(milliseconds / 1000) + " s" }
        if size < 3_600_000 { return oneDecimal(milliseconds / 60_000) + " min" }
        return oneDecimal(milliseconds / 3_600_000) + " h"
    }

    /// `12.3`: rounded to one decimal, half away from zero.
    static func oneDecimal(_ value: Double) -> String {
        let tenths = Int64((value * 10).rounded())
        return (tenths < 0 ? "-" : "") + "\(abs(tenths) / 10).\(abs(tenths) % 10)"
    }
}

extension JSONWriter {
    /// A number as Swift prints a `Double` (the shortest text that reads back as the same
    /// value), or `null`.
    mutating func number(_ value: Double?) {
        guard let value, value.isFinite else { return null() }
        numberText(value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)")
    }
}
