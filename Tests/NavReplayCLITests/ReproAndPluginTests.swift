import Foundation
import NavTestSupport
import Testing

/// `navreplay repro`, and the package as an app's repository uses it: the generated test built and
/// run by `swift test` in a new package that depends on this one by path, and the command plugins
/// run by `swift package navreplay-validate` / `navreplay-audit` there.
@Suite struct ReproTests {
    @Test func theCommittedReproFixtureIsWhatReproWritesToday() throws {
        // The fixture in Repro/ is compiled and run with these tests; it must stay what the
        // generator writes, so a change to either shows here.
        let scratch = try TemporaryDirectory()
        let result = try navreplay([
            "repro", "--quiet", "--rule", "state.mismatch", "--session", "s-bad-lost-event", "SampleLogs/violations",
            "--output-dir", scratch.url.path,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("reproduces with 8 line(s) (seq 0...9 of 11)"))
        let written = try String(
            contentsOfFile: scratch.url.appendingPathComponent("ReproStateMismatchSBadLostEventTests.swift").path, encoding: .utf8)
        let fixture = try String(
            contentsOfFile: Repository.path("Tests/NavReplayCLITests/Repro/ReproStateMismatchSBadLostEventTests.swift"),
            encoding: .utf8)
        #expect(written == fixture)
        let log = try String(
            contentsOfFile: scratch.url.appendingPathComponent("reproStateMismatchSBadLostEvent.ndjson").path, encoding: .utf8)
        #expect(log.split(separator: "\n").count == 8)
    }

    @Test func aPostconditionKeepsItsWholeCorrelationGroup() throws {
        let scratch = try TemporaryDirectory()
        let result = try navreplay([
            "repro", "--quiet", "--rule", "command.postcondition", "--session", "s-bad-command", "SampleLogs/violations",
            "--output-dir", scratch.url.path, "--name", "logoutLeavesAModal",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        // Found at the command (seq 10) but only judged at its group's end: the group
        // ("logout") is seq 10 to 12, and a prefix that ends at 11 would report it too.
        #expect(
            result.stdout.contains(
                "command.postcondition at seq 10 of session s-bad-command reproduces with 13 line(s) (seq 0...12 of 13)"),
            "\(result.stdout)")
        #expect(FileManager.default.fileExists(atPath: scratch.url.appendingPathComponent("LogoutLeavesAModalTests.swift").path))
    }

    @Test func theWrittenFilesArePrintedAsTheDirectoryWasGiven() throws {
        // Relative to the working directory (the repository root), as the README shows it.
        let relative = ".build/repro-test-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: Repository.path(relative)) }
        let result = try navreplay([
            "repro", "--quiet", "--rule", "state.mismatch", "--session", "s-bad-lost-event", "SampleLogs/violations", "--output-dir",
            relative,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\n  \(relative)/reproStateMismatchSBadLostEvent.ndjson\n"), "\(result.stdout)")
        #expect(FileManager.default.fileExists(atPath: Repository.path(relative + "/ReproStateMismatchSBadLostEventTests.swift")))
    }

    /// A derived name keeps the session id's ASCII letters and digits; an id with none is named
    /// by a hash of its bytes, so two such sessions do not write the same files.
    @Test func sessionsWithoutASCIILettersGetNamesOfTheirOwn() throws {
        let scratch = try TemporaryDirectory()
        let sample = try String(contentsOfFile: Repository.path("SampleLogs/violations/app-2026-11-20-broken.ndjson"), encoding: .utf8)
        let lines = sample.split(separator: "\n").filter { $0.contains("\"session_id\":\"s-bad-lost-event\"") }
        var text = ""
        for id in ["名前", "日本"] {
            text +=
                lines.map {
                    $0.replacingOccurrences(of: "s-bad-lost-event", with: id).replacingOccurrences(
                        of: "\"event_id\":\"", with: "\"event_id\":\"\(id)")
                }
                .joined(separator: "\n") + "\n"
        }
        let log = try scratch.write("names.ndjson", text)
        let output = scratch.path("out")
        var written: [String] = []
        for id in ["名前", "日本"] {
            let result = try navreplay(["repro", "-q", "--rule", "state.mismatch", "--session", id, log, "--output-dir", output])
            #expect(result.status == 0, "\(result.stderr)")
            written += result.stdout.split(separator: "\n").dropFirst().map { $0.trimmingCharacters(in: .whitespaces) }
        }
        #expect(Set(written).count == 4, "\(written)")
        #expect(written.allSatisfy { $0.contains("/reproStateMismatchSession") || $0.contains("/ReproStateMismatchSession") }, "\(written)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: output).count == 4)
    }

    @Test func aFingerprintNamesAFindingToo() throws {
        let sarif = try navreplay(["audit", "--quiet", "--format", "sarif", "SampleLogs/violations"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(sarif.stdout.utf8)) as? [String: Any])
        let results = try #require(((document["runs"] as? [[String: Any]])?.first?["results"]) as? [[String: Any]])
        let gap = try #require(results.first { $0["ruleId"] as? String == "seq.gap" })
        let fingerprint = try #require((gap["partialFingerprints"] as? [String: String])?["navreplayFinding/v1"])
        let scratch = try TemporaryDirectory()
        let result = try navreplay(["repro", "-q", "--fingerprint", fingerprint, "SampleLogs/violations", "--output-dir", scratch.url.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("seq.gap at seq 9 of session s-bad-lost-event"))

        let invalid = try #require(results.first { $0["ruleId"] as? String == "schema.invalid" })
        let invalidPrint = try #require((invalid["partialFingerprints"] as? [String: String])?["navreplayFinding/v1"])
        let refused = try navreplay(["repro", "-q", "--fingerprint", invalidPrint, "SampleLogs/violations"])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("no session to replay"))
    }

    @Test(arguments: [
        ["repro", "SampleLogs"],
        ["repro", "--rule", "state.mismatch", "SampleLogs"],
        ["repro", "--rule", "no.such", "--session", "s", "SampleLogs"],
        ["repro", "--fingerprint", "nr1-0", "--rule", "seq.gap", "--session", "s", "SampleLogs"],
        ["repro", "--rule", "seq.gap", "--session", "s", "-"],
        ["repro", "--rule", "seq.gap", "--session", "s-bad-command", "SampleLogs/violations"],
        ["repro", "--fingerprint", "nr1-0000000000000000", "SampleLogs/violations"],
        // --name names files and a Swift type: a path or a non-identifier is refused.
        ["repro", "--rule", "state.mismatch", "--session", "s-bad-lost-event", "--name", "../escaped", "SampleLogs/violations"],
        ["repro", "--rule", "state.mismatch", "--session", "s-bad-lost-event", "--name", "a b", "SampleLogs/violations"],
        ["repro", "--rule", "state.mismatch", "--session", "s-bad-lost-event", "--name", "1x", "SampleLogs/violations"],
        ["repro", "--rule", "state.mismatch", "--session", "s-bad-lost-event", "--name", "", "SampleLogs/violations"],
    ])
    func badRequestsExitTwo(arguments: [String]) throws {
        let result = try navreplay(arguments + ["--quiet"])
        #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
        #expect(!result.stderr.isEmpty)
    }
}

/// An app package that depends on this one by path: slow (it builds NavReplay and the tool
/// from scratch, about a minute or two on two cores), so it runs once, serialized. Set
/// `NAVREPLAY_SKIP_PACKAGE_TESTS=1` to skip it locally.
@Suite(.serialized) struct AppPackageTests {
    static var enabled: Bool {
        ProcessInfo.processInfo.environment["NAVREPLAY_SKIP_PACKAGE_TESTS"] == nil && swift != nil
    }

    static var swift: String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":") {
            let candidate = String(directory) + "/swift"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    @Test(.enabled(if: enabled, "no swift on PATH, or NAVREPLAY_SKIP_PACKAGE_TESTS is set"), .timeLimit(.minutes(20)))
    func anAppPackageRunsTheGeneratedTestAndThePlugins() throws {
        let swift = try #require(Self.swift)
        let app = try TemporaryDirectory()
        let root = app.url
        try FileManager.default.createDirectory(at: root.appendingPathComponent("Sources/App"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("Tests/AppTests"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("logs"), withIntermediateDirectories: true)
        _ = try app.write(
            "Package.swift",
            """
            // swift-tools-version: 6.0
            import PackageDescription

            let package = Package(
                name: "App",
                dependencies: [.package(path: \(String(reflecting: Repository.root.path)))],
                targets: [
                    .target(name: "App", dependencies: [.product(name: "NavRouter", package: "\(Repository.root.lastPathComponent.lowercased())")]),
                    .testTarget(
                        name: "AppTests",
                        dependencies: [
                            .product(name: "NavEvents", package: "\(Repository.root.lastPathComponent.lowercased())"),
                            .product(name: "NavModel", package: "\(Repository.root.lastPathComponent.lowercased())"),
                            .product(name: "NavReplay", package: "\(Repository.root.lastPathComponent.lowercased())"),
                        ]),
                ]
            )

            """)
        _ = try app.write("Sources/App/App.swift", "import NavRouter\n\npublic let router = NavigationRouter.self\n")
        try FileManager.default.copyItem(
            atPath: Repository.path("SampleLogs/clean/app-2026-11-20-upload1.ndjson"),
            toPath: root.appendingPathComponent("logs/clean.ndjson").path)
        try FileManager.default.copyItem(
            atPath: Repository.path("SampleLogs/violations/app-2026-11-20-broken.ndjson"),
            toPath: root.appendingPathComponent("logs/broken.ndjson").path)

        // 1. A finding becomes a test in the app's test target, and `swift test` runs it.
        let repro = try navreplay([
            "repro", "-q", "--rule", "state.mismatch", "--session", "s-bad-lost-event", "SampleLogs/violations",
            "--output-dir", root.appendingPathComponent("Tests/AppTests").path,
        ])
        #expect(repro.status == 0, "\(repro.stderr)")
        let tests = try run(swift, ["test"], directory: root)
        #expect(tests.status == 0, "\(tests.stdout.suffix(3000))\(tests.stderr.suffix(3000))")
        #expect((tests.stdout + tests.stderr).contains("reproducesStateMismatchAtSeq9() passed"))

        // 2. The command plugins: no permission needed; the tool's output on standard output.
        let clean = try run(swift, ["package", "navreplay-validate", "logs/clean.ndjson"], directory: root)
        #expect(clean.status == 0, "\(clean.stderr.suffix(2000))")
        #expect(clean.stdout.hasPrefix("no findings\nnavreplay: 1 file(s), 73 line(s)"))
        let annotations = try run(swift, ["package", "navreplay-validate", "--quiet", "--format", "github", "logs"], directory: root)
        #expect(annotations.status == 1)
        #expect(annotations.stdout.split(separator: "\n").count == 4)
        #expect(annotations.stdout.hasPrefix("::error file=logs/broken.ndjson,line=77,title=schema.invalid::"))
        let audit = try run(swift, ["package", "navreplay-audit", "--quiet", "--format", "sarif", "logs"], directory: root)
        #expect(audit.status == 1)
        let sarif = try JSONSerialization.jsonObject(with: Data(audit.stdout.utf8)) as? [String: Any]
        #expect(sarif?["version"] as? String == "2.1.0")
        // The tool's errors are the plugin's errors, on standard error; exit 2 (an unreadable
        // input) reaches the shell as a failure too, and machine output stays clean.
        let missing = try run(swift, ["package", "navreplay-validate", "--format", "github", "logs/no-such.ndjson"], directory: root)
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("error: logs/no-such.ndjson: no such file"))
        #expect(missing.stdout.split(separator: "\n").allSatisfy { $0.hasPrefix("::error ") })
    }
}
