import Foundation
import PackagePlugin

// Shared by both command plugins: Plugins/NavReplayValidate/RunNavReplay.swift is a symbolic
// link to this file (a plugin cannot depend on a library target).

/// Runs the tool with the subcommand and arguments in the current directory and ends this
/// process with the tool's exit status (0; 1 for findings; 2 for a usage error or an unreadable
/// input, which `swift package` reports as "Plugin ended with exit code 2" and exits 1).
///
/// The tool's standard output passes straight through. SwiftPM shows a plugin's standard error on
/// its own standard output, which would spoil machine formats, so the tool's standard error is
/// collected and passed on: its errors as plugin errors (on standard error), its summary after a
/// text report on standard output, and, after a machine format or `--output`, as a remark
/// (`swift package -v` shows it).
func runNavReplay(subcommand: String, tool: URL, arguments: [String]) throws -> Never {
    let process = Process()
    process.executableURL = tool
    process.arguments = [subcommand] + arguments
    let errors = Pipe()
    process.standardError = errors
    try process.run()
    let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()

    let machineFormats: Set<String> = ["ndjson", "json", "junit", "sarif", "github"]
    var machine = arguments.contains { $0 == "--output" || $0 == "-o" || $0.hasPrefix("--output=") }
    for (index, argument) in arguments.enumerated() {
        if argument == "--format", index + 1 < arguments.count, machineFormats.contains(arguments[index + 1]) { machine = true }
        if argument.hasPrefix("--format="), machineFormats.contains(String(argument.dropFirst(9))) { machine = true }
    }
    for line in text.split(separator: "\n") {
        if line.hasPrefix("navreplay: error: ") {
            Diagnostics.error(String(line.dropFirst("navreplay: error: ".count)))
        } else if line.hasPrefix("Error: ") || line.hasPrefix("navreplay: Error: ") || line.hasPrefix("Usage: ") {
            Diagnostics.error(String(line))
        } else if machine {
            Diagnostics.remark(String(line))
        } else {
            print(line)
        }
    }
    exit(process.terminationStatus)
}
