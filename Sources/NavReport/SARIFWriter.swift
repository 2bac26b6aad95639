import NavEvents
import NavJSON
import NavModel
import NavReplay
public import NavResults
import NavInput

/// SARIF 2.1.0 (OASIS), the format code-scanning services read (GitHub code scanning, Azure
/// DevOps, SonarQube, VS Code's SARIF viewer).
///
/// One run of the `navreplay` driver with one reporting descriptor per rule (`Rule.allCases`:
/// id, name, summary, explanation, default level). Each finding is a result at its file and line
/// (`region.startLine`), with the witness as a related location, the session, seq and event in
/// `properties`, and its stable fingerprint (`FindingFingerprint`) in `fingerprints` and
/// `partialFingerprints`. Findings of unreadable lines are results too. With a baseline, every
/// finding is written: new ones with `baselineState: "new"`, accepted ones `"unchanged"` and
/// suppressed (`kind: "external"`), so a code-scanning service keeps them but does not alert.
public enum SARIFWriter {
    public static let schemaURI = "https://json.schemastore.org/sarif-2.1.0.json"
    public static let fingerprintKey = "navreplayFinding/v1"

    /// - Parameters:
    ///   - fingerprints: `FindingFingerprint.compute(run)`.
    ///   - accepted: for each finding, whether a baseline accepts it; `nil` without a baseline.
    ///   - toolVersion: the `navreplay` version.
    public static func json(
        _ run: AuditRun, fingerprints: [String], accepted: [Bool]? = nil, toolVersion: String
    ) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.member("$schema", schemaURI)
        writer.member("version", "2.1.0")
        writer.key("runs")
        writer.beginArray()
        writer.beginObject()

        writer.key("tool")
        writer.beginObject()
        writer.key("driver")
        writer.beginObject()
        writer.member("name", "navreplay")
        writer.member("semanticVersion", toolVersion)
        writer.member("version", toolVersion)
        writer.key("rules")
        writer.beginArray()
        for rule in Rule.allCases { writeDescriptor(rule, to: &writer) }
        writer.endArray()
        writer.endObject()
        writer.endObject()

        writer.key("invocations")
        writer.beginArray()
        writer.beginObject()
        writer.member("executionSuccessful", run.inputErrors.isEmpty)
        writer.key("toolExecutionNotifications")
        writer.beginArray()
        for report in run.fileReports {
            guard let error = report.error else { continue }
            writer.beginObject()
            writer.member("level", "error")
            writer.key("message")
            writer.beginObject()
            writer.member("text", safe(error.description))
            writer.endObject()
            writer.key("locations")
            writer.beginArray()
            writer.beginObject()
            writer.key("physicalLocation")
            writer.beginObject()
            writer.key("artifactLocation")
            writeArtifact(report.path, index: run.files.firstIndex(of: report.path), to: &writer)
            writer.endObject()
            writer.endObject()
            writer.endArray()
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        writer.endArray()

        writer.key("artifacts")
        writer.beginArray()
        for report in run.fileReports {
            writer.beginObject()
            writer.key("location")
            writeArtifact(report.path, index: nil, to: &writer)
            writer.member("length", report.bytes)
            writer.endObject()
        }
        writer.endArray()

        writer.key("results")
        writer.beginArray()
        for (index, finding) in run.findings.enumerated() {
            let fingerprint = index < fingerprints.count ? fingerprints[index] : nil
            let isAccepted = accepted.map { index < $0.count && $0[index] }
            writeResult(finding, files: run.files, fingerprint: fingerprint, accepted: isAccepted, to: &writer)
        }
        writer.endArray()
        writer.member("columnKind", "unicodeCodePoints")
        writer.endObject()
        writer.endArray()
        writer.endObject()
        var bytes = writer.bytes
        bytes.append(0x0A)
        return bytes
    }

    static func level(_ severity: Severity) -> String {
        switch severity {
        case .error: "error"
        case .warning: "warning"
        }
    }

    /// `state.mismatch` → `StateMismatch`: the opaque, readable name SARIF asks for.
    static func name(_ rule: Rule) -> String {
        rule.rawValue.split(whereSeparator: { $0 == "." || $0 == "_" })
            .map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    static func writeDescriptor(_ rule: Rule, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("id", rule.rawValue)
        writer.member("name", name(rule))
        writer.key("shortDescription")
        writer.beginObject()
        writer.member("text", rule.summary)
        writer.endObject()
        writer.key("fullDescription")
        writer.beginObject()
        writer.member("text", rule.explanation)
        writer.endObject()
        writer.key("help")
        writer.beginObject()
        writer.member("text", rule.summary + " " + rule.explanation)
        writer.endObject()
        writer.key("defaultConfiguration")
        writer.beginObject()
        writer.member("level", level(rule.severity))
        writer.endObject()
        writer.key("properties")
        writer.beginObject()
        writer.key("tags")
        writer.beginArray()
        writer.string("navigation")
        writer.string(rule == .schemaInvalid ? "schema" : "invariant")
        writer.endArray()
        writer.endObject()
        writer.endObject()
    }

    static func writeResult(
        _ finding: Finding, files: [String], fingerprint: String?, accepted: Bool?, to writer: inout JSONWriter
    ) {
        writer.beginObject()
        writer.member("ruleId", finding.rule.rawValue)
        writer.member("ruleIndex", Rule.allCases.firstIndex(of: finding.rule) ?? 0)
        writer.member("level", level(finding.severity))
        writer.key("message")
        writer.beginObject()
        var text = safe(finding.message)
        if let session = finding.sessionID {
            text += " (session \(safe(session))" + (finding.seq.map { ", seq \($0)" } ?? "") + ")"
        }
        writer.member("text", text)
        writer.endObject()
        if let location = finding.location, let path = FindingWriter.path(location, files) {
            writer.key("locations")
            writer.beginArray()
            writeLocation(path: path, fileIndex: Int(location.file), line: location.line, id: nil, message: nil, to: &writer)
            writer.endArray()
        }
        if let witness = finding.witness, let location = witness.location, let path = FindingWriter.path(location, files) {
            writer.key("relatedLocations")
            writer.beginArray()
            writeLocation(
                path: path, fileIndex: Int(location.file), line: location.line, id: 1,
                message: "witness: seq \(witness.seq) \(witness.name.rawValue) (event \(safe(witness.eventID)))", to: &writer)
            writer.endArray()
        }
        if let fingerprint {
            writer.key("fingerprints")
            writer.beginObject()
            writer.member(fingerprintKey, fingerprint)
            writer.endObject()
            writer.key("partialFingerprints")
            writer.beginObject()
            writer.member(fingerprintKey, fingerprint)
            writer.endObject()
        }
        if let accepted {
            writer.member("baselineState", accepted ? "unchanged" : "new")
            if accepted {
                writer.key("suppressions")
                writer.beginArray()
                writer.beginObject()
                writer.member("kind", "external")
                writer.member("status", "accepted")
                writer.member("justification", "accepted in the navreplay baseline")
                writer.endObject()
                writer.endArray()
            }
        }
        writer.key("properties")
        writer.beginObject()
        writer.member("severity", finding.severity.rawValue)
        writer.member("session_id", finding.sessionID)
        writer.key("seq")
        if let seq = finding.seq { writer.int(seq) } else { writer.null() }
        writer.member("event_id", finding.eventID)
        if let name = finding.eventName { writer.member("event_name", name.rawValue) }
        if let expected = finding.expected {
            writer.key("expected")
            writer.value(expected)
        }
        if let found = finding.found {
            writer.key("found")
            writer.value(found)
        }
        writer.member("after_gap", finding.afterGap)
        writer.endObject()
        writer.endObject()
    }

    static func writeLocation(
        path: String, fileIndex: Int, line: Int64, id: Int?, message: String?, to writer: inout JSONWriter
    ) {
        writer.beginObject()
        if let id { writer.member("id", id) }
        writer.key("physicalLocation")
        writer.beginObject()
        writer.key("artifactLocation")
        writeArtifact(path, index: fileIndex, to: &writer)
        writer.key("region")
        writer.beginObject()
        writer.member("startLine", max(1, line))
        writer.endObject()
        writer.endObject()
        if let message {
            writer.key("message")
            writer.beginObject()
            writer.member("text", message)
            writer.endObject()
        }
        writer.endObject()
    }

    static func writeArtifact(_ path: String, index: Int?, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("uri", uri(path))
        if let index { writer.member("index", index) }
        writer.endObject()
    }

    /// A path as a URI reference: relative paths stay relative (code scanning resolves them
    /// against the repository root), absolute ones become `file://` URIs; every byte outside
    /// RFC 3986's unreserved set and `/` is percent-encoded.
    static func uri(_ path: String) -> String {
        var encoded = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: "/"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                encoded += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return path.hasPrefix("/") ? "file://" + encoded : encoded
    }
}
