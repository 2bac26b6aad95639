import NavEvents
import NavJSON
import NavModel
import NavReplay
import NavInput
public import NavResults

/// JUnit XML, the test report that CI systems render (Jenkins, GitLab, Azure, CircleCI,
/// Buildkite, GitHub test-report actions).
///
/// One `<testsuite>` per input file, named by its path. Each finding located in the file is a
/// failing `<testcase>` (`<failure type="rule" message="…">` with the severity, session, seq,
/// event, witness and the rule's explanation in its text); a file without findings has one
/// passing test case; a file that could not be read completely has an `<error>` test case.
/// Findings without a location (none today) go to a suite named `navreplay`.
///
/// Every finding is a failure whatever its severity: JUnit has no warnings. The exit status, not
/// the report, follows `--fail-on`; the severity is in the test case's name and failure text.
public enum JUnitWriter {
    /// - Parameters:
    ///   - passingName: the name of the passing test case of a clean file.
    public static func xml(_ run: AuditRun, passingName: String = "no findings") -> [UInt8] {
        var byFile: [Int32: [Finding]] = [:]
        var unlocated: [Finding] = []
        for finding in run.findings {
            if let location = finding.location, location.file >= 0, Int(location.file) < run.files.count {
                byFile[location.file, default: []].append(finding)
            } else {
                unlocated.append(finding)
            }
        }
        var errorByPath: [String: InputError] = [:]
        for report in run.fileReports { if let error = report.error { errorByPath[report.path] = error } }

        var suites: [String] = []
        var totals = (tests: 0, failures: 0, errors: 0)
        func suite(name: String, findings: [Finding], error: InputError?) {
            var cases: [String] = []
            for finding in findings { cases.append(testCase(finding, suite: name, files: run.files)) }
            if let error {
                cases.append(
                    "    <testcase name=\"file can be read\" classname=\"\(Markup.text(name, attribute: true))\">\n"
                        + "      <error type=\"\(error.code.rawValue)\" message=\"\(Markup.text(error.message, attribute: true))\">"
                        + Markup.text(error.description) + "</error>\n    </testcase>")
            }
            if findings.isEmpty && error == nil {
                cases.append(
                    "    <testcase name=\"\(Markup.escape(passingName, attribute: true))\" classname=\"\(Markup.text(name, attribute: true))\"/>"
                )
            }
            let errors = error == nil ? 0 : 1
            totals.tests += cases.count
            totals.failures += findings.count
            totals.errors += errors
            suites.append(
                "  <testsuite name=\"\(Markup.text(name, attribute: true))\" tests=\"\(cases.count)\" failures=\"\(findings.count)\" "
                    + "errors=\"\(errors)\" skipped=\"0\">\n" + cases.map { $0 + "\n" }.joined() + "  </testsuite>")
        }
        for (index, path) in run.files.enumerated() {
            suite(name: path, findings: byFile[Int32(index)] ?? [], error: errorByPath[path])
        }
        if !unlocated.isEmpty { suite(name: "navreplay", findings: unlocated, error: nil) }

        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites name=\"navreplay\" tests=\"\(totals.tests)\" failures=\"\(totals.failures)\" errors=\"\(totals.errors)\">\n"
        xml += suites.map { $0 + "\n" }.joined()
        xml += "</testsuites>\n"
        return Array(xml.utf8)
    }

    static func testCase(_ finding: Finding, suite: String, files: [String]) -> String {
        var name = "\(finding.severity.rawValue) \(finding.rule.rawValue)"
        if let line = finding.location?.line { name += " at line \(line)" }
        if let session = finding.sessionID { name += ", session \(session)" }
        if let seq = finding.seq { name += " seq \(seq)" }

        var details: [String] = []
        details.append("\(finding.severity.rawValue) \(finding.rule.rawValue) at \(TextWriter.location(finding.location, files))")
        if let session = finding.sessionID {
            var line = "session \(safe(session))"
            if let seq = finding.seq { line += ", seq \(seq)" }
            if let event = finding.eventID { line += ", event \(safe(event))" }
            if let name = finding.eventName { line += " (\(name.rawValue))" }
            details.append(line)
        }
        details.append(safe(finding.message))
        if let expected = finding.expected { details.append("expected: " + safe(jsonText(expected))) }
        if let found = finding.found { details.append("found: " + safe(jsonText(found))) }
        if let witness = finding.witness {
            details.append("witness: seq \(witness.seq) \(witness.name.rawValue) at \(TextWriter.location(witness.location, files))")
        }
        if finding.afterGap { details.append("after a seq gap: the lost events may explain it") }
        details.append("why: " + finding.rule.explanation)

        return "    <testcase name=\"\(Markup.text(name, attribute: true))\" classname=\"\(Markup.text(suite, attribute: true))\">\n"
            + "      <failure type=\"\(finding.rule.rawValue)\" message=\"\(Markup.text(finding.message, attribute: true))\">"
            + Markup.escape(details.joined(separator: "\n")) + "</failure>\n    </testcase>"
    }

    static func jsonText(_ value: JSONValue) -> String {
        var writer = JSONWriter()
        writer.value(value)
        return writer.string
    }
}
