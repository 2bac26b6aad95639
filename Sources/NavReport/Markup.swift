/// Escaping for the markup formats (JUnit XML, HTML, SVG).
enum Markup {
    /// Escapes text for XML or HTML element content and attribute values: `& < > " '`, and every
    /// character XML 1.0 does not allow (C0 controls but tab and line ends, U+FFFE, U+FFFF) as
    /// a visible `\u{…}`. In attributes, tab and line ends become character references so that
    /// parsers keep them.
    static func escape(_ text: String, attribute: Bool = false) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            case "\t", "\n", "\r":
                if attribute {
                    result += "&#\(scalar.value);"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            default:
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    result += "\\u{" + String(scalar.value, radix: 16) + "}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }

    /// A log-supplied string made inert (control characters, ANSI escapes and line breaks shown
    /// as `\u{…}`) and then escaped for markup.
    static func text(_ logText: String, attribute: Bool = false) -> String {
        escape(safe(logText), attribute: attribute)
    }
}
