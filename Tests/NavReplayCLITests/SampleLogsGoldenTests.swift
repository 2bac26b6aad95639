import Foundation
import NavInput
import NavEngine
import NavSamples
import NavTestSupport
import Testing

/// `SampleLogs/` is what the router-driven scenarios write, and auditing it gives exactly the
/// golden outputs in `SampleLogs/expected/`.
@Suite struct SampleLogsGoldenTests {
    @Test func sampleLogsAreWhatTheScenariosWrite() throws {
        for file in try SampleLogs.pocFiles() {
            let path = Repository.path("SampleLogs/" + file.path)
            if file.path.hasSuffix(".gz") {
                // Compare the text: another zlib may compress the same text to other bytes.
                var onDisk: [UInt8] = []
                try LineReader().readLines(of: path) { onDisk += Array($0.bytes) + [0x0A] }
                let scratch = try TemporaryDirectory()
                let fresh = try scratch.write("fresh.ndjson.gz", bytes: file.bytes)
                var regenerated: [UInt8] = []
                try LineReader().readLines(of: fresh) { regenerated += Array($0.bytes) + [0x0A] }
                let upToDate = onDisk == regenerated  // compared outside #expect: a diff of bytes is unreadable
                #expect(upToDate, "\(file.path) is stale: run scripts/regenerate-samples")
            } else {
                let onDisk = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
                let upToDate = onDisk == file.bytes
                #expect(upToDate, "\(file.path) is stale: run scripts/regenerate-samples")
            }
        }
    }

    @Test func auditOfSampleLogsMatchesTheGoldenFindings() throws {
        let result = try navreplay(["audit", "--quiet", "--format", "ndjson", "SampleLogs"])
        #expect(result.status == 1)
        let golden = try String(contentsOfFile: Repository.path("SampleLogs/expected/audit.jsonl"), encoding: .utf8)
        #expect(result.stdout == golden)
    }

    @Test func sessionsOfSampleLogsMatchTheGoldenRecords() throws {
        let result = try navreplay(["sessions", "--quiet", "--format", "ndjson", "SampleLogs"])
        let golden = try String(contentsOfFile: Repository.path("SampleLogs/expected/sessions.jsonl"), encoding: .utf8)
        #expect(result.stdout == golden)
    }

    @Test func summaryOfSampleLogsMatchesAndBalances() throws {
        let scratch = try TemporaryDirectory()
        let summaryPath = scratch.url.appendingPathComponent("summary.json").path
        _ = try navreplay(["audit", "--quiet", "--format", "ndjson", "--summary", summaryPath, "SampleLogs"])
        let summary = try String(contentsOfFile: summaryPath, encoding: .utf8)
        let golden = try String(contentsOfFile: Repository.path("SampleLogs/expected/summary.json"), encoding: .utf8)
        #expect(summary == golden)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(summary.utf8)) as? [String: Any])
        let count = { (key: String) in (object[key] as? Int) ?? -1 }
        #expect(
            count("lines") == count("blank_lines") + count("invalid_lines") + count("redeliveries") + count("duplicates") + count("events"))
    }

    @Test func everyContractRuleAppearsInTheSamples() throws {
        let golden = try String(contentsOfFile: Repository.path("SampleLogs/expected/audit.jsonl"), encoding: .utf8)
        let rules = Set(
            golden.split(separator: "\n").compactMap { line -> String? in
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                return object?["rule"] as? String
            })
        let contract = [
            "schema.invalid", "seq.duplicate", "event_id.conflict", "seq.gap", "session.no_start", "clock.regression",
            "state.mismatch", "stack.not_owned", "stack.unknown", "flow.unknown", "flow.without_command", "command.unknown",
            "command.postcondition", "route.unknown", "route.singleton", "stack.out_of_range", "tab.invalid",
            "modal.not_allowed", "modal.not_presented", "modal.already_presented", "screen.not_visible", "analytics.duplicate",
        ]
        #expect(Set(contract).subtracting(rules).isEmpty, "missing: \(Set(contract).subtracting(rules).sorted())")
    }

    @Test func cleanSamplesHaveNoFindingsAndExitZero() throws {
        let result = try navreplay(["audit", "SampleLogs/clean"])
        #expect(result.status == 0)
        #expect(result.stdout == "no findings\n")
        #expect(result.stderr.contains("4 session(s)"))
    }

    @Test func fileOrderDoesNotChangeTheOutput() throws {
        let files = [
            "SampleLogs/violations/app-2026-11-20-broken.ndjson", "SampleLogs/clean/app-2026-11-20-upload2.ndjson.gz",
            "SampleLogs/clean/app-2026-11-20-upload1.ndjson",
        ]
        let forward = try navreplay(["audit", "--quiet", "--format", "ndjson"] + files)
        let backward = try navreplay(["audit", "--quiet", "--format", "ndjson", "--jobs", "1"] + files.reversed())
        #expect(forward.stdout == backward.stdout)
        #expect(!forward.stdout.isEmpty)
    }
}
