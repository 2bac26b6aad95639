import ArgumentParser
import Foundation
import NavEvents
import NavJSON
import NavModel
import NavReplay
import NavReport
import NavEngine
import NavInput
import NavResults

extension NavReplayCommand {
    struct Repro: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Turn a finding into a regression test: the smallest log prefix that reproduces it, and a Swift test.",
            discussion: """
                Picks the finding by rule and session (the first one, or the one at --seq), or by the fingerprint that \
                --format sarif and --write-baseline give. Writes NAME.ndjson (the smallest prefix of the session, by \
                seq, whose audit still reports that finding) and NAMETests.swift (a Swift Testing suite that replays \
                it through NavReplay's fold and expects the finding) to --output-dir. Add the test to a test target that \
                depends on the NavEvents, NavModel and NavReplay products.

                Examples:
                  navreplay repro --rule state.mismatch --session s-bad-lost-event SampleLogs --output-dir Tests/AppTests
                  navreplay repro --fingerprint nr1-2f0c61d1e9a7b3c4 logs/2026-11-20/
                """)

        @OptionGroup var input: InputOptions

        @Option(help: "The finding's rule id, e.g. state.mismatch (with --session).")
        var rule: String?

        @Option(help: "The finding's session_id (with --rule).")
        var session: String?

        @Option(help: "With --rule and --session: the finding at this seq (default: the session's first such finding).")
        var seq: Int64?

        @Option(help: "The finding's fingerprint (nr1-…), as SARIF and baselines give it.")
        var fingerprint: String?

        @Option(help: ArgumentHelp("Where to write the log and the test.", valueName: "directory"))
        var outputDir = "."

        @Option(help: "The test suite's name, a Swift identifier (default: from the rule and session).")
        var name: String?

        func validate() throws {
            try input.requireInputs()
            switch (rule, session, fingerprint) {
            case (_?, _?, nil), (nil, nil, _?): break
            default:
                throw ValidationError("Please name the finding by --rule and --session, or by --fingerprint (not both).")
            }
            if let rule, Rule(rawValue: rule) == nil {
                throw ValidationError(
                    "Please give a rule id: \(Rule.allCases.map(\.rawValue).joined(separator: ", ")) (not \(rule)).")
            }
            if let name, !Self.isIdentifier(name) {
                // It names two files and a Swift type: `../x` would write outside --output-dir,
                // and `a b` would not compile.
                throw ValidationError(
                    "Please give --name as a Swift identifier: ASCII letters, digits and _, not starting with a digit, "
                        + "at most 100 characters (not \(JSONWriter.quoted(name))).")
            }
            if input.inputs.contains("-") {
                throw ValidationError("Please give files: repro reads the session's lines a second time, which standard input cannot give.")
            }
        }

        func run() throws {
            let run = try runAudit(input)
            let target = try findTarget(in: run)
            guard let sessionID = target.sessionID, let location = target.location else {
                throw CommandFailure(
                    "\(target.rule.rawValue) findings of unreadable lines have no session to replay; --quarantine FILE writes the line itself."
                )
            }

            // The session's files: those of the finding's model (the same session id may exist
            // in another app's logs).
            let findingPath = run.files[Int(location.file)]
            let resolved = InputResolver.resolve(input.inputs)
            let modelPathOf = Dictionary(resolved.map { ($0.path, $0.modelPath) }, uniquingKeysWith: { first, _ in first })
            let modelPath = input.model ?? (modelPathOf[findingPath] ?? nil)
            let files = run.files.enumerated().filter { input.model != nil || (modelPathOf[$0.element] ?? nil) == modelPath }
                .map { (path: $0.element, index: $0.offset) }
            let model = try modelPath.map { try input.loadModel($0) } ?? .poc
            let modelJSON = try modelPath.map { path -> String in
                String(decoding: try readWholeFile(path, as: "model file"), as: UTF8.self)
            }

            let lines: [ReproWriter.Line]
            do {
                lines = try ReproWriter.sessionLines(sessionID, files: files, maxLineBytes: input.maxLineBytes)
            } catch {
                throw CommandFailure("Cannot read the session again: \(error)")
            }
            guard let prefix = ReproWriter.minimalPrefix(of: lines, reproducing: target, model: model) else {
                throw CommandFailure("Replaying session \(JSONWriter.quoted(sessionID)) alone does not reproduce the finding.")
            }

            let suite = name ?? ReproWriter.identifier("repro " + target.rule.rawValue + " " + Self.readable(sessionID))
            let capitalized = suite.prefix(1).uppercased() + suite.dropFirst()
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: outputDir, isDirectory: &isDirectory), !isDirectory.boolValue {
                throw CommandFailure("--output-dir \(outputDir) is a file, not a directory.")
            }
            try FileManager.default.createDirectory(atPath: outputDir, withIntermediateDirectories: true)
            // The paths as the user gave the directory (relative stays relative), as printed below.
            let directory = outputDir.hasSuffix("/") ? outputDir : outputDir + "/"
            let logPath = directory + suite + ".ndjson"
            let testPath = directory + capitalized + "Tests.swift"
            try emit(ReproWriter.ndjson(prefix), to: logPath)
            let test = ReproWriter.swiftTest(
                name: capitalized + "Tests", lines: prefix, target: target, modelJSON: modelJSON,
                source: input.inputs.joined(separator: " "), toolVersion: NavReplayCommand.version)
            try emit(Array(test.utf8), to: testPath)

            let sessionEvents = Set(lines.map(\.line.event.seq)).count
            let kept = Set(prefix.map(\.line.event.seq))
            print(
                "\(target.rule.rawValue) at seq \(target.seq.map(String.init) ?? "-") of session \(safe(sessionID)) "
                    + "reproduces with \(prefix.count) line(s) (seq \(kept.min() ?? 0)...\(kept.max() ?? 0) of \(sessionEvents)):")
            print("  \(logPath)")
            print("  \(testPath)")
        }

        static func isIdentifier(_ name: String) -> Bool {
            let scalars = Array(name.unicodeScalars)
            guard let first = scalars.first, first == "_" || (isASCIILetterOrDigit(first) && !isDigit(first)), scalars.count <= 100
            else { return false }
            return scalars.allSatisfy { $0 == "_" || isASCIILetterOrDigit($0) }
        }

        private static func isDigit(_ scalar: Unicode.Scalar) -> Bool { scalar >= "0" && scalar <= "9" }

        private static func isASCIILetterOrDigit(_ scalar: Unicode.Scalar) -> Bool {
            (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z") || isDigit(scalar)
        }

        /// The session id's part of a derived name. The name keeps only ASCII letters and digits:
        /// an id with none (`名前`, `#"#`) would give every such session the same files, so it
        /// is named by a hash of its bytes instead.
        static func readable(_ sessionID: String) -> String {
            guard !sessionID.unicodeScalars.contains(where: isASCIILetterOrDigit) else { return sessionID }
            var hash = StableHash(tag: StableHash.Tag.string)
            for byte in sessionID.utf8 { hash.combineByte(byte) }
            return "session " + String(hash.finish() & 0xFFFF_FFFF, radix: 16)
        }

        /// The finding the options name, or a failure that lists what there is.
        func findTarget(in run: AuditRun) throws -> Finding {
            if let fingerprint {
                let fingerprints = FindingFingerprint.compute(run)
                guard let index = fingerprints.firstIndex(of: fingerprint) else {
                    throw CommandFailure("No finding has the fingerprint \(fingerprint) in these logs.")
                }
                return run.findings[index]
            }
            let candidates = run.findings.filter { $0.sessionID.utf8Equals(session) }
            if let found = candidates.first(where: { $0.rule.rawValue == rule && (seq == nil || $0.seq == seq) }) {
                return found
            }
            let available = candidates.map { "\($0.rule.rawValue) at seq \($0.seq.map(String.init) ?? "-")" }
            throw CommandFailure(
                "Session \(JSONWriter.quoted(session ?? "")) has no \(rule ?? "") finding\(seq.map { " at seq \($0)" } ?? "")"
                    + (available.isEmpty
                        ? " (it has no findings, or is not in these logs)." : "; it has: " + available.joined(separator: ", ") + "."))
        }
    }
}
