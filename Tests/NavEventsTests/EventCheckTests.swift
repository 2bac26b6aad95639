import Foundation
import NavEvents
import NavTestSupport
import Testing

/// `EventDecoder.check` (what `validate` runs) gives every line the verdict and the error that
/// `decode` gives it: a check that accepted a line `decode` rejects would let `validate` pass a
/// log that `audit` flags.
@Suite struct EventCheckTests {
    /// `check`'s answer against `decode`'s, for one line: `nil` when they agree.
    static func disagreement(_ bytes: [UInt8]) -> String? {
        let decoder = EventDecoder()
        let checked = bytes.withUnsafeBufferPointer { decoder.check($0) }
        switch decoder.decode(bytes) {
        case .success:
            return checked.map { "check rejects a line decode accepts: \($0)" }
        case .failure(let error):
            guard let checked else { return "check accepts a line decode rejects: \(error)" }
            return checked == error ? nil : "check says \(checked), decode says \(error)"
        }
    }

    /// The lines of `relative`, a file or every file of a directory (recursively).
    static func lines(under relative: String) throws -> [[UInt8]] {
        let path = Repository.path(relative)
        var files: [String] = []
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            let walker = FileManager.default.enumerator(atPath: path)
            while let name = walker?.nextObject() as? String {
                guard !name.hasSuffix("model.json") else { continue }
                var isSubdirectory: ObjCBool = false
                let full = path + "/" + name
                if FileManager.default.fileExists(atPath: full, isDirectory: &isSubdirectory), !isSubdirectory.boolValue {
                    files.append(full)
                }
            }
        } else {
            files = [path]
        }
        return try files.sorted().flatMap { file in
            try Data(contentsOf: URL(fileURLWithPath: file)).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true)
                .map { [UInt8]($0) }
        }
    }

    @Test(arguments: EventDecoderTests.badLines)
    func checkRejectsEachBadLineAsDecodeDoes(_ bad: BadLine) {
        #expect(Self.disagreement(bad.bytes) == nil)
        #expect(bad.bytes.withUnsafeBufferPointer { EventDecoder().check($0) } != nil)
    }

    @Test(arguments: [
        "Tests/Fixtures/conformance/valid.ndjson", "Tests/Fixtures/conformance/invalid.ndjson", "SampleLogs", "Tests/Fixtures/fuzz/decoder",
    ])
    func checkAgreesWithDecodeOnEveryLineOf(_ corpus: String) throws {
        let lines = try Self.lines(under: corpus)
        #expect(lines.count >= 10, "\(corpus) gave \(lines.count) lines")
        var accepted = 0
        for line in lines {
            if let problem = Self.disagreement(line) {
                Issue.record("\(corpus): \(problem): \(String(decoding: line.prefix(200), as: UTF8.self))")
            }
            if line.withUnsafeBufferPointer({ EventDecoder().check($0) }) == nil { accepted += 1 }
        }
        // The valid corpus is all valid; every other holds invalid lines (the invalid corpus is
        // cut here at every line feed, where the reader would keep a CR-LF line whole).
        if corpus.hasSuffix("/valid.ndjson") {
            #expect(accepted == lines.count)
        } else {
            #expect(accepted < lines.count)
        }
    }

    /// Every event of every kind, then each with one byte changed at every position: the
    /// mutants are mostly invalid, each in its own way, and the two must still agree.
    @Test(arguments: EventName.allCases)
    func checkAgreesWithDecodeOnEveryOneByteMutant(_ name: EventName) throws {
        let valid = try Self.lines(under: "Tests/Fixtures/conformance/valid.ndjson").filter {
            String(decoding: $0, as: UTF8.self).contains("\"event_name\":\"\(name.rawValue)\"")
        }
        let line = try #require(valid.first, "the conformance corpus has a valid \(name.rawValue)")
        for position in line.indices {
            for replacement: UInt8 in [UInt8(ascii: "\""), UInt8(ascii: "1"), UInt8(ascii: "}"), UInt8(ascii: "x"), 0x00, 0xFF] {
                var mutant = line
                mutant[position] = replacement
                if let problem = Self.disagreement(mutant) {
                    Issue.record("byte \(position) -> \(replacement): \(problem)")
                }
            }
        }
    }
}
