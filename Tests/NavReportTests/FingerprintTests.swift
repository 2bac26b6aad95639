import Foundation
import NavEvents
import NavResults
import NavEngine
import NavReplay
import NavReport
import NavTestSupport
import Testing

/// Fingerprints name a finding by what it is, so that a baseline survives unrelated log changes.
@Suite struct FingerprintTests {
    /// Fingerprints by a readable key (rule, session, seq), for comparing two runs.
    func fingerprints(_ run: AuditRun) -> [String: String] {
        var result: [String: String] = [:]
        for (finding, fingerprint) in zip(run.findings, FindingFingerprint.compute(run)) {
            let key = "\(finding.rule.rawValue) \(finding.sessionID ?? "-") \(finding.seq.map(String.init) ?? finding.message)"
            result[key] = fingerprint
        }
        return result
    }

    static let invalidLine = #"{"schema_version":1,"event_id":"x","event_name":"route_teleport"}"#

    @Test func unrelatedChangesKeepEveryFingerprint() throws {
        let directory = try TemporaryDirectory()
        let a = try directory.write("a.ndjson", ndjson(Sessions.broken()) + Self.invalidLine + "\n")
        let before = fingerprints(try audit([a]))
        #expect(before.count == 3)  // schema.invalid, seq.gap, state.mismatch

        // Other sessions and blank lines before, the lines of the broken session shuffled, the
        // invalid line moved, and a second file that sorts first.
        let other = try directory.write("0-other.ndjson", ndjson(Sessions.clean("s-other")) + "\n")
        let broken = ndjson(Sessions.broken()).split(separator: "\n").map(String.init)
        let shuffled = [broken[3], broken[0], broken[2], broken[1]]
        let moved = directory.url.appendingPathComponent("b.ndjson").path
        try Data(
            ("\n" + ndjson(Sessions.clean()) + Self.invalidLine + "\n" + shuffled.joined(separator: "\n") + "\n").utf8
        ).write(to: URL(fileURLWithPath: moved))
        let after = fingerprints(try audit([moved, other]))
        #expect(after == before)

        // The same logs given in the other order.
        #expect(fingerprints(try audit([other, moved])) == before)
    }

    /// Baselines written by earlier versions must still match: the fingerprints of these
    /// findings are pinned, so a change to how they are hashed cannot go unnoticed.
    @Test func fingerprintsAreTheSameInEveryVersion() throws {
        let directory = try TemporaryDirectory()
        let a = try directory.write("a.ndjson", ndjson(Sessions.broken()) + Self.invalidLine + "\n")
        let found = fingerprints(try audit([a]))
        #expect(found.count == 3)
        #expect(found["seq.gap s-broken 4"] == "nr1-5287b6033c7afdb2")
        #expect(found["state.mismatch s-broken 4"] == "nr1-bf219cbf985e6ed8")
        // A line that is not an event: named by a hash of its bytes.
        #expect(found.first { $0.key.hasPrefix("schema.invalid") }?.value == "nr1-69ce6a7b03bfc690")
    }

    @Test func differentFindingsHaveDifferentFingerprints() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(
            "a.ndjson",
            ndjson(Sessions.broken("s-1")) + ndjson(Sessions.broken("s-2")) + Self.invalidLine + "\n"
                + Self.invalidLine.replacingOccurrences(of: "\"x\"", with: "\"y\"") + "\n")
        let run = try audit([path])
        let all = FindingFingerprint.compute(run)
        #expect(all.count == 6)
        #expect(Set(all).count == all.count)
        #expect(all.allSatisfy { $0.hasPrefix("nr1-") && $0.count == 20 })
    }

    @Test func identicalInvalidLinesAreCountedApart() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("a.ndjson", Self.invalidLine + "\n" + Self.invalidLine + "\n")
        let all = FindingFingerprint.compute(try audit([path]))
        #expect(all.count == 2)
        #expect(all[0] != all[1])
    }

    @Test func aBaselineAcceptsKnownFindingsAndReportsNewOnes() throws {
        let directory = try TemporaryDirectory()
        let first = try directory.write("a.ndjson", ndjson(Sessions.broken("s-1")))
        let known = try audit([first])
        let knownPrints = FindingFingerprint.compute(known)
        let file = Baseline.json(known, fingerprints: knownPrints)
        let baseline = try Baseline(json: file)
        #expect(baseline.fingerprints == Set(knownPrints))

        // The next night: the same session, plus a new broken session.
        let second = try directory.write("b.ndjson", ndjson(Sessions.broken("s-2")))
        let run = try audit([first, second])
        let comparison = baseline.compare(run, fingerprints: FindingFingerprint.compute(run))
        #expect(comparison.acceptedCount == 2)
        #expect(comparison.fixed == 0)
        #expect(comparison.newFindings.findings.map(\.sessionID) == ["s-2", "s-2"])
        #expect(comparison.newFindings.counts.findings == 2)
        #expect(comparison.newFindings.counts.findingsByRule[.stateMismatch] == 1)

        // The night after: s-1 is gone (fixed), s-2 remains new.
        let later = try audit([second])
        let again = baseline.compare(later, fingerprints: FindingFingerprint.compute(later))
        #expect(again.acceptedCount == 0)
        #expect(again.fixed == 2)
    }

    @Test(arguments: [
        ("", "is not JSON"),
        (#"{"findings":[]}"#, "not a navreplay baseline"),
        (#"{"navreplay_baseline":1}"#, "no \"findings\" array"),
        (#"{"navreplay_baseline":1,"findings":[{"rule":"x"}]}"#, "$.findings[0]"),
    ])
    func aBadBaselineSaysWhy(text: String, reason: String) {
        #expect {
            _ = try Baseline(json: Array(text.utf8))
        } throws: { error in
            "\(error)".contains(reason)
        }
    }
}
