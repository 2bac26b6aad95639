public import NavReplay
import NavJSON

/// `navreplay rules`: every rule's description, for people (text), programs (JSON), and the
/// README's table (Markdown).
public enum RulesWriter {
    /// Each rule: its id and severity, summary, explanation, likely causes and one log that
    /// triggers it, wrapped at `width` columns (example lines are never wrapped).
    public static func text(_ rules: [Rule], width: Int = 100) -> String {
        var out = wrap(
            "Each example log is audited with the built-in PoC model (what navreplay uses when given no --model and "
                + "no model.json), unless a model file is shown with it.", width: width, indent: "")
        for rule in rules {
            let description = rule.ruleDescription
            out += "\n"
            out += "\(description.id) (\(description.severity.rawValue))\n"
            out += wrap(description.summary, width: width, indent: "  ")
            out += wrap(description.explanation, width: width, indent: "  ")
            out += "  Likely causes:\n"
            for cause in description.likelyCauses { out += wrap(cause, width: width, indent: "    - ", then: "      ") }
            if let model = description.exampleModel {
                out += "  With this model file:\n"
                for line in model.split(separator: "\n") { out += "    \(line)\n" }
            }
            out += "  Example log (the last line draws \(description.id)):\n"
            for line in description.triggeringExamples[0].split(separator: "\n") { out += "    \(line)\n" }
        }
        return out
    }

    /// One JSON document: an array with one object per rule, every field of its description.
    public static func json(_ rules: [Rule]) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginArray()
        for rule in rules {
            let description = rule.ruleDescription
            writer.beginObject()
            writer.member("id", description.id)
            writer.member("severity", description.severity.rawValue)
            writer.member("summary", description.summary)
            writer.member("explanation", description.explanation)
            writer.key("likely_causes")
            strings(description.likelyCauses, into: &writer)
            writer.key("triggering_examples")
            strings(description.triggeringExamples, into: &writer)
            writer.key("non_triggering_examples")
            strings(description.nonTriggeringExamples, into: &writer)
            writer.key("example_model")
            if let model = description.exampleModel, let value = try? JSONValue.parse(Array(model.utf8)) {
                writer.value(value)
            } else {
                writer.null()
            }
            writer.endObject()
        }
        writer.endArray()
        return writer.bytes + [0x0A]
    }

    /// A Markdown table: rule, severity, summary.
    public static func markdown(_ rules: [Rule]) -> String {
        var out = "| rule | severity | summary |\n|---|---|---|\n"
        for rule in rules {
            let description = rule.ruleDescription
            let summary = description.summary.replacingPipes()
            out += "| `\(description.id)` | \(description.severity.rawValue) | \(summary) |\n"
        }
        return out
    }

    private static func strings(_ values: [String], into writer: inout JSONWriter) {
        writer.beginArray()
        for value in values { writer.string(value) }
        writer.endArray()
    }

    /// Words of `text` in lines of at most `width` columns (a longer word stands alone), the
    /// first line after `indent`, the others after `then` (default: as many spaces).
    static func wrap(_ text: String, width: Int, indent: String, then: String? = nil) -> String {
        let next = then ?? String(repeating: " ", count: indent.count)
        var out = ""
        var line = indent
        var empty = true
        for word in text.split(separator: " ") {
            if !empty && line.count + 1 + word.count > width {
                out += line + "\n"
                line = next
                empty = true
            }
            line += (empty ? "" : " ") + word
            empty = false
        }
        return out + line + "\n"
    }
}

extension String {
    /// `|` escaped, for a Markdown table cell.
    fileprivate func replacingPipes() -> String {
        var out = ""
        for character in self { out += character == "|" ? "\\|" : String(character) }
        return out
    }
}
