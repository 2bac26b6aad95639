import Foundation
import NavFuzz
import NavFuzzDecoder
import NavFuzzRuns
import NavJSON
import NavTestSupport
import Testing

/// The fuzz targets without libFuzzer: every saved input of `Tests/Fixtures/fuzz/NAME` (each
/// target's seeds, and every crash the fuzzer found, kept as a regression seed) replayed
/// through its target's check, in every test run. (The `pipeline` target's inputs are replayed
/// by `FuzzHarnessTests`, with the whole pipeline's harness.)
@Suite struct FuzzTargetsTests {
    static let focused = ["decoder", "model", "located", "runs", "store"]
    /// The targets that run a whole command: `pipeline` (replayed by `FuzzHarnessTests`) and
    /// `ingest`.
    static let whole = ["ingest", "pipeline"]

    static let savedInputs: [String] = (focused + ["ingest"]).flatMap { name -> [String] in
        let directory = Repository.path("Tests/Fixtures/fuzz/\(name)")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.sorted().map { "\(name)/\($0)" }
    }

    @Test func scriptsFuzzListsEveryTarget() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Repository.path("scripts/fuzz"))
        process.arguments = ["--list"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let listed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(listed.split(separator: "\n").map(String.init) == FuzzTarget.all.map(\.name))
        #expect(Set(Self.focused + Self.whole) == Set(FuzzTarget.all.map(\.name)))
    }

    @Test(arguments: focused + whole)
    func everyTargetHasSavedInputs(_ name: String) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: Repository.path("Tests/Fixtures/fuzz/\(name)"))) ?? []
        #expect(!names.isEmpty, "Tests/Fixtures/fuzz/\(name) is empty")
    }

    @Test(arguments: savedInputs)
    func everySavedInputKeepsItsTargetsInvariants(_ input: String) throws {
        let name = String(input.prefix { $0 != "/" })
        let target = try #require(FuzzTarget.named(name))
        let bytes = try Repository.read("Tests/Fixtures/fuzz/\(input)")
        #expect(target.check(bytes) == [], "\(input)")
    }

    @Test func theRunsSeedsAreFilesTheWritersMakeAndKeepEveryInvariant() throws {
        let seeds = try RunsSeeds.all()
        let readers = Set(seeds.map { $0.bytes[0] }.map { RunsCheck.selection[Int($0) % RunsCheck.selection.count] })
        #expect(readers == Set(RunsCheck.Reader.allCases), "a reader without a seed")
        for seed in seeds {
            #expect(check(RunsCheck.check, seed.bytes) == [], "\(seed.name)")
            // The committed corpus holds the same seeds.
            let committed = try? Repository.read("Tests/Fixtures/fuzz/runs/\(seed.name)")
            #expect(committed != nil, "Tests/Fixtures/fuzz/runs/\(seed.name) is missing: navreplay-fuzz-runs --write-seeds")
        }
    }

    // MARK: The decoder's independent parser and its differences

    /// Each difference that explains a verdict is met by a saved input: none is listed in vain,
    /// and a disagreement the list does not explain would fail the replay above.
    @Test(arguments: [
        ("duplicate-key.line", JSONDifference.duplicateKey), ("byte-order-mark.line", .byteOrderMark),
        ("nested-too-deep.line", .nestedTooDeep), ("trailing-comma.line", .trailingComma), ("utf16-guess.line", .encodingGuess),
        ("number-beyond-double.line", .numberBeyondDouble),
    ])
    func aListedDifferenceExplainsEachDisagreement(_ file: String, _ difference: JSONDifference) throws {
        let bytes = try Repository.read("Tests/Fixtures/fuzz/decoder/\(file)")
        #expect(bytes.withUnsafeBufferPointer { DecoderCheck.verdictDifference($0) } == difference)
    }

    @Test(arguments: ["valid-push.line", "lone-surrogate.line", "escapes-and-snapshot.line"])
    func foundationAndNavreplayAgreeElsewhere(_ file: String) throws {
        let bytes = try Repository.read("Tests/Fixtures/fuzz/decoder/\(file)")
        #expect(bytes.withUnsafeBufferPointer { DecoderCheck.verdictDifference($0) } == nil)
    }

    @Test func inputsAtTheEdgesOfTheListKeepTheInvariants() {
        // Explained (Foundation's trailing comma), refused by both, and read alike.
        for text in ["[1,]", "[01]", #"{"a":"\u00e9","b":[1e-400,-0,1E+2]}"#, "\u{FEFF}\u{FEFF}{}", "{\"a\":1}x"] {
            #expect(check(DecoderCheck.check, Array(text.utf8)) == [], "\(text)")
        }
    }

    @Test func theValueComparisonFindsWhatFoundationReadsOtherwise() throws {
        let value = try JSONValue.parse(#"{"a":[1,"x",true,null],"b":{"c":2.5}}"#)
        let same: [String: Any] = ["a": [1, "x", true, NSNull()] as [Any], "b": ["c": 2.5]]
        #expect(DecoderCheck.valueDifference(value, foundation: same) == nil)
        var other = same
        other["b"] = ["c": 2.6]
        #expect(DecoderCheck.valueDifference(value, foundation: other) != nil)
        other = same
        other["a"] = [1, "y", true, NSNull()] as [Any]
        #expect(DecoderCheck.valueDifference(value, foundation: other) != nil)
        other = same
        other.removeValue(forKey: "b")
        #expect(DecoderCheck.valueDifference(value, foundation: other) != nil)
    }

    // MARK: The checks can fail

    @Test func theModelCheckResolvesPathsInTheDocument() throws {
        let document = try JSONValue.parse(#"{"flows":{"a.b":{"tabs":["x","y"]}},"initial":null}"#)
        #expect(ModelCheck.pathResolves("$.flows.a.b.tabs[1]", in: document))
        #expect(!ModelCheck.pathResolves("$.flows.a.b.tabs[2]", in: document))
        #expect(!ModelCheck.pathResolves("$.stacks.main", in: document))
        #expect(ModelCheck.pathResolves("$.flows.a.b.stack", in: document, missingLast: true))
        #expect(!ModelCheck.pathResolves("$.initial.flow.deeper", in: document, missingLast: true))
    }

    @Test func theRunsCheckFindsARecordDroppedWithoutAWord() {
        // A run file whose last record is cut: the naive framing says so.
        let whole: [UInt8] = [1, 0, 0, 0, 0x61, 0, 0, 0, 0, 2, 0, 0, 0, 7, 8]
        #expect(RunsCheck.framedRecordCount(whole) == 1)
        #expect(RunsCheck.framedRecordCount(Array(whole.dropLast())) == nil)
    }
}

/// A check on an array's bytes.
func check(_ check: (UnsafeBufferPointer<UInt8>) -> [String], _ bytes: [UInt8]) -> [String] {
    bytes.withUnsafeBufferPointer { check($0) }
}
