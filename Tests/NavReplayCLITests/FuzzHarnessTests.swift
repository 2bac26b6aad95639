import Foundation
import NavFuzz
import NavEngine
import NavInput
import NavTestSupport
import Testing
import NavResults

/// The fuzz harness (Sources/NavFuzz) run as ordinary tests: on every test log of the
/// repository, on the saved fuzz inputs (Tests/Fixtures/fuzz), and on seeded random inputs, so
/// that the invariants the fuzzer checks (every line accounted for, reader = naive split, one
/// job = two jobs, audit = validate on lines, every output format parses) hold in every CI run,
/// with or without libFuzzer.
@Suite struct FuzzHarnessTests {
    /// Every log in the repository's test data: SampleLogs, Tests/Fixtures (the conformance
    /// corpus and the pipeline target's saved fuzz inputs) and any Fixtures folder of a test target.
    static let testLogs: [String] = {
        var found: [String] = []
        for root in ["SampleLogs", "Tests"] {
            let base = Repository.path(root)
            guard let enumerator = FileManager.default.enumerator(atPath: base) else { continue }
            for case let relative as String in enumerator {
                let isLog = relative.hasSuffix(".ndjson") || relative.hasSuffix(".ndjson.gz")
                let isFuzzInput = relative.hasPrefix("Fixtures/fuzz/pipeline/")
                if (isLog && (root == "SampleLogs" || relative.contains("Fixtures/"))) || isFuzzInput {
                    found.append(base + "/" + relative)
                }
            }
        }
        return found.sorted()
    }()

    @Test func thereAreTestLogs() {
        #expect(Self.testLogs.count >= 6, "\(Self.testLogs)")
        #expect(Self.testLogs.contains { $0.hasSuffix(".gz") })
        #expect(Self.testLogs.contains { $0.contains("Fixtures/fuzz/") })
    }

    @Test(arguments: testLogs)
    func everyTestLogKeepsEveryInvariant(_ path: String) throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        // The fuzzer's small line limit, and the default one.
        for harness in [FuzzHarness(), FuzzHarness(maxLineBytes: LineReader.defaultMaxLineBytes)] {
            let report = harness.check(bytes)
            #expect(report.violations.isEmpty, "\(path) (limit \(harness.maxLineBytes)): \(report.violations)")
            #expect(report.counts.isBalanced)
        }
    }

    @Test func theWholeTestDataBalancesThroughTheBinary() throws {
        let scratch = try TemporaryDirectory()
        let summary = scratch.path("summary.json")
        let result = try navreplay(["audit", "--quiet", "--format", "ndjson", "--summary", summary] + Self.testLogs)
        #expect(result.status == 1 || result.status == 2, "\(result.stderr)")
        let counts = try Summary(path: summary)
        counts.expectBalanced()
        #expect(counts["files"] == Self.testLogs.count)
        #expect(counts["lines"] > 500)
    }

    @Test(arguments: 0..<UInt64(6))
    func seededRandomInputsKeepEveryInvariant(seed: UInt64) throws {
        // Sample lines cut, spliced and sprinkled with JSON tokens and odd bytes.
        let sample = [UInt8](
            try Data(contentsOf: URL(fileURLWithPath: Repository.path("SampleLogs/violations/app-2026-11-20-broken.ndjson"))))
        let lines = sample.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
        let tokens: [[UInt8]] =
            [
                "{", "}", "[", "]", "\"", ",", ":", "\r\n", "\n", "null", "1e999", "\\u0000", "\u{FEFF}", "\"seq\":",
                "\"event_name\":\"route_pop\"",
            ]
            .map { Array($0.utf8) } + [[0xFF], [0xC0, 0xAF], [0x00], [0x1F, 0x8B]]
        var random = SeededRandom(seed: seed)
        let harness = FuzzHarness(maxLineBytes: 512)
        for round in 0..<25 {
            var input: [UInt8] = []
            for _ in 0..<Int.random(in: 0...12, using: &random) {
                var line = lines.randomElement(using: &random) ?? []
                if !line.isEmpty && Bool.random(using: &random) {
                    let cut = Int.random(in: 0..<line.count, using: &random)
                    line = Bool.random(using: &random) ? Array(line[..<cut]) : Array(line[cut...])
                }
                if Bool.random(using: &random), let token = tokens.randomElement(using: &random) {
                    line.insert(contentsOf: token, at: Int.random(in: 0...line.count, using: &random))
                }
                input += line + (Int.random(in: 0..<8, using: &random) == 0 ? [] : [0x0A])
            }
            let report = harness.check(input)
            #expect(
                report.violations.isEmpty,
                "seed \(seed), round \(round): \(report.violations); input base64 \(Data(input).base64EncodedString().prefix(4000))")
        }
    }

    @Test func theHarnessReportsAnOutputThatDoesNotParse() {
        let broken = Output(name: "broken ndjson", write: { _ in Array("{\"a\":1}\n{not json\n".utf8) }) { bytes, _ in
            checkNDJSON(bytes, records: 2)
        }
        let report = FuzzHarness(outputs: [broken]).check(Array((Lines.clean).utf8))
        #expect(report.violations.count == 1)
        #expect(report.violations.first?.hasPrefix("broken ndjson: line 2 is not a JSON object") == true, "\(report.violations)")
    }

    @Test func theHTMLAndXMLChecksRejectMarkup() {
        #expect(HTMLCheck.problem(Array("<p>&lt;script&gt; onerror=x</p>".utf8)) == nil)
        #expect(HTMLCheck.problem(Array("<p>a</p><script>x</script>".utf8)) != nil)
        #expect(HTMLCheck.problem(Array("<p title=\"a onerror=b\">x</p>".utf8)) == nil)
        #expect(HTMLCheck.problem(Array("<img src=x onerror=alert(1)>".utf8)) != nil)
        #expect(XMLCheck.problem(Array("<a><b/></a>".utf8)) == nil)
        #expect(XMLCheck.problem(Array("<a><b></a>".utf8)) != nil)
        #expect(XMLCheck.problem(Array("<a>]]></a>".utf8)) != nil)
    }
}
