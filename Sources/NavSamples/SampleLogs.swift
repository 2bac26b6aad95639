import Foundation
import NavEvents
import NavJSON
import NavLog
import NavModel

/// The files of `SampleLogs/`, written from the scenarios: the same bytes on every run.
public enum SampleLogs {
    public struct File: Sendable {
        public var path: String
        public var bytes: [UInt8]
    }

    /// Interleaves sessions' events by timestamp, as one app's uploads would mix them.
    static func interleave(_ sessions: [[NavigationEvent]]) -> [NavigationEvent] {
        sessions.flatMap { $0 }.enumerated().sorted { lhs, rhs in
            let (l, r) = (lhs.element.timestamp.epochMilliseconds, rhs.element.timestamp.epochMilliseconds)
            return l != r ? l < r : lhs.offset < rhs.offset
        }.map(\.element)
    }

    static func lines(_ events: [NavigationEvent]) -> String {
        events.map { $0.canonicalJSON + "\n" }.joined()
    }

    public static func pocFiles() throws -> [File] {
        let clean = PoCScenarios.clean()
        let bad = PoCScenarios.violating()
        // One session's events are spread over two uploads; the second upload is gzip.
        let deepLinks = clean[2].events
        let half = deepLinks.count / 2
        let firstUpload = interleave([clean[0].events, clean[1].events, Array(deepLinks[..<half])])
        let secondUpload = interleave([Array(deepLinks[half...]), clean[3].events])

        var violations = lines(interleave(bad.map(\.events)))
        // Lines that cannot be read as events: an app version with a wrong field type, an
        // unknown event, a write torn in the middle of the file, and a torn last line.
        let template = bad[0].events[1]
        var wrongType = template
        wrongType.eventID = "bad-type-0001"
        let wrongTypeLine = wrongType.canonicalJSON.replacingFirst("\"seq\":\(template.seq)", with: "\"seq\":\"\(template.seq)\"")
        violations += "\n"
        violations += wrongTypeLine + "\n"
        violations +=
            wrongType.canonicalJSON.replacingFirst("\"\(template.name.rawValue)\"", with: "\"route_teleport\"")
            .replacingFirst("bad-type-0001", with: "bad-name-0001") + "\n"
        violations += String(bad[1].events[0].canonicalJSON.prefix(97)) + "\n"
        violations += "\r\n"
        violations += String(bad[2].events[0].canonicalJSON.prefix(120))  // the app was killed mid-write

        return [
            File(path: "clean/app-2026-11-20-upload1.ndjson", bytes: Array(lines(firstUpload).utf8)),
            File(path: "clean/app-2026-11-20-upload2.ndjson.gz", bytes: try Gzip.compress(Array(lines(secondUpload).utf8), level: 9)),
            File(path: "violations/app-2026-11-20-broken.ndjson", bytes: Array(violations.utf8)),
        ]
    }
}

extension SampleLogs {
    /// Where the model file of the PoC's code is written (`PoCAppSystem.modelJSON`, also
    /// `poc-app/model.json`), for `--model`. Not named `model.json`, so that it applies to no directory.
    public static let pocModelPath = "poc.model.json"

    /// The files of the seed systems beyond the PoC's built-in model: for each,
    /// `<id>/model.json`, `<id>/clean.ndjson` and `<id>/violations.ndjson`; and the model file of
    /// the PoC's code.
    public static func systemFiles() -> [File] {
        var files = [File(path: pocModelPath, bytes: Array((PoCAppSystem.modelJSON + "\n").utf8))]
        for system in SeedSystems.all {
            files.append(File(path: system.id + "/model.json", bytes: Array((system.modelJSON + "\n").utf8)))
            files.append(File(path: system.id + "/clean.ndjson", bytes: Array(lines(interleave(system.clean().map(\.events))).utf8)))
            files.append(
                File(path: system.id + "/violations.ndjson", bytes: Array(lines(interleave(system.violating().map(\.events))).utf8)))
        }
        return files
    }
}

extension String {
    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = range(of: target) else { return self }
        return replacingCharacters(in: range, with: replacement)
    }
}
