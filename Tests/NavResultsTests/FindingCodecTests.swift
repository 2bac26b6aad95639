import Foundation
import NavEvents
import NavJSON
import NavResults
import NavEngine
import NavModel
import NavReplay
import NavReport
import NavTestSupport
import Testing

@Suite("Findings as bytes and back")
struct FindingCodecTests {
    /// Every finding of the sample logs, with the states `--explain` shows, under the PoC model
    /// with deep links (so command postconditions with their expected and found objects).
    static func sampleFindings() throws -> [Finding] {
        let paths = try ["SampleLogs/violations", "SampleLogs/clean"].flatMap { directory in
            try FileManager.default.contentsOfDirectory(atPath: Repository.path(directory)).sorted()
                .filter { $0.hasSuffix(".ndjson") }.map { Repository.path(directory) + "/" + $0 }
        }
        var configuration = AuditConfiguration(model: .pocWithDeepLinks, jobs: 1)
        configuration.sessionOptions = SessionAuditOptions(keepStates: true)
        let run = try AuditEngine(configuration: configuration).run(paths: paths)
        return run.findings
    }

    /// What a finding holds, every field but its states (a dictionary's description has no
    /// fixed order), for comparison.
    static func fields(_ finding: Finding) -> String {
        "\(finding.rule) \(String(describing: finding.sessionID)) \(String(describing: finding.seq)) "
            + "\(String(describing: finding.eventID)) \(String(describing: finding.location)) \(finding.message) "
            + "\(String(describing: finding.expected)) \(String(describing: finding.found)) \(finding.afterGap) "
            + "\(String(describing: finding.witness)) \(String(describing: finding.eventName))"
    }

    @Test func everySampleFindingComesBackWhole() throws {
        let findings = try Self.sampleFindings()
        try #require(findings.count > 20)
        #expect(findings.contains { $0.stateBefore != nil && $0.witness != nil && $0.expected != nil })
        #expect(findings.contains { $0.sessionID == nil && $0.location != nil })  // a schema.invalid line
        // One session's findings at a time, concatenated, as the output stream delivers them.
        let bytes = FindingCodec.encode(Array(findings[..<20])) + FindingCodec.encode(Array(findings[20...]))
        let decoded = try FindingCodec.decode(bytes)
        #expect(decoded.map(Self.fields) == findings.map(Self.fields))
        #expect(decoded.map { $0.expected } == findings.map { $0.expected })
        #expect(decoded.map { $0.stateBefore } == findings.map { $0.stateBefore })
        #expect(decoded.map { $0.stateAfter } == findings.map { $0.stateAfter })
    }

    @Test func oddValuesComeBackWhole() throws {
        var finding = Finding(
            rule: .stateMismatch, sessionID: "s\u{0}é\u{1F600}", seq: Int64.min, eventID: "",
            location: LineLocation(file: Int32.max, line: Int64.max),
            message: String(repeating: "m", count: 200),
            expected: .object(
                JSONObject([("a", .array([.null, .bool(true), .bool(false), .number("-1.5e3")])), ("", .object(JSONObject()))])),
            found: .string("\n\"\\"), witness: EventReference(seq: -1, eventID: "w", name: .deepLink, location: nil), eventName: .routePush)
        finding.afterGap = true
        finding.stateBefore = NavigationState(flow: "f", tab: nil, stacks: ["b": [], "a": ["x", "y"]], modals: ["m"])
        let decoded = try FindingCodec.decode(FindingCodec.encode([finding]))
        #expect(decoded.map(Self.fields) == [Self.fields(finding)])
        #expect(decoded.map(\.stateBefore) == [finding.stateBefore] && decoded.map(\.stateAfter) == [nil])
        #expect(FindingCodec.encode([]).isEmpty)
        #expect(try FindingCodec.decode([]).isEmpty)
    }

    @Test func damagedBytesAreAnErrorAtEveryCut() throws {
        let bytes = FindingCodec.encode(Array(try Self.sampleFindings().prefix(8)))
        for end in 1..<bytes.count {
            #expect(throws: FindingCodecError.self) { try FindingCodec.decode(Array(bytes[..<end])) }
        }
        var flipped = bytes
        flipped[0] = 0xFF  // a count past what is left
        #expect(throws: FindingCodecError.self) { try FindingCodec.decode(flipped) }
    }
}
