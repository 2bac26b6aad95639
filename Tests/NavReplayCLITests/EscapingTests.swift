import Foundation
#if canImport(FoundationXML)
    import FoundationXML
#endif
import NavFuzz
import NavTestSupport
import Testing

/// Every string that comes from a log (or from a file name) is escaped in every output format.
///
/// The test asks the built binary which `--format` values each command accepts
/// (`--experimental-dump-help`), so a format added later is covered without editing this file.
/// It audits a log full of hostile values (`</script>`, `"><img onerror=…>`, `]]>`, ANSI escapes,
/// line breaks, `%0A`, forged GitHub commands, spreadsheet formulas) with every command and
/// format, parses each output with a parser that shares no code with the writer (Foundation's
/// JSON and XML parsers, Python's `html.parser` and `sqlite3`, an RFC 4180 reader, GitHub's
/// command syntax), and checks that the values are carried as data, not as markup or control.
@Suite struct EscapingTests {
    /// No control characters: allowed in ids.
    static let hostileSession = #"s</script><script>alert(1)</script>"><img src=x onerror=alert(1)>]]>%0A::warning::forged"#
    /// Control characters too: a route name may hold any string.
    static let hostileRoute = "r</script>\"><img src=x onerror=alert(1)>]]>\u{1B}[31mRED\u{1B}[0m\nnext line %0A %25\n::error::forged"
    static let hostileURL = "javascript:alert(1)//</script><img onerror=alert(1)>\u{1B}[2J%0A"
    static let formulaSession = #"=HYPERLINK("http://example.invalid","x")"#
    /// A file name with markup in it (file names are part of every report).
    static let hostileFileName = #"evil"><img src=x onerror=alert(1)>]]>%0A.ndjson"#

    /// A JSON string literal.
    static func quoted(_ value: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: [value])) ?? Data("[\"\"]".utf8)
        return String(String(decoding: data, as: UTF8.self).dropFirst().dropLast())
    }

    static func event(_ seq: Int, _ name: String, session: String = hostileSession, _ fields: String) -> String {
        "{\"schema_version\":1,\"event_id\":\(quoted("e]]><x/>\(seq)")),\"event_name\":\"\(name)\",\"session_id\":\(quoted(session)),"
            + "\"seq\":\(seq),\"timestamp\":\"2026-11-20T10:00:0\(seq)Z\",\"correlation_id\":\(quoted("c</script>\(seq)")),\(fields)}"
    }

    /// The hostile log: findings whose messages, expected and found values, states and screens
    /// all hold hostile strings; and a second file with unreadable lines.
    static func writeLogs(in scratch: TemporaryDirectory) throws -> (events: String, invalid: String) {
        let route = quoted(hostileRoute)
        let events = [
            event(0, "session_start", #""app_version":"1</script><img onerror=alert(1)>""#),
            event(1, "route_push", #""stack":"onboarding","from_route":null,"to_route":"# + route),
            event(2, "deep_link", "\"url\":\(quoted(hostileURL)),\"outcome\":\"fallback\""),
            event(3, "screen_view", "\"stack\":\"onboarding\",\"to_route\":\(quoted("v</script>\u{1B}[1m"))"),
            event(
                4, "route_push",
                "\"stack\":\"onboarding\",\"from_route\":\(quoted("f\"><img onerror=alert(1)>\n")),\"to_route\":\"welcome\""),
            event(0, "session_start", session: formulaSession, #""app_version":"1""#),
        ]
        let invalid = [
            event(9, "</script>\u{1B}[31m", #""stack":"onboarding""#).replacingOccurrences(of: "\u{1B}", with: "\\u001b"),
            #"<img src=x onerror=alert(1)>]]></script>"#,
            "{\"schema_version\":1,\"x\":\"\u{1B}[2J\"}",
        ]
        let first = try scratch.write(hostileFileName, (events + invalid).joined(separator: "\n") + "\n")
        let second = try scratch.write("line\nbreak\u{1B}[31m.ndjson", invalid.joined(separator: "\n") + "\n")
        return (first, second)
    }

    // MARK: The formats of each command

    /// `command → --format values`, from the binary's own description of its options.
    static func formatsByCommand() throws -> [String: [String]] {
        let result = try navreplay(["--experimental-dump-help"])
        let root = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        var formats: [String: [String]] = [:]
        func walk(_ command: [String: Any]) {
            let name = command["commandName"] as? String ?? ""
            for argument in command["arguments"] as? [[String: Any]] ?? [] {
                let names = (argument["names"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
                if names.contains("format"), let values = argument["allValues"] as? [String] { formats[name] = values }
            }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] { walk(sub) }
        }
        walk(try #require(root["command"] as? [String: Any]))
        return formats
    }

    @Test func everyCommandThatReadsLogsHasFormats() throws {
        let formats = try Self.formatsByCommand()
        for command in ["audit", "validate", "sessions", "replay"] {
            #expect(formats[command]?.isEmpty == false, "\(command) has no --format values: \(formats)")
        }
        #expect(formats["audit"]?.contains("ndjson") == true)
    }

    @Test func everyFormatOfEveryCommandCarriesHostileValuesInertly() throws {
        let scratch = try TemporaryDirectory()
        let (events, invalid) = try Self.writeLogs(in: scratch)
        let formats = try Self.formatsByCommand()
        var checked = 0
        for command in ["audit", "validate", "sessions", "replay"] {
            for format in formats[command] ?? [] {
                let label = "\(command) --format \(format)"
                let output = scratch.path("out-\(command)-\(format)")
                var arguments = [command, "--format", format, "--output", output, "--quiet"]
                arguments += command == "replay" ? ["--session", Self.hostileSession] : []
                let result = try navreplay(arguments + [events, invalid])
                #expect([0, 1].contains(result.status), "\(label): exit \(result.status): \(result.stderr)")
                let bytes = [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: output))) ?? Data())
                #expect(!bytes.isEmpty, "\(label): no output")
                try check(bytes, format: format, command: command, files: [events, invalid], label: label, in: scratch)
                checked += 1
            }
        }
        #expect(checked >= 10)

        // `navreplay report` writes one HTML page (no --format): the same check.
        let page = scratch.path("report.html")
        let report = try navreplay(["report", "--output", page, "--quiet", events, invalid])
        #expect([0, 1].contains(report.status), "report: exit \(report.status): \(report.stderr)")
        let html = [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: page))) ?? Data())
        #expect(!html.contains(0x1B), "report: a raw ESC in the page")
        try checkHTML(html, wanted: [Self.hostileSession], label: "report", benign: ["report"], in: scratch)
    }

    // MARK: Checks

    /// The strings an output must carry (decoded) for a command.
    func needles(_ command: String, files: [String]) -> [String] {
        switch command {
        case "validate": [files[0]]
        case "sessions": [Self.hostileSession]
        case "replay": [Self.hostileRoute]
        default: [Self.hostileSession, files[0]]
        }
    }

    func check(_ bytes: [UInt8], format: String, command: String, files: [String], label: String, in scratch: TemporaryDirectory) throws {
        // Whatever the text format: no raw escape byte, so no log can drive a terminal through it.
        // (A database stores the values exactly: its check reads them back below.)
        let rawEscape = format != "sqlite" && bytes.contains(0x1B)
        #expect(!rawEscape, "\(label): a raw ESC in the output")
        let wanted = needles(command, files: files)
        switch format {
        case "ndjson":
            var strings: [String] = []
            for line in bytes.split(separator: 0x0A) {
                let object = try? JSONSerialization.jsonObject(with: Data(line))
                #expect(
                    object is [String: Any], "\(label): a line is not a JSON object: \(String(decoding: line.prefix(300), as: UTF8.self))")
                if let object { strings += Self.strings(in: object) }
            }
            expect(strings, contain: wanted, label)
        case "json", "sarif":
            let document = try? JSONSerialization.jsonObject(with: Data(bytes))
            #expect(document != nil, "\(label): not JSON")
            if format == "sarif" { #expect((document as? [String: Any])?["runs"] is [Any], "\(label): no SARIF runs") }
            // SARIF locations are URIs: compare them percent-decoded.
            let strings = (document.map(Self.strings) ?? []).flatMap { [$0, $0.removingPercentEncoding ?? $0] }
            expect(strings, contain: wanted, label)
        case "junit":
            let parsed = XMLStrings(bytes)
            #expect(parsed.error == nil, "\(label): not well-formed XML: \(parsed.error ?? "")")
            #expect(
                parsed.elements.isDisjoint(with: ["img", "script", "x"]),
                "\(label): markup from the log became elements: \(parsed.elements)")
            expect(parsed.strings, contain: wanted, label)
        case "github":
            try checkGitHub(bytes, wanted: wanted, files: files, label: label)
        case "csv":
            let rows = CSV.parse(bytes)
            #expect(rows != nil, "\(label): not RFC 4180 CSV")
            let cells = rows?.flatMap { $0 } ?? []
            expect(cells, contain: wanted, label)
            // A cell that a spreadsheet would run as a formula is defused with a leading quote.
            #expect(!cells.contains { $0.hasPrefix("=") || $0.hasPrefix("+") || $0.hasPrefix("@") }, "\(label): a formula cell")
            #expect(cells.contains("'" + Self.formulaSession), "\(label): the formula session id is not defused")
        case "html":
            try checkHTML(bytes, wanted: wanted, label: label, benign: [command, "--format", "html"], in: scratch)
        case "sqlite":
            try checkSQLite(bytes, wanted: wanted, label: label, in: scratch)
        case "text":
            #expect(checkText(bytes, allowSGR: false) == nil, "\(label): \(checkText(bytes, allowSGR: false) ?? "")")
            let text = String(decoding: bytes, as: UTF8.self)
            for needle in wanted where !needle.contains("\n") {
                #expect(text.contains(needle), "\(label): \(needle) is missing")
            }
            if command != "validate" {
                #expect(text.contains("\\u{1b}") || !text.contains("RED"), "\(label): an escape is not shown as \\u{1b}")
            }
        default:
            // A format this test has no parser for yet (add one above): it must at least be
            // UTF-8 text without control characters other than tab and line ends.
            let text = String(validating: bytes, as: UTF8.self)
            #expect(text != nil, "\(label): not UTF-8")
            #expect(!bytes.contains { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }, "\(label): a raw control character")
        }
    }

    func expect(_ strings: [String], contain needles: [String], _ label: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for needle in needles {
            #expect(
                strings.contains { $0.contains(needle) }, "\(label): \(needle.debugDescription) is not carried",
                sourceLocation: sourceLocation)
        }
    }

    static func strings(in value: Any) -> [String] {
        switch value {
        case let string as String: return [string]
        case let array as [Any]: return array.flatMap(strings)
        case let object as [String: Any]: return object.keys.map { $0 } + object.values.flatMap(strings)
        default: return []
        }
    }

    /// GitHub workflow commands: every line is one `::error` or `::warning` command, so a log
    /// can never start a line (and a command) of its own; the decoded messages carry the values.
    func checkGitHub(_ bytes: [UInt8], wanted: [String], files: [String], label: String) throws {
        let text = String(decoding: bytes, as: UTF8.self)
        var decoded: [String] = []
        for line in text.split(separator: "\n") {
            #expect(
                line.hasPrefix("::error ") || line.hasPrefix("::warning ") || line.hasPrefix("::notice "),
                "\(label): a line that is not a command: \(line.prefix(200))")
            guard let split = line.range(of: "::", range: line.index(line.startIndex, offsetBy: 2)..<line.endIndex) else {
                Issue.record("\(label): a command without a message: \(line.prefix(200))")
                continue
            }
            let properties = line[line.index(line.startIndex, offsetBy: 2)..<split.lowerBound]
            let message = line[split.upperBound...]
            #expect(!message.contains("\r"), "\(label)")
            decoded.append(Self.unescapeGitHub(String(message)))
            for property in properties.split(separator: " ", maxSplits: 1).dropFirst().first?.split(separator: ",") ?? [] {
                let parts = property.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else { continue }
                let value = Self.unescapeGitHub(String(parts[1]))
                decoded.append(value)
                if parts[0] == "file" {
                    #expect(files.map(Self.visible).contains(value), "\(label): file=\(value.debugDescription) is not an input")
                }
            }
        }
        expect(decoded, contain: wanted.filter { !files.contains($0) }, label)
    }

    /// A text with its control characters other than line ends shown as `\u{…}`.
    static func visible(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            if scalar != "\n" && scalar != "\r" && (scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)) {
                result += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    static func unescapeGitHub(_ text: String) -> String {
        text.replacingOccurrences(of: "%0A", with: "\n").replacingOccurrences(of: "%0D", with: "\r")
            .replacingOccurrences(of: "%3A", with: ":").replacingOccurrences(of: "%2C", with: ",")
            .replacingOccurrences(of: "%25", with: "%")
    }

    /// HTML through Python's `html.parser`: no element or attribute from the log (no `img`, no
    /// `on…` handler, no extra `script`), and the values are in the text or in the page's JSON.
    func checkHTML(_ bytes: [UInt8], wanted: [String], label: String, benign: [String], in scratch: TemporaryDirectory) throws {
        let script = #"""
            import html.parser, json, sys
            class P(html.parser.HTMLParser):
                def __init__(self):
                    super().__init__(convert_charrefs=True)
                    self.tags = []; self.handlers = []; self.text = []; self.stack = []
                def handle_starttag(self, tag, attrs):
                    self.tags.append(tag); self.stack.append(tag)
                    for name, value in attrs:
                        if name.startswith("on"): self.handlers.append(tag + " " + name)
                        if value: self.text.append(value)
                def handle_endtag(self, tag):
                    if self.stack and self.stack[-1] == tag: self.stack.pop()
                def handle_data(self, data):
                    self.text.append(data)
                    if self.stack and self.stack[-1] == "script":
                        try:
                            def walk(v):
                                if isinstance(v, str): self.text.append(v)
                                elif isinstance(v, list): [walk(x) for x in v]
                                elif isinstance(v, dict): [walk(x) for x in list(v.keys()) + list(v.values())]
                            walk(json.loads(data))
                        except Exception:
                            pass
            p = P(); p.feed(open(sys.argv[1], encoding="utf-8").read()); p.close()
            print(json.dumps({"tags": p.tags, "handlers": p.handlers, "text": p.text}))
            """#
        let path = scratch.path("page-\(UInt32.random(in: 0...UInt32.max)).html")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let result = try runPython(script, path)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(result.utf8)) as? [String: Any], "\(label): \(result)")
        let tags = parsed["tags"] as? [String] ?? []
        #expect(!tags.contains("img") && !tags.contains("x"), "\(label): markup from the log became elements")
        #expect((parsed["handlers"] as? [String] ?? []).isEmpty, "\(label): event handler attributes: \(parsed["handlers"] ?? "")")
        expect(parsed["text"] as? [String] ?? [], contain: wanted, label)
        // The page's own scripts only: a benign page has the same number.
        let scripts = try benignScriptCount(benign, in: scratch)
        #expect(tags.filter { $0 == "script" }.count == scripts, "\(label): a script element from the log")
    }

    /// How many `script` elements the same command writes for a benign log.
    func benignScriptCount(_ arguments: [String], in scratch: TemporaryDirectory) throws -> Int {
        let log = try scratch.write("benign.ndjson", Lines.clean)
        let output = scratch.path("benign.html")
        _ = try navreplay(arguments + ["--output", output, "--quiet", log])
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        return text.components(separatedBy: "<script").count - 1
    }

    /// SQLite through Python's `sqlite3`: every text value of every table, read back as data.
    func checkSQLite(_ bytes: [UInt8], wanted: [String], label: String, in scratch: TemporaryDirectory) throws {
        let script = #"""
            import json, sqlite3, sys
            db = sqlite3.connect(sys.argv[1]); out = []
            for (table,) in db.execute("select name from sqlite_master where type = 'table'").fetchall():
                for row in db.execute('select * from "%s"' % table.replace('"', '""')):
                    out += [v for v in row if isinstance(v, str)]
            print(json.dumps(out))
            """#
        let path = scratch.path("db-\(UInt32.random(in: 0...UInt32.max)).sqlite")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let result = try runPython(script, path)
        let strings = try #require(try JSONSerialization.jsonObject(with: Data(result.utf8)) as? [String], "\(label): \(result)")
        expect(strings, contain: wanted, label)
    }

    func runPython(_ script: String, _ argument: String) throws -> String {
        let outcome = try ChildProcess.run("/usr/bin/env", ["python3", "-c", script, argument])
        #expect(outcome.exitStatus == 0, "python3: \(outcome.stderrText)")
        return outcome.stdoutText
    }

    @Test func theIndependentCheckersRejectWhatTheyMust() {
        // Each checker would catch the failure it exists for.
        #expect(checkText(Array("a\u{1B}[2Jb\n".utf8), allowSGR: false) != nil)
        #expect(checkText(Array("a\u{1B}[2Jb\n".utf8), allowSGR: true) != nil)
        #expect(checkText(Array("\u{1B}[31;1merror\u{1B}[0m\n".utf8), allowSGR: true) == nil)
        #expect(checkText(Array("line\u{2028}forged".utf8), allowSGR: false) != nil)
        #expect(CSV.parse(Array("a,b\r\n\"c\nd\",e\r\n".utf8))?.count == 2)
        #expect(CSV.parse(Array("a,b\nc,d\r\n".utf8)) == nil)
        #expect(CSV.parse(Array("a,\"b\"c\r\n".utf8)) == nil)
        #expect(XMLStrings(Array("<a x=\"1\"><b>t</b></a>".utf8)).error == nil)
        #expect(XMLStrings(Array("<a><![CDATA[x]]>]]></a><img/>".utf8)).error != nil)
        #expect(XMLStrings(Array("<a><b>".utf8)).error != nil)
        #expect(XMLStrings(Array("<a>\u{1B}</a>".utf8)).error != nil)
        #expect(Self.unescapeGitHub("a%0A::error::b%25") == "a\n::error::b%")
    }
}

/// The element names and the text and attribute values of an XML document, through
/// Foundation's `XMLParser` (libxml2), or the parse error.
final class XMLStrings: NSObject, XMLParserDelegate {
    private(set) var elements: Set<String> = []
    private(set) var strings: [String] = []
    private(set) var error: String?

    private var depth = 0
    private var roots = 0

    init(_ bytes: [UInt8]) {
        super.init()
        let parser = XMLParser(data: Data(bytes))
        parser.delegate = self
        // swift-corelibs-foundation may return true with an error set, and does not report an
        // unclosed element: check all three.
        let parsed = parser.parse()
        if let failure = parser.parserError {
            error = "\(failure)"
        } else if !parsed {
            error = "parse failed"
        } else if depth != 0 || roots != 1 {
            error = "\(depth) unclosed element(s), \(roots) root element(s)"
        }
    }

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]
    ) {
        if depth == 0 { roots += 1 }
        depth += 1
        elements.insert(name)
        strings += attributes.values
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) { depth -= 1 }

    func parser(_ parser: XMLParser, foundCharacters string: String) { strings.append(string) }

    func parser(_ parser: XMLParser, foundCDATA block: Data) { strings.append(String(decoding: block, as: UTF8.self)) }
}
