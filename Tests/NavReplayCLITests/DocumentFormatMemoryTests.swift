import Foundation
import NavTestSupport
import Testing

/// `audit --format json` (and `junit`, `sarif`, `github`, or any format with a baseline) writes
/// one document, so it needs every finding before it writes; it kept each session's whole audit
/// instead, about 1.7 KB a session, findings or not: 800,000 clean sessions peaked at 1.2 GB with
/// `--memory-limit 128M`. Now a clean session leaves nothing behind.
@Suite("Document formats hold findings, not sessions")
struct DocumentFormatMemoryTests {
    /// 40,000 sessions of one clean `session_start` each (about 8 MB).
    static func cleanSessions(in scratch: TemporaryDirectory) throws -> String {
        var text = ""
        text.reserveCapacity(9_000_000)
        for index in 0..<40_000 {
            text +=
                #"{"schema_version":1,"event_id":"e\#(index)","event_name":"session_start","session_id":"s\#(index)","seq":0,"timestamp":"2026-11-20T10:00:00Z","correlation_id":"c\#(index)","app_version":"1"}"#
            text += "\n"
        }
        return try scratch.write("clean.ndjson", text)
    }

    @Test(.enabled(if: Repository.measuresMemory, "peak memory means nothing under a sanitizer"))
    func aDocumentFormatHoldsNothingOfACleanSession() throws {
        let scratch = try TemporaryDirectory()
        let path = try Self.cleanSessions(in: scratch)
        let summary = scratch.path("summary.json")
        // A limit the input does not fit in, so that its sessions are partitioned and fold
        // apart (held in memory, the decoded lines' own peak hid the audits kept).
        let streamed = try navreplayChild(["audit", "--format", "ndjson", "--jobs", "1", "--memory-limit", "16M", path])
        #expect(streamed.exitStatus == 0, "\(streamed.stderrText)")
        for format in ["json", "sarif"] {
            let document = try navreplayChild(
                ["audit", "--format", format, "--jobs", "1", "--memory-limit", "16M", "--summary", summary, path])
            #expect(document.exitStatus == 0, "\(document.stderrText)")
            let counts = try Summary(path: summary)
            #expect(counts["sessions"] == 40_000 && counts["findings"] == 0, "\(counts.counts)")
            // Held whole, the sessions' audits added some 54 MB to the streamed run's peak
            // (release build: 88 MB against 34 MB).
            let extra = (document.peakRSSBytes - streamed.peakRSSBytes) / 1_048_576
            #expect(extra < 24, "--format \(format) peaked \(extra) MB above --format ndjson")
        }
    }

    @Test(.enabled(if: Repository.measuresMemory, "peak memory means nothing under a sanitizer"))
    func sessionsAsOneJSONArrayOrTextAreWrittenAsTheyFold() throws {
        let scratch = try TemporaryDirectory()
        let path = try Self.cleanSessions(in: scratch)
        let streamed = try navreplayChild(["sessions", "--format", "ndjson", "--jobs", "1", "--memory-limit", "16M", path])
        #expect(streamed.exitStatus == 0, "\(streamed.stderrText)")
        let records = streamed.stdoutText.split(separator: "\n")
        for format in ["json", "text"] {
            let whole = try navreplayChild(["sessions", "--format", format, "--jobs", "1", "--memory-limit", "16M", path])
            #expect(whole.exitStatus == 0, "\(whole.stderrText)")
            if format == "json" {
                // The same records as the NDJSON lines, in one array.
                #expect(whole.stdoutText == "[" + records.joined(separator: ",") + "]\n")
            } else {
                #expect(whole.stdoutText.split(separator: "\n").count == 3 * records.count)
            }
            // Held whole, the sessions' audits added some 60 MB (release build: 566 MB against
            // 91 MB for 200,000 sessions).
            let extra = (whole.peakRSSBytes - streamed.peakRSSBytes) / 1_048_576
            #expect(extra < 24, "sessions --format \(format) peaked \(extra) MB above --format ndjson")
        }
    }
}
