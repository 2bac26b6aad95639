import Foundation
import NavTestSupport

struct ProcessResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs the built `navreplay` with arguments, in the repository root, with `NO_COLOR` set.
func navreplay(_ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:]) throws -> ProcessResult {
    guard let binary = Repository.binary else { throw BinaryMissing() }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: binary)
    process.arguments = arguments
    process.currentDirectoryURL = Repository.root
    var env = ProcessInfo.processInfo.environment
    env["NO_COLOR"] = "1"
    for (key, value) in environment { env[key] = value }
    process.environment = env
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("navreplay-out-\(UUID().uuidString)")
    let errors = FileManager.default.temporaryDirectory.appendingPathComponent("navreplay-err-\(UUID().uuidString)")
    _ = FileManager.default.createFile(atPath: output.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
    defer {
        try? FileManager.default.removeItem(at: output)
        try? FileManager.default.removeItem(at: errors)
    }
    process.standardOutput = try FileHandle(forWritingTo: output)
    process.standardError = try FileHandle(forWritingTo: errors)
    let input = Pipe()
    process.standardInput = input
    try process.run()
    if let stdin { input.fileHandleForWriting.write(stdin) }
    try input.fileHandleForWriting.close()
    process.waitUntilExit()
    return ProcessResult(
        status: process.terminationStatus,
        stdout: String(decoding: (try? Data(contentsOf: output)) ?? Data(), as: UTF8.self),
        stderr: String(decoding: (try? Data(contentsOf: errors)) ?? Data(), as: UTF8.self))
}

struct BinaryMissing: Error, CustomStringConvertible {
    var description: String { "the navreplay binary is not built (run swift build first)" }
}
