import Foundation
import NavEvents
@testable import NavEngine
import NavInput
import NavRuns
import NavResults
import NavTestSupport
import Testing
import NavPartitions

/// The Swift reader and decoder and the JSON Schema (checked by Python's `jsonschema`) must give
/// every line of the conformance corpus the same verdict.
@Suite struct SchemaConformanceTests {
    static let validPath = Repository.path("Tests/Fixtures/conformance/valid.ndjson")
    static let invalidPath = Repository.path("Tests/Fixtures/conformance/invalid.ndjson")

    /// The Swift verdict per non-blank line: `nil` when valid, else the reason.
    static func swiftVerdicts(_ path: String) throws -> [(line: Int64, reason: String?)] {
        var verdicts: [(Int64, String?)] = []
        let decoder = EventDecoder()
        try LineReader().readLines(of: path) { line in
            if line.overlongLength == nil && line.isBlank { return }
            if let length = line.overlongLength {
                verdicts.append((line.number, "over-long line (\(length) bytes)"))
                return
            }
            switch decoder.decode(line.bytes) {
            case .success: verdicts.append((line.number, nil))
            case .failure(let error): verdicts.append((line.number, error.description))
            }
        }
        return verdicts
    }

    @Test func everyValidLineDecodes() throws {
        let verdicts = try Self.swiftVerdicts(Self.validPath)
        #expect(verdicts.count >= 40)
        for (line, reason) in verdicts {
            #expect(reason == nil, "valid.ndjson:\(line) was rejected: \(reason ?? "")")
        }
    }

    @Test func everyInvalidLineIsRejectedWithAReason() throws {
        let verdicts = try Self.swiftVerdicts(Self.invalidPath)
        #expect(verdicts.count >= 80)
        for (line, reason) in verdicts {
            #expect(reason != nil, "invalid.ndjson:\(line) was accepted")
            #expect(!(reason ?? "x").isEmpty)
        }
    }

    @Test(.enabled(if: Repository.pythonHasJSONSchema, "needs python3 with jsonschema (scripts/test installs it)"))
    func pythonJSONSchemaGivesTheSameVerdicts() throws {
        for path in [Self.validPath, Self.invalidPath] {
            let result = try Repository.runProcess(
                "/usr/bin/env",
                [
                    "python3", Repository.path("scripts/schema_conformance.py"), "--schema",
                    Repository.path("Schemas/navigation-event.v1.schema.json"), path,
                ])
            #expect(result.status == 0, "\(String(decoding: result.error, as: UTF8.self))")
            var python: [Int64: Bool] = [:]
            for row in String(decoding: result.output, as: UTF8.self).split(separator: "\n") {
                let columns = row.split(separator: "\t", maxSplits: 2)
                guard columns.count >= 2, let line = Int64(columns[0]) else { continue }
                python[line] = columns[1] == "valid"
            }
            let swift = try Self.swiftVerdicts(path)
            #expect(python.count == swift.count, "\(path): python judged \(python.count) lines, swift \(swift.count)")
            for (line, reason) in swift {
                #expect(python[line] == (reason == nil), "\(path):\(line): swift says \(reason ?? "valid"), python disagrees")
            }
        }
    }

    @Test(.enabled(if: Repository.pythonHasJSONSchema, "needs python3 with jsonschema"))
    func theModelSchemaAcceptsTheBuiltInModelAndRejectsATypo() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("navreplay-model-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = directory.appendingPathComponent("good.json")
        let bad = directory.appendingPathComponent("bad.json")
        try Data(NavigationModelFixtures.poc.utf8).write(to: good)
        try Data(NavigationModelFixtures.poc.replacingOccurrences(of: "\"singletons\"", with: "\"singleton\"").utf8).write(to: bad)
        let result = try Repository.runProcess(
            "/usr/bin/env",
            [
                "python3", Repository.path("scripts/schema_conformance.py"), "--model-schema",
                Repository.path("Schemas/navigation-model.v1.schema.json"), good.path, bad.path,
            ])
        let rows = String(decoding: result.output, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(rows.count == 2)
        #expect(rows.first?.contains("\tvalid") == true, "\(rows)")
        #expect(rows.last?.contains("\tinvalid") == true, "\(rows)")
    }
}
