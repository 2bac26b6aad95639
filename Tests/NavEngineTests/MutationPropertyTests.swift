#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import NavEvents
import NavJSON
@testable import NavEngine
import NavInput
import NavRuns
import NavResults
import NavReplay
import NavTestSupport
import Testing

/// A seeded property test over mutated valid lines: bit flips, truncation, field deletion, type
/// swaps, key reordering and duplication. Whatever the mutation, nothing crashes, each line is
/// either a valid event or exactly one `schema.invalid` finding on that line, and the counts
/// balance (docs/events-and-rules.md). Mutations with a known outcome are checked for it: reordered keys stay
/// the same event; a deleted, retyped or duplicated envelope field is invalid and named.
@Suite struct MutationPropertyTests {
    /// Valid lines of every event kind: the conformance corpus and a sample log.
    static let baseLines: [[UInt8]] = {
        var lines: [[UInt8]] = []
        for relative in ["Tests/Fixtures/conformance/valid.ndjson", "SampleLogs/clean/app-2026-11-20-upload1.ndjson"] {
            guard let data = FileManager.default.contents(atPath: Repository.path(relative)) else { continue }
            lines += data.split(separator: 0x0A).map(Array.init).filter { !$0.allSatisfy { $0 == 0x20 || $0 == 0x0D } }
        }
        return lines
    }()

    static let envelopeFields = ["schema_version", "event_id", "event_name", "session_id", "seq", "timestamp", "correlation_id"]

    enum Mutation: String, CaseIterable {
        case bitFlip, truncation, fieldDeletion, typeSwap, keyReordering, keyDuplication, lineDuplication
    }

    /// What a mutation must lead to, when it is known.
    enum Expectation {
        case anything
        case valid(sameEventAs: [UInt8])
        case invalid(field: String)
    }

    struct Mutated {
        var bytes: [UInt8]
        var mutation: Mutation
        var expectation: Expectation
    }

    static func object(_ bytes: [UInt8]) -> JSONObject? {
        (try? JSONValue.parse(bytes))?.objectValue
    }

    static func encode(_ members: [(key: String, value: JSONValue)]) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        for member in members {
            writer.key(member.key)
            writer.value(member.value)
        }
        writer.endObject()
        return writer.bytes
    }

    /// A value of another JSON type than `value`.
    static func otherType(than value: JSONValue, _ random: inout SeededRandom) -> JSONValue {
        let candidates: [JSONValue] = [.null, .bool(true), .number("1.5"), .string("x"), .array([]), .object(JSONObject())]
        let different = candidates.filter { candidate in
            switch (candidate, value) {
            case (.null, .null), (.bool, .bool), (.number, .number), (.string, .string), (.array, .array), (.object, .object): false
            default: true
            }
        }
        return random.pick(different) ?? .null
    }

    static func mutate(_ line: [UInt8], _ mutation: Mutation, _ random: inout SeededRandom) -> Mutated {
        guard let members = object(line)?.members, !members.isEmpty else {
            return Mutated(bytes: line, mutation: mutation, expectation: .anything)
        }
        switch mutation {
        case .bitFlip:
            var bytes = line
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                bytes[index] ^= UInt8(1) << UInt8.random(in: 0...7, using: &random)
                // Keep it one line: a flipped-in line end would split it.
                if bytes[index] == 0x0A || bytes[index] == 0x0D { bytes[index] = 0x20 }
            }
            return Mutated(bytes: bytes, mutation: mutation, expectation: bytes == line ? .valid(sameEventAs: line) : .anything)
        case .truncation:
            return Mutated(
                bytes: Array(line.prefix(Int.random(in: 0..<line.count, using: &random))), mutation: mutation, expectation: .anything)
        case .fieldDeletion:
            let index = Int.random(in: 0..<members.count, using: &random)
            var rest = members
            let removed = rest.remove(at: index)
            let expectation: Expectation = envelopeFields.contains(removed.key) ? .invalid(field: removed.key) : .anything
            return Mutated(bytes: encode(rest), mutation: mutation, expectation: expectation)
        case .typeSwap:
            let index = Int.random(in: 0..<members.count, using: &random)
            var changed = members
            changed[index].value = otherType(than: changed[index].value, &random)
            let key = changed[index].key
            let expectation: Expectation = envelopeFields.contains(key) ? .invalid(field: key) : .anything
            return Mutated(bytes: encode(changed), mutation: mutation, expectation: expectation)
        case .keyReordering:
            return Mutated(bytes: encode(members.shuffled(using: &random)), mutation: mutation, expectation: .valid(sameEventAs: line))
        case .keyDuplication:
            let member = random.pick(members) ?? members[0]
            var changed = members
            changed.insert(member, at: Int.random(in: 0...changed.count, using: &random))
            return Mutated(bytes: encode(changed), mutation: mutation, expectation: .invalid(field: member.key))
        case .lineDuplication:
            return Mutated(bytes: line, mutation: mutation, expectation: .valid(sameEventAs: line))
        }
    }

    @Test(arguments: 0..<Int64(24))
    func everyMutatedLineIsAnEventOrOneSchemaInvalidFinding(seed: Int64) throws {
        var random = SeededRandom(seed: UInt64(seed))
        let decoder = EventDecoder()
        var lines: [Mutated] = []
        for _ in 0..<60 {
            guard let base = random.pick(Self.baseLines), let mutation = random.pick(Mutation.allCases) else { continue }
            let mutated = Self.mutate(base, mutation, &random)
            // Where an expectation holds for the line alone, check it on the decoder now.
            switch mutated.expectation {
            case .anything: break
            case .valid(let original):
                let result = decoder.decode(mutated.bytes)
                let before = decoder.decode(original)
                if case .success(let after) = result, case .success(let first) = before {
                    #expect(after.identity == first.identity, "seed \(seed), \(mutation): another event after \(mutation)")
                } else {
                    Issue.record(
                        "seed \(seed), \(mutation): a valid line became invalid: \(String(decoding: mutated.bytes, as: UTF8.self))")
                }
            case .invalid(let field):
                if case .failure(let error) = decoder.decode(mutated.bytes) {
                    #expect(error.field == field, "seed \(seed), \(mutation): \(error) should name \(field)")
                } else {
                    Issue.record("seed \(seed), \(mutation) of \(field) was accepted: \(String(decoding: mutated.bytes, as: UTF8.self))")
                }
            }
            lines.append(mutated)
            if mutation == .lineDuplication { lines.append(mutated) }
        }

        // The same lines through the whole audit (reader, decoder, grouping, fold).
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("navreplay-mutations-\(seed)-\(getpid()).ndjson").path
        defer { unlink(path) }
        var file: [UInt8] = []
        for line in lines { file += line.bytes + [0x0A] }
        try Data(file).write(to: URL(fileURLWithPath: path))
        let run = try AuditEngine(configuration: AuditConfiguration(jobs: 2)).run(paths: [path])

        var expectedInvalid: Set<Int64> = []
        var blank: Int64 = 0
        for (index, line) in lines.enumerated() {
            if line.bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) {
                blank += 1
            } else if case .failure = decoder.decode(line.bytes) {
                expectedInvalid.insert(Int64(index + 1))
            }
        }
        let reported = run.invalidFindings.compactMap { $0.location?.line }
        #expect(reported.count == Set(reported).count, "seed \(seed): a line reported twice")
        #expect(
            Set(reported) == expectedInvalid, "seed \(seed): schema.invalid on \(reported.sorted()), expected \(expectedInvalid.sorted())")
        #expect(run.invalidFindings.allSatisfy { $0.rule == .schemaInvalid && !$0.message.isEmpty })
        let counts = run.counts
        #expect(counts.isBalanced, "seed \(seed): \(counts)")
        #expect(counts.lines == Int64(lines.count))
        #expect(counts.blankLines == blank)
        #expect(counts.invalidLines == Int64(expectedInvalid.count))
        let duplicatedLines = lines.filter { $0.mutation == .lineDuplication }.count / 2
        #expect(counts.redeliveries >= Int64(duplicatedLines), "seed \(seed): a duplicated line was not taken as a redelivery")
    }
}
