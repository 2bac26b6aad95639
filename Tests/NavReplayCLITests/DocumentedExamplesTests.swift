import Foundation
import NavModel
import NavReplay
import NavTestSupport
import Testing

/// The documented examples, run as a reader would run them: the instrumented app's source in
/// docs/app-side.md is the file in Examples/, and the README's CI job's and nightly job's command
/// lines run against logs made from the samples. (Building and running the app itself is `InstrumentedAppTests`.)
@Suite struct DocumentedExamplesTests {
    static let example = "Examples/InstrumentedApp/Sources/InstrumentedApp/main.swift"

    @Test func theDocsShowTheInstrumentedAppAsItIs() throws {
        let block = try #require(
            try readmeBlock(Self.example, in: "docs/app-side.md"),
            "docs/app-side.md has no block between <!-- BEGIN \(Self.example) --> and its END")
        let file = try String(contentsOfFile: Repository.path(Self.example), encoding: .utf8)
        #expect(block == file, "docs/app-side.md's copy of \(Self.example) differs from the file")
    }

    /// Runs shell lines in `directory` with `set -e`, the way a CI step or a cron job runs them,
    /// where `navreplay` and `swift package navreplay-…` (the command plugins, which run the
    /// same tool with the same options) call the built binary.
    static func shell(_ lines: [String], in directory: URL) throws -> ProcessResult {
        let binary = try #require(Repository.binary)
        let script = """
            set -e
            navreplay() { \(String(reflecting: binary)) "$@"; }
            swift() {
              [ "$1" = package ] || { echo "not a plugin call: swift $*" >&2; return 64; }
              shift
              [ "$1" = --allow-writing-to-package-directory ] && shift
              command=${1#navreplay-}
              shift
              navreplay "$command" "$@"
            }

            """ + lines.joined(separator: "\n") + "\n"
        return try run("/bin/sh", ["-c", script], directory: directory)
    }

    /// A night of logs: the clean samples and one session that breaks a rule (the rule's own
    /// example), every line a valid event.
    static func makeLogs(in directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let clean = try String(contentsOfFile: Repository.path("SampleLogs/clean/app-2026-11-20-upload1.ndjson"), encoding: .utf8)
        try clean.write(to: directory.appendingPathComponent("clean.ndjson"), atomically: true, encoding: .utf8)
        try Self.mismatch.write(to: directory.appendingPathComponent("lost.ndjson"), atomically: true, encoding: .utf8)
    }

    /// Session s1, whose last event claims a top route the events before it did not push.
    static let mismatch = Rule.stateMismatch.ruleDescription.triggeringExamples[0]

    /// The workflow's `run:` steps that call navreplay (one string per step, a `run: |` block's
    /// lines joined), and the baseline command after it.
    static func ciSteps() throws -> (steps: [String], baseline: String) {
        let block = try #require(try readmeBlock("ci-example"), "README.md has no <!-- BEGIN ci-example --> block")
        let lines = block.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var steps: [String] = []
        var index = 0
        while index < lines.count {
            let line = lines[index]
            index += 1
            guard let range = line.range(of: "run: ") else { continue }
            var step = String(line[range.upperBound...])
            if step == "|" {
                let indent = line.prefix { $0 == " " }.count
                var body: [String] = []
                while index < lines.count, lines[index].prefix(while: { $0 == " " }).count > indent {
                    body.append(lines[index].trimmingCharacters(in: .whitespaces))
                    index += 1
                }
                step = body.joined(separator: "\n")
            }
            if step.contains("swift package navreplay-") { steps.append(step) }
        }
        let baseline = try #require(lines.first { $0.hasPrefix("swift package --allow-writing-to-package-directory") })
        return (steps, baseline)
    }

    @Test func theCIJobPassesOnAcceptedFindingsAndFailsOnANewOne() throws {
        let (steps, baseline) = try Self.ciSteps()
        #expect(steps.count == 2, "\(steps)")
        let repository = try TemporaryDirectory()
        try Self.makeLogs(in: repository.url.appendingPathComponent("NavigationLogs"))
        // The app's model file, which every step names (the samples' app is the PoC).
        _ = try repository.write("navigation-model.json", NavigationModel.pocJSON)
        for step in steps + [baseline] where step.contains("navreplay-audit") {
            #expect(step.contains("--model navigation-model.json"), "a step audits without the app's model: \(step)")
        }

        // Today's findings are accepted once, then every step of the job passes.
        let accepted = try Self.shell([baseline], in: repository.url)
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(FileManager.default.fileExists(atPath: repository.path("navreplay-baseline.json")))
        for step in steps {
            let result = try Self.shell([step], in: repository.url)
            #expect(result.status == 0, "\(step)\n\(result.stdout)\(result.stderr)")
        }
        let sarif = try JSONSerialization.jsonObject(with: Data(contentsOf: repository.url.appendingPathComponent("navreplay.sarif")))
        let results = ((sarif as? [String: Any])?["runs"] as? [[String: Any]])?.first?["results"] as? [[String: Any]]
        #expect(results?.isEmpty == false && results?.allSatisfy { $0["baselineState"] as? String == "unchanged" } == true)

        // A new finding fails the audit step, with an annotation.
        let newSession = Self.mismatch.replacingOccurrences(of: #""session_id":"s1""#, with: #""session_id":"s2""#)
            .replacingOccurrences(of: #""event_id":""#, with: #""event_id":"new-"#)
        _ = try repository.write("NavigationLogs/new.ndjson", newSession)
        let audit = try #require(steps.last)
        let failing = try Self.shell([audit], in: repository.url)
        #expect(failing.status == 1, "\(failing.stderr)")
        #expect(failing.stdout.contains("::error file=NavigationLogs/new.ndjson"), "\(failing.stdout)")
        #expect(!failing.stdout.contains("file=NavigationLogs/lost.ndjson"))

        // UI tests that wrote nothing fail the job: every step exits 2 on logs with no line.
        let empty = try TemporaryDirectory()
        try FileManager.default.createDirectory(at: empty.url.appendingPathComponent("NavigationLogs"), withIntermediateDirectories: true)
        _ = try empty.write("NavigationLogs/navigation.ndjson", "")
        _ = try empty.write("navigation-model.json", NavigationModel.pocJSON)
        _ = try empty.write(
            "navreplay-baseline.json",
            try String(contentsOf: repository.url.appendingPathComponent("navreplay-baseline.json"), encoding: .utf8))
        for step in steps {
            let result = try Self.shell([step], in: empty.url)
            #expect(result.status == 2, "\(step)\n\(result.stderr)")
            #expect(result.stderr.contains("the input holds no line at all"), "\(result.stderr)")
        }
    }
}

/// Examples/InstrumentedApp built and run as an app's own package would be: in a throwaway
/// copy whose `../..` is this package (named NavReplay, as the example's manifest expects),
/// then its log audited by the built navreplay. Slow (it builds the app-side modules from
/// scratch, a minute or two on two cores): `NAVREPLAY_SKIP_PACKAGE_TESTS=1` skips it.
@Suite(.serialized) struct InstrumentedAppTests {
    @Test(.enabled(if: AppPackageTests.enabled, "no swift on PATH, or NAVREPLAY_SKIP_PACKAGE_TESTS is set"), .timeLimit(.minutes(20)))
    func theExampleAppBuildsRunsAndWritesACleanLog() throws {
        let swift = try #require(AppPackageTests.swift)
        let scratch = try TemporaryDirectory()
        let package = scratch.url.appendingPathComponent("NavReplay")
        try FileManager.default.createDirectory(at: package.appendingPathComponent("Examples"), withIntermediateDirectories: true)
        // The package by links (nothing of it is copied or built in place), the example by copy.
        for entry in try FileManager.default.contentsOfDirectory(atPath: Repository.root.path)
        where ![".build", ".git", ".swiftpm", "Examples"].contains(entry) {
            try FileManager.default.createSymbolicLink(
                at: package.appendingPathComponent(entry), withDestinationURL: Repository.root.appendingPathComponent(entry))
        }
        let app = package.appendingPathComponent("Examples/InstrumentedApp")
        try FileManager.default.createDirectory(
            at: app.appendingPathComponent("Sources/InstrumentedApp"), withIntermediateDirectories: true)
        for file in ["Package.swift", "navigation-model.json", "Sources/InstrumentedApp/main.swift"] {
            try FileManager.default.copyItem(
                at: Repository.root.appendingPathComponent("Examples/InstrumentedApp/" + file), to: app.appendingPathComponent(file))
        }

        let build = try run(swift, ["build"], directory: app)
        #expect(build.status == 0, "\(build.stdout.suffix(3000))\(build.stderr.suffix(3000))")
        let binary = try run(swift, ["build", "--show-bin-path"], directory: app).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // The log goes in a directory that does not exist yet: the sink makes it.
        let ran = try run(binary + "/InstrumentedApp", ["Logs/today", "navigation-model.json"], directory: app)
        #expect(ran.status == 0, "\(ran.stdout)\(ran.stderr)")
        #expect(ran.stdout.contains("deep link: resolved"), "\(ran.stdout)")
        #expect(ran.stdout.contains("refused, nothing written:"), "\(ran.stdout)")
        #expect(!ran.stdout.contains("live check:") && !ran.stdout.contains("navigation log:"), "\(ran.stdout)")
        #expect(ran.stdout.contains("event(s) in Logs/today/navigation.ndjson, 0 write error(s)"), "\(ran.stdout)")

        let log = app.appendingPathComponent("Logs/today/navigation.ndjson").path
        let audit = try navreplay(["audit", "--model", app.appendingPathComponent("navigation-model.json").path, log])
        #expect(audit.status == 0, "\(audit.stdout)\(audit.stderr)")
        #expect(audit.stdout == "no findings\n")
        #expect(audit.stderr.contains("0 finding(s)"))
        let deepLinks = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").filter {
            $0.contains(#""event_name":"deep_link""#)
        }
        #expect(deepLinks.count == 1 && deepLinks.first?.contains(#""outcome":"resolved""#) == true, "\(deepLinks)")
    }
}
