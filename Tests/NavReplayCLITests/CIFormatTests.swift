import Foundation
import NavTestSupport
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `--format junit|sarif|github` and `--baseline`, end to end, each output read back by an
/// independent parser: libxml2 (XMLDocument) for JUnit, Python's jsonschema and sarif-pydantic
/// for SARIF, a workflow-command parser written here for GitHub.
@Suite struct CIFormatTests {
    /// Log-supplied strings that must stay inert in every format.
    static let evil = #"</script>"><img src=x onerror=alert(1)>]]>%0A::error::x,y:z"#

    /// A log with hostile session ids and route names, a clean session and an invalid line.
    static func hostileLog() -> String {
        let session = evil
        let route = #"\"><img src=x onerror=alert(1)>\u001b[31m\n</script>"#
        return #"""
            {"schema_version":1,"event_id":"e0","event_name":"session_start","session_id":"\#(session.replacingOccurrences(of: "\"", with: "\\\""))","seq":0,"timestamp":"2026-11-20T10:00:00Z","correlation_id":"c0","app_version":"1"}
            {"schema_version":1,"event_id":"e1","event_name":"route_push","session_id":"\#(session.replacingOccurrences(of: "\"", with: "\\\""))","seq":1,"timestamp":"2026-11-20T10:00:01Z","correlation_id":"c1","stack":"onboarding","from_route":null,"to_route":"\#(route)"}
            {"schema_version":1,"event_id":"e2","event_name":"session_start","session_id":"ok","seq":0,"timestamp":"2026-11-20T10:00:00Z","correlation_id":"c2","app_version":"1"}
            {"schema_version":1,"event_id":"e3","event_name":"route_tele\u001bport","session_id":"x"}

            """#
    }

    /// The ndjson findings of the same input: what every format must agree with.
    func ndjsonFindings(_ arguments: [String]) throws -> [[String: Any]] {
        let result = try navreplay(["audit", "--quiet", "--format", "ndjson"] + arguments)
        return result.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    @Test func junitHasOneSuitePerFileAndOneFailurePerFinding() throws {
        let scratch = try TemporaryDirectory()
        let hostile = try scratch.write("hostile.ndjson", Self.hostileLog())
        let clean = Repository.path("SampleLogs/clean/app-2026-11-20-upload1.ndjson")
        let result = try navreplay(["audit", "--quiet", "--format", "junit", hostile, clean])
        #expect(result.status == 1)
        let expected = try ndjsonFindings([hostile, clean])
        #expect(expected.count == 2)

        let document = try XMLDocument(data: Data(result.stdout.utf8))
        let root = try #require(document.rootElement())
        #expect(root.name == "testsuites")
        let suites = root.elements(forName: "testsuite")
        #expect(suites.map { $0.attribute(forName: "name")?.stringValue } == [clean, hostile].sorted())
        #expect(root.attribute(forName: "failures")?.stringValue == String(expected.count))

        let cleanSuite = try #require(suites.first { $0.attribute(forName: "name")?.stringValue == clean })
        let cleanCases = cleanSuite.elements(forName: "testcase")
        #expect(cleanCases.count == 1)
        #expect(cleanCases.first?.elements(forName: "failure").isEmpty == true)

        let hostileSuite = try #require(suites.first { $0.attribute(forName: "name")?.stringValue == hostile })
        let failures = hostileSuite.elements(forName: "testcase").flatMap { $0.elements(forName: "failure") }
        #expect(failures.map { $0.attribute(forName: "type")?.stringValue } == expected.map { $0["rule"] as? String })
        #expect(hostileSuite.attribute(forName: "failures")?.stringValue == String(expected.count))
        // The hostile strings come back as text: escaped, never markup.
        let texts = failures.map { $0.stringValue ?? "" }.joined(separator: "\n")
        #expect(texts.contains(#"session </script>"><img src=x onerror=alert(1)>]]>"#))
        #expect(texts.contains(#"route "\"><img src=x onerror=alert(1)>\u001b[31m\n</script>""#))
        #expect(!texts.contains("\u{1B}"))
        #expect(texts.contains("why: "))
        let names = hostileSuite.elements(forName: "testcase").compactMap { $0.attribute(forName: "name")?.stringValue }
        #expect(names.contains { $0.hasPrefix("error route.unknown at line 2, session </script>") })
    }

    @Test func junitOfValidateReportsCleanFilesAsPassingAndUnreadableFilesAsErrors() throws {
        let result = try navreplay([
            "validate", "--quiet", "--format", "junit", "SampleLogs/clean", "SampleLogs/violations", "no-such.ndjson",
        ])
        #expect(result.status == 2)
        let document = try XMLDocument(data: Data(result.stdout.utf8))
        let suites = try #require(document.rootElement()).elements(forName: "testsuite")
        #expect(suites.count == 4)
        let passing = suites.flatMap { $0.elements(forName: "testcase") }.filter {
            $0.attribute(forName: "name")?.stringValue == "every line is a valid v1 event"
        }
        #expect(passing.count == 2)
        let missing = try #require(suites.first { $0.attribute(forName: "name")?.stringValue == "no-such.ndjson" })
        #expect(missing.attribute(forName: "errors")?.stringValue == "1")
        #expect(missing.elements(forName: "testcase").first?.elements(forName: "error").count == 1)
    }

    @Test func sarifIsValidAndPointsEveryResultAtItsFileAndLine() throws {
        let scratch = try TemporaryDirectory()
        let hostile = try scratch.write("hostile.ndjson", Self.hostileLog())
        let sarif = scratch.url.appendingPathComponent("out.sarif").path
        let result = try navreplay([
            "audit", "--quiet", "--format", "sarif", "--output", sarif, "SampleLogs/clean", "SampleLogs/violations", hostile,
        ])
        #expect(result.status == 1)
        let expected = scratch.url.appendingPathComponent("expected.ndjson").path
        try navreplay(["audit", "--quiet", "--format", "ndjson", "SampleLogs/clean", "SampleLogs/violations", hostile]).stdout
            .write(toFile: expected, atomically: true, encoding: .utf8)
        let check = try python(Self.sarifCheck, arguments: [sarif, expected, Self.officialSchema ?? ""])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(check.stdout.contains("results: 30"), "\(check.stdout)")
        if Self.officialSchema != nil { #expect(check.stdout.contains("OASIS schema: valid")) }
    }

    /// The OASIS SARIF 2.1.0 schema, when the shared folder beside the repository has it.
    static var officialSchema: String? {
        let path = Repository.root.deletingLastPathComponent().appendingPathComponent("shared/schemas/sarif-schema-2.1.0.json").path
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    /// Validates with jsonschema (if the schema is given) and sarif-pydantic, then compares
    /// every result with the ndjson finding at the same position.
    static let sarifCheck = #"""
        import json, sys
        sarif_path, ndjson_path, schema_path = sys.argv[1:4]
        document = json.load(open(sarif_path, encoding="utf-8"))
        if schema_path:
            import jsonschema
            jsonschema.validate(document, json.load(open(schema_path, encoding="utf-8")))
            print("OASIS schema: valid")
        from sarif_pydantic import Sarif
        model = Sarif.model_validate(document)
        assert model.version == "2.1.0", model.version
        run = model.runs[0]
        assert run.tool.driver.name == "navreplay"
        rules = [rule.id for rule in run.tool.driver.rules]
        assert len(rules) == len(set(rules)) == 23, rules
        for rule in run.tool.driver.rules:
            assert rule.short_description.text and rule.full_description.text, rule.id
        findings = [json.loads(line) for line in open(ndjson_path, encoding="utf-8") if line.strip()]
        results = run.results
        assert len(results) == len(findings), (len(results), len(findings))
        for result, finding in zip(results, findings):
            assert result.rule_id == finding["rule"], (result.rule_id, finding)
            assert rules[result.rule_index] == result.rule_id
            assert str(getattr(result.level, "value", result.level)) == finding["severity"], (result.level, finding)
            location = result.locations[0].physical_location
            uri = location.artifact_location.uri
            assert uri.endswith(finding["file"].split("/")[-1]) or finding["file"].startswith("/"), (uri, finding["file"])
            assert location.region.start_line == finding["line"], (location.region.start_line, finding)
            raw = document["runs"][0]["results"][results.index(result)]
            assert raw["properties"]["session_id"] == finding["session_id"]
            assert raw["partialFingerprints"]["navreplayFinding/v1"].startswith("nr1-")
        print("results:", len(results))
        """#

    @Test func githubAnnotationsAreOneCommandALineAndDecodeToTheFindings() throws {
        let scratch = try TemporaryDirectory()
        let hostile = try scratch.write("hostile.ndjson", Self.hostileLog())
        let result = try navreplay(["audit", "--quiet", "--format", "github", "SampleLogs/violations", hostile])
        #expect(result.status == 1)
        let expected = try ndjsonFindings(["SampleLogs/violations", hostile])
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == expected.count)
        for (line, finding) in zip(lines, expected) {
            let command = try #require(WorkflowCommand(String(line)), "not a workflow command: \(line)")
            #expect(command.name == ((finding["severity"] as? String) == "error" ? "error" : "warning"))
            #expect(command.properties["file"] == finding["file"] as? String)
            #expect(command.properties["line"] == (finding["line"] as? Int).map(String.init))
            #expect(command.properties["title"] == finding["rule"] as? String)
            #expect(command.message.hasPrefix((finding["message"] as? String ?? "").replacingOccurrences(of: "\u{1B}", with: "\\u{1b}")))
            if let session = finding["session_id"] as? String {
                #expect(command.message.contains("\nsession \(session)"))
            }
        }
        #expect(result.stdout.contains("%0Asession </script>\"><img src=x onerror=alert(1)>]]>%250A::error::x,y:z, seq 1"))
    }

    @Test func aFileNameIsEscapedAsAProperty() throws {
        let scratch = try TemporaryDirectory()
        let path = try scratch.write("x.ndjson", #"{"schema_version":2}"# + "\n")
        let directory = try scratch.write("a:b,c%d\ne", "")
        try FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let renamed = directory + "/x.ndjson"
        try FileManager.default.moveItem(atPath: path, toPath: renamed)
        let result = try navreplay(["validate", "--quiet", "--format", "github", renamed])
        #expect(result.status == 1)
        #expect(result.stdout.contains("a%3Ab%2Cc%25d%0Ae/x.ndjson,line=1,title=schema.invalid::"), "\(result.stdout)")
        let command = try #require(WorkflowCommand(String(result.stdout.dropLast())))
        #expect(command.properties["file"] == renamed)
    }

    @Test func aBaselineAcceptsKnownFindingsAndFailsOnlyOnNewOnes() throws {
        let scratch = try TemporaryDirectory()
        let baseline = scratch.url.appendingPathComponent("baseline.json").path
        let first = try navreplay([
            "audit", "--quiet", "--format", "ndjson", "--write-baseline", baseline, "SampleLogs/clean", "SampleLogs/violations",
        ])
        #expect(first.status == 1)
        let entries = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: baseline))) as? [String: Any])
        #expect((entries["findings"] as? [Any])?.count == 28)

        let accepted = try navreplay(["audit", "--format", "ndjson", "--baseline", baseline, "SampleLogs/clean", "SampleLogs/violations"])
        #expect(accepted.status == 0)
        #expect(accepted.stdout == "")
        #expect(accepted.stderr.contains("baseline: 28 accepted, 0 new, 0 no longer found"))

        // A new broken session in a new file: only its findings are printed, and they fail the run.
        let hostile = try scratch.write("new.ndjson", Self.hostileLog())
        let withNew = try navreplay([
            "audit", "--format", "ndjson", "--baseline", baseline, "SampleLogs/clean", "SampleLogs/violations", hostile,
        ])
        #expect(withNew.status == 1)
        let printed = withNew.stdout.split(separator: "\n")
        #expect(printed.count == 2)
        #expect(printed.allSatisfy { $0.contains(hostile) })
        #expect(withNew.stderr.contains("baseline: 28 accepted, 2 new"))

        // SARIF keeps every result and marks which are new.
        let sarif = try navreplay([
            "audit", "--quiet", "--format", "sarif", "--baseline", baseline, "SampleLogs/clean", "SampleLogs/violations", hostile,
        ])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(sarif.stdout.utf8)) as? [String: Any])
        let results = try #require(((document["runs"] as? [[String: Any]])?.first?["results"]) as? [[String: Any]])
        #expect(results.filter { $0["baselineState"] as? String == "new" }.count == 2)
        #expect(results.filter { $0["baselineState"] as? String == "unchanged" }.count == 28)
        #expect(results.filter { $0["suppressions"] != nil }.count == 28)

        // A baseline that is not one is a usage error.
        let bad = try scratch.write("bad.json", "[]")
        #expect(try navreplay(["audit", "--quiet", "--baseline", bad, "SampleLogs/clean", "SampleLogs/violations"]).status == 2)
    }
}

/// A GitHub Actions workflow command, parsed and unescaped: `::name k=v,k=v::message`.
struct WorkflowCommand {
    var name: String
    var properties: [String: String] = [:]
    var message: String

    init?(_ line: String) {
        guard line.hasPrefix("::"), !line.contains("\n"), !line.contains("\r") else { return nil }
        let body = line.dropFirst(2)
        guard let end = body.range(of: "::") else { return nil }
        let head = body[..<end.lowerBound]
        message = Self.unescape(String(body[end.upperBound...]))
        let parts = head.split(separator: " ", maxSplits: 1)
        guard let first = parts.first else { return nil }
        name = String(first)
        if parts.count == 2 {
            for pair in parts[1].split(separator: ",") {
                let keyValue = pair.split(separator: "=", maxSplits: 1)
                guard keyValue.count == 2 else { return nil }
                properties[String(keyValue[0])] = Self.unescape(String(keyValue[1]))
            }
        }
    }

    static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "%0D", with: "\r").replacingOccurrences(of: "%0A", with: "\n")
            .replacingOccurrences(of: "%3A", with: ":").replacingOccurrences(of: "%2C", with: ",")
            .replacingOccurrences(of: "%25", with: "%")
    }
}

/// Runs `python3 -c script arguments…`.
func python(_ script: String, arguments: [String]) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script] + arguments
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let out = output.fileHandleForReading.readDataToEndOfFile()
    let err = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessResult(
        status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
        stderr: String(decoding: err, as: UTF8.self))
}
