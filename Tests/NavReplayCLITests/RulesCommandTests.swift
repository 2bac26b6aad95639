import Foundation
import NavJSON
import NavReplay
import NavTestSupport
import Testing

/// `navreplay rules`, the README's table made from it, and what users read about rules.
@Suite struct RulesCommandTests {
    @Test func theReadmeTableIsTheCommandsMarkdown() throws {
        let markdown = try navreplay(["rules", "--format", "markdown"])
        #expect(markdown.status == 0)
        let block = try #require(
            try readmeBlock("navreplay rules --format markdown"),
            "README.md has no block between <!-- BEGIN navreplay rules --format markdown --> and its END marker")
        #expect(block == markdown.stdout, "regenerate the README's rules table with: navreplay rules --format markdown")
        #expect(markdown.stdout.split(separator: "\n").count == Rule.allCases.count + 2)
    }

    @Test func jsonListsEveryRuleWithItsExamples() throws {
        let result = try navreplay(["rules", "--format", "json"])
        #expect(result.status == 0)
        guard case .array(let rules) = try JSONValue.parse(result.stdout) else {
            Issue.record("not a JSON array: \(result.stdout.prefix(200))")
            return
        }
        #expect(rules.count == Rule.allCases.count)
        for (value, rule) in zip(rules, Rule.allCases) {
            guard case .object(let fields) = value else {
                Issue.record("\(rule.rawValue): not an object")
                continue
            }
            #expect(fields["id"] == .string(rule.rawValue))
            #expect(fields["severity"] == .string(rule.severity.rawValue))
            #expect(fields["summary"] == .string(rule.summary))
            for key in ["likely_causes", "triggering_examples", "non_triggering_examples"] {
                guard case .array(let list)? = fields[key] else {
                    Issue.record("\(rule.rawValue): \(key) is not an array")
                    continue
                }
                #expect(!list.isEmpty, "\(rule.rawValue): \(key)")
            }
        }
    }

    @Test func textShowsTheChosenRulesWithAnExample() throws {
        let result = try navreplay(["rules", "state.mismatch", "route.position"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("state.mismatch (error)\n  A from_* field"))
        #expect(result.stdout.contains("Likely causes:\n    - an event before it was lost"))
        #expect(result.stdout.contains(#"    {"schema_version":1,"event_id":"e2","event_name":"route_push""#))
        #expect(result.stdout.contains("With this model file:"))
        #expect(!result.stdout.contains("seq.gap ("))
        let unknown = try navreplay(["rules", "state.missmatch"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("Unknown rule state.missmatch"))
    }

    /// Each rule's first example, audited by the built binary as a user would paste it, draws
    /// that rule (the unit test does the same through the library).
    @Test func theExampleShownDrawsItsRule() throws {
        let scratch = try TemporaryDirectory()
        for rule in Rule.allCases {
            let description = rule.ruleDescription
            let log = try scratch.write("\(rule.rawValue).ndjson", description.triggeringExamples[0])
            var arguments = ["audit", "--format", "ndjson", "--fail-on", "never", "--quiet", log]
            if let model = description.exampleModel {
                arguments += ["--model", try scratch.write("\(rule.rawValue).model.json", model)]
            }
            let result = try navreplay(arguments)
            #expect(result.status == 0)
            #expect(result.stdout.contains(#""rule":"\#(rule.rawValue)""#), "\(rule.rawValue): \(result.stdout)")
        }
    }

    /// What a user reads (help, rule descriptions, SARIF's rule help, the report, the schemas)
    /// cites no document that is not in the repository.
    @Test func userVisibleTextCitesNoOutsideDocument() throws {
        let scratch = try TemporaryDirectory()
        let report = scratch.url.appendingPathComponent("report.html").path
        var texts: [(String, String)] = []
        for command in CLIConventionTests.commands {
            texts.append(("\(command) --help", try navreplay([command, "--help"]).stdout))
        }
        texts.append(("--help", try navreplay(["--help"]).stdout))
        texts.append(("rules --format json", try navreplay(["rules", "--format", "json"]).stdout))
        texts.append(("audit --format sarif", try navreplay(["audit", "--format", "sarif", "--quiet", "SampleLogs"]).stdout))
        texts.append(("audit --format junit", try navreplay(["audit", "--format", "junit", "--quiet", "SampleLogs"]).stdout))
        _ = try navreplay(["report", "--quiet", "--output", report, "SampleLogs"])
        texts.append(("report", try String(contentsOfFile: report, encoding: .utf8)))
        texts.append(("schema", try navreplay(["schema"]).stdout))
        texts.append(("schema --model", try navreplay(["schema", "--model"]).stdout))
        let pattern = try NSRegularExpression(pattern: #"(?i:seed 00\d|invariant \d|contract \d|§)|CONTRACT"#)
        for (name, text) in texts {
            #expect(!text.isEmpty, "\(name) printed nothing")
            let range = NSRange(text.startIndex..., in: text)
            let matches = pattern.matches(in: text, range: range).map { match -> String in
                let around = NSRange(location: max(0, match.range.location - 40), length: match.range.length + 80)
                return (text as NSString).substring(with: NSIntersectionRange(around, NSRange(location: 0, length: range.length)))
            }
            #expect(matches.isEmpty, "\(name): \(matches)")
        }
    }

    /// The repository's own text (Sources/, Tests/, docs/) stands alone: no line cites a document
    /// users do not have by its number or section. The one line exempt is the pattern of
    /// `userVisibleTextCitesNoOutsideDocument`; this test's own pattern writes the section sign as
    /// `\x{A7}`, so it does not match itself.
    @Test func sourcesTestsAndDocsCiteNoOutsideDocument() throws {
        let pattern = try NSRegularExpression(pattern: #"(?i)seed 00\d|\x{A7}|contract \d\.\d"#)
        let exempt = ("Tests/NavReplayCLITests/RulesCommandTests.swift", #"NSRegularExpression(pattern: #"(?i:seed 00"#)
        let textExtensions: Set<String> = ["swift", "md", "py", "h", "c", "modulemap", "sh", "txt", "yml", "yaml", "html", "js", "css"]
        var scanned = 0
        var citations: [String] = []
        for directory in ["Sources", "Tests", "docs"] {
            let base = Repository.root.appendingPathComponent(directory)
            let walk = try #require(FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil), "cannot list \(directory)")
            for case let url as URL in walk where textExtensions.contains(url.pathExtension) {
                let relative = String(url.standardizedFileURL.path.dropFirst(Repository.root.standardizedFileURL.path.count + 1))
                let text = try String(contentsOf: url, encoding: .utf8)
                scanned += 1
                for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    if relative == exempt.0 && line.contains(exempt.1) { continue }
                    let line = String(line)
                    if pattern.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil {
                        citations.append("\(relative):\(index + 1): \(line.trimmingCharacters(in: .whitespaces))")
                    }
                }
            }
        }
        #expect(scanned > 300, "only \(scanned) files under Sources/, Tests/ and docs/")
        #expect(citations.isEmpty, "cite the behaviour, not an internal document:\n\(citations.joined(separator: "\n"))")
    }
}
