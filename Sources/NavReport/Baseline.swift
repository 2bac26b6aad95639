import NavEvents
import NavJSON
import NavModel
public import NavReplay
import NavInput
public import NavResults

/// Stable fingerprints of findings, for baselines (`--baseline`, `--write-baseline`), SARIF
/// `partialFingerprints` and `navreplay repro --fingerprint`.
///
/// A fingerprint names a finding by what it is, not by where it was read, so it survives
/// unrelated changes to the logs: other files added or removed, files renamed or given in
/// another order, other sessions, other lines of the same file, and lines moving.
///
/// - A finding of a session: the rule, the `session_id`, the offending event's `event_id`
///   (the contract's per-event identity, written once by the router, independent of `seq`,
///   file, line and order), and its occurrence among the findings with the same three (0 but
///   for, say, two `seq.duplicate` copies that reuse one id).
/// - A line that could not be read as an event (`schema.invalid`): the rule and the exact bytes
///   of the line (re-read from its file), and its occurrence among identical invalid lines.
///   When the line cannot be re-read (standard input), its message stands in for its bytes.
///
/// It is `"nr1-"` and 16 hex digits of a 64-bit `StableHash` of those parts: deterministic in
/// every process and on every platform.
public enum FindingFingerprint {
    public static let prefix = "nr1-"

    /// The fingerprints of `run.findings`, in the same order.
    ///
    /// - Complexity: O(findings); re-reads each file that has invalid lines, once.
    public static func compute(_ run: AuditRun) -> [String] {
        let raw = invalidLineBytes(run)
        var occurrences = Occurrences()
        return run.findings.map { finding in
            if let parts = sessionParts(finding) { return occurrences.fingerprint(parts) }
            if let location = finding.location, let bytes = raw[location] {
                return occurrences.fingerprint(
                    ["line", finding.rule.rawValue, hex(bytes.withUnsafeBufferPointer { lineHash($0) }) + ":" + String(bytes.count)])
            }
            return occurrences.fingerprint(["message", finding.rule.rawValue, finding.message])
        }
    }

    /// The fingerprints of one session's findings, in the same order: as `compute(_:)` gives
    /// them, since a session finding's parts (and so its occurrence count) name its session.
    public static func compute(sessionFindings findings: [Finding]) -> [String] {
        var occurrences = Occurrences()
        return findings.map { occurrences.fingerprint(sessionParts($0) ?? ["message", $0.rule.rawValue, $0.message]) }
    }

    /// What names a finding of a session; `nil` for a line that is not an event.
    static func sessionParts(_ finding: Finding) -> [String]? {
        finding.sessionID.map { ["session", finding.rule.rawValue, $0, finding.eventID ?? ""] }
    }

    /// Counts the findings named by the same parts, so that each gets its own fingerprint.
    struct Occurrences {
        private var seen: [String: Int] = [:]

        mutating func fingerprint(_ parts: [String]) -> String {
            let key = parts.joined(separator: "\u{0}")
            let occurrence = seen[key, default: 0]
            seen[key] = occurrence + 1
            return digest(parts + [String(occurrence)])
        }
    }

    /// The fingerprint of a list of parts, each ended by a NUL byte.
    static func digest(_ parts: [String]) -> String {
        var hasher = StableHash(tag: 0x46)
        for part in parts {
            for byte in part.utf8 { hasher.combineByte(byte) }
            hasher.combineByte(0)
        }
        return prefix + hex(hasher.finish())
    }

    /// The hash of an invalid line's bytes, frozen: what `StableHash.string` was when
    /// fingerprints were introduced (FNV-1a of a tag, a SplitMix64 round per eight bytes, FNV-1a
    /// per remaining byte, the length, a final round). The identity hash has since changed for
    /// speed; this one must not, or stored baselines would stop matching.
    static func lineHash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var state: UInt64 = 0xCBF2_9CE4_8422_2325
        func fnv(_ byte: UInt8) { state = (state ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        fnv(StableHash.Tag.string)
        var index = 0
        if let base = bytes.baseAddress {
            while index + 8 <= bytes.count {
                state = StableHash.mix(state ^ UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)))
                index += 8
            }
        }
        while index < bytes.count {
            fnv(bytes[index])
            index += 1
        }
        state = StableHash.mix(state ^ UInt64(bytes.count)) &+ 0x9E37_79B9_7F4A_7C15
        return StableHash.mix(state)
    }

    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The bytes of every invalid line that can be re-read, by location.
    static func invalidLineBytes(_ run: AuditRun) -> [LineLocation: [UInt8]] {
        var wanted: [Int32: Set<Int64>] = [:]
        for finding in run.invalidFindings {
            guard let location = finding.location else { continue }
            wanted[location.file, default: []].insert(location.line)
        }
        var result: [LineLocation: [UInt8]] = [:]
        let reader = LineReader(maxLineBytes: LineReader.defaultMaxLineBytes)
        for (file, lines) in wanted {
            guard Int(file) < run.files.count else { continue }
            let path = run.files[Int(file)]
            if path == "-" { continue }
            let last = lines.max() ?? 0
            _ = try? reader.readLines(of: path) { line in
                if line.number <= last, lines.contains(line.number) {
                    result[LineLocation(file: file, line: line.number)] = Array(line.bytes)
                }
            }
        }
        return result
    }
}

/// Findings accepted earlier: a set of fingerprints, read from and written to a JSON file.
///
/// The file is one JSON object, written one entry a line so that it diffs well in review:
///
/// ```json
/// {"navreplay_baseline": 1,
///  "findings": [
///   {"fingerprint": "nr1-…", "rule": "state.mismatch", "session_id": "s-1", "event_id": "…", "message": "…"}
///  ]}
/// ```
///
/// Only `fingerprint` is read back; the other members say what was accepted, for people.
public struct Baseline: Sendable, Equatable {
    public var fingerprints: Set<String>

    public init(fingerprints: Set<String>) {
        self.fingerprints = fingerprints
    }

    /// Reads a baseline file's bytes.
    public init(json bytes: [UInt8]) throws(BaselineError) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)
        } catch {
            throw BaselineError("is not JSON: \(error)")
        }
        guard let object = value.objectValue, object["navreplay_baseline"]?.int64Value == 1 else {
            throw BaselineError("is not a navreplay baseline (no \"navreplay_baseline\": 1)")
        }
        guard let entries = object["findings"]?.arrayValue else {
            throw BaselineError("has no \"findings\" array")
        }
        var fingerprints: Set<String> = []
        for (index, entry) in entries.enumerated() {
            guard let fingerprint = entry.objectValue?["fingerprint"]?.stringValue else {
                throw BaselineError("$.findings[\(index)] has no \"fingerprint\" string")
            }
            fingerprints.insert(fingerprint)
        }
        self.fingerprints = fingerprints
    }

    /// The baseline file that accepts every finding of `run`.
    public static func json(_ run: AuditRun, fingerprints: [String]) -> [UInt8] {
        var output = Array("{\"navreplay_baseline\":1,\n\"findings\":[".utf8)
        var writer = JSONWriter()
        var written: Set<String> = []
        for (finding, fingerprint) in zip(run.findings, fingerprints) where written.insert(fingerprint).inserted {
            writer.removeAll()
            writer.beginObject()
            writer.member("fingerprint", fingerprint)
            writer.member("rule", finding.rule.rawValue)
            writer.member("session_id", finding.sessionID)
            writer.member("event_id", finding.eventID)
            writer.member("message", finding.message)
            writer.endObject()
            output += Array((written.count == 1 ? "\n" : ",\n").utf8)
            output += writer.bytes
        }
        output += Array("\n]}\n".utf8)
        return output
    }

    /// Splits a run into the findings the baseline accepts and the new ones.
    public func compare(_ run: AuditRun, fingerprints: [String]) -> BaselineComparison {
        var shown = run
        var accepted = Array(repeating: false, count: fingerprints.count)
        for (index, fingerprint) in fingerprints.enumerated() where self.fingerprints.contains(fingerprint) {
            accepted[index] = true
        }
        var index = 0
        func keep(_ findings: [Finding]) -> [Finding] {
            var kept: [Finding] = []
            for finding in findings {
                if !(index < accepted.count && accepted[index]) { kept.append(finding) }
                index += 1
            }
            return kept
        }
        shown.invalidFindings = keep(run.invalidFindings)
        for session in shown.sessions.indices {
            shown.sessions[session].findings = keep(run.sessions[session].findings)
        }
        let acceptedFindings = zip(run.findings, accepted).filter(\.1).map(\.0)
        shown.counts.findings -= acceptedFindings.count
        for finding in acceptedFindings {
            shown.counts.findingsByRule[finding.rule, default: 0] -= 1
            if shown.counts.findingsByRule[finding.rule] == 0 { shown.counts.findingsByRule[finding.rule] = nil }
        }
        return BaselineComparison(
            newFindings: shown, accepted: accepted, fixed: self.fingerprints.subtracting(fingerprints).count)
    }
}

/// The result of comparing a run with a baseline.
public struct BaselineComparison: Sendable {
    /// The run with only the findings the baseline does not accept (counts adjusted).
    public var newFindings: AuditRun
    /// For each of the full run's findings, in output order: whether the baseline accepts it.
    public var accepted: [Bool]
    /// How many baseline entries no longer occur.
    public var fixed: Int

    public var acceptedCount: Int { accepted.filter { $0 }.count }
}

/// A baseline file that cannot be used.
public struct BaselineError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
