import Foundation
import NavTestSupport
import Testing

/// The store's readers count what an audit of the same logs counts (issue 46, items 4 and 9).
@Suite struct StoreReadersTests {
    /// `report --store`'s summary is `audit --store`'s, and both are the audit's of the logs:
    /// the same lines, invalid lines (the store holds them), findings and input bytes.
    @Test func reportAndAuditOfAStoreCountAsTheAuditOfItsLogs() throws {
        let scratch = try TemporaryDirectory()
        let log = try scratch.write(
            "v.ndjson",
            try String(contentsOfFile: Repository.path("SampleLogs/violations/app-2026-11-20-broken.ndjson"), encoding: .utf8))
        let store = scratch.path("s.db")
        let ingest = try navreplay(["ingest", "--store", store, "--close-all", "--fail-on", "never", "--quiet", log])
        #expect(ingest.status == 0, "\(ingest.stderr)")
        var summaries: [String: String] = [:]
        for (name, arguments) in [
            ("report", ["report", "--store", store, "--output", scratch.path("r.html")]),
            ("audit --store", ["audit", "--store", store, "--output", "/dev/null"]),
            ("audit", ["audit", "--output", "/dev/null", log]),
        ] {
            let summary = scratch.path("summary-\(summaries.count).json")
            let result = try navreplay(arguments + ["--summary", summary, "--quiet", "--fail-on", "never"])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            summaries[name] = try String(contentsOfFile: summary, encoding: .utf8)
        }
        #expect(summaries["audit"]?.contains("\"invalid_lines\":4") == true, "\(summaries["audit"] ?? "")")
        #expect(summaries["report"] == summaries["audit"], "report --store: \(summaries["report"] ?? "")")
        #expect(summaries["audit --store"] == summaries["audit"], "audit --store: \(summaries["audit --store"] ?? "")")
    }
}
