import Foundation
import NavTestSupport
import Testing

/// What every command-line tool is expected to do: help with examples, a version, completions,
/// errors on standard error with exit 2, colour only on a terminal and never with NO_COLOR.
@Suite struct CLIConventionTests {
    static let commands = ["audit", "validate", "sessions", "replay", "report", "repro", "rules", "schema"]

    @Test(arguments: commands)
    func everyCommandHasHelpWithAnExample(command: String) throws {
        let help = try navreplay([command, "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: navreplay \(command)"))
        #expect(help.stdout.contains("Example"))
        #expect(help.stdout.contains("  navreplay \(command) "))
        #expect(help.stderr.isEmpty)
    }

    @Test func theRootHelpListsEveryCommand() throws {
        let help = try navreplay(["--help"])
        #expect(help.status == 0)
        for command in Self.commands { #expect(help.stdout.contains("  \(command) "), "\(command)") }
    }

    @Test(arguments: [
        ("bash", "complete -o filenames -F _navreplay navreplay"),
        ("zsh", "#compdef navreplay"),
        ("fish", "complete -c 'navreplay'"),
    ])
    func completionScripts(shell: String, marker: String) throws {
        let result = try navreplay(["--generate-completion-script", shell])
        #expect(result.status == 0)
        #expect(result.stdout.contains(marker))
        for command in Self.commands { #expect(result.stdout.contains(command), "\(shell): \(command)") }
        #expect(result.stdout.contains("fail-on"))
        #expect(result.stdout.contains("sarif"))
    }

    @Test func bashAcceptsTheBashCompletionScript() throws {
        let scratch = try TemporaryDirectory()
        let script = try scratch.write("navreplay.bash", try navreplay(["--generate-completion-script", "bash"]).stdout)
        let check = try run("/usr/bin/env", ["bash", "-n", script])
        #expect(check.status == 0, "\(check.stderr)")
    }

    @Test(arguments: [
        ["audit"],
        ["audit", "--format", "xml", "SampleLogs"],
        ["report", "--worst", "-1", "SampleLogs"],
        ["sessions", "--format", "sqlite", "SampleLogs"],
        ["audit", "--baseline", "no-such-baseline.json", "SampleLogs"],
    ])
    func errorsGoToStandardErrorWithExitTwo(arguments: [String]) throws {
        let result = try navreplay(arguments)
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(!result.stderr.isEmpty)
    }

    @Test func noColourWhenNotATerminalOrWithNoColor() throws {
        // Standard output is a file here: no escape sequences, whatever NO_COLOR says.
        for environment in [["NO_COLOR": "1"], ["NO_COLOR": ""]] {
            let result = try navreplay(["audit", "--quiet", "SampleLogs/violations"], environment: environment)
            #expect(!result.stdout.contains("\u{1B}["))
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs script(1) for a terminal"))
    func colourOnATerminalUnlessNoColor() throws {
        // script(1) gives navreplay a pseudo-terminal for standard output.
        let command = "\(Repository.binary ?? "navreplay") audit --quiet SampleLogs/violations"
        let coloured = try run(
            "/usr/bin/script", ["-qec", command, "/dev/null"], directory: Repository.root, environment: ["NO_COLOR": ""])
        #expect(coloured.stdout.contains("\u{1B}[31;1m"))
        let plain = try run("/usr/bin/script", ["-qec", command, "/dev/null"], directory: Repository.root, environment: ["NO_COLOR": "1"])
        #expect(!plain.stdout.contains("\u{1B}["))
        #expect(plain.stdout.contains("state.mismatch"))
    }

    @Test func aSummaryToDevStdoutFollowsTheFindingsInARedirectedFile() throws {
        // `--summary /dev/stdout` with standard output redirected to a file: the summary is
        // written after the findings, not over them (opening /dev/stdout anew truncated it).
        let scratch = try TemporaryDirectory()
        let output = scratch.url.appendingPathComponent("combined.out").path
        let binary = try Executables.navreplay()
        for target in ["/dev/stdout", "/dev/fd/1"] {
            let command = "'\(binary)' audit -q --format ndjson --summary \(target) SampleLogs/violations > '\(output)'"
            _ = try run("/bin/sh", ["-c", command], directory: Repository.root)
            let lines = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n")
            let findings = try navreplay(["audit", "-q", "--format", "ndjson", "SampleLogs/violations"]).stdout.split(separator: "\n")
            #expect(findings.count > 10)
            // Compared as a Bool: a failing comparison of the whole output would be printed at length.
            let findingsFirst = Array(lines.prefix(findings.count)) == findings
            #expect(findingsFirst, "\(target): the findings first")
            #expect(lines.count == findings.count + 1 && lines.last?.contains("\"sessions\"") == true, "\(target): the summary last")
        }
    }
}
