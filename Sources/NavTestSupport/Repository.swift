public import Foundation

/// This repository's files and its built `navreplay`, found from this source file's location,
/// so that tests run from any working directory.
public enum Repository {
    /// `Sources/NavTestSupport/Repository.swift`, three levels up.
    public static let root: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    public static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    public static func read(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path(relative))))
    }

    /// The `navreplay` executable built next to the test bundle (or in `.build/debug`).
    public static var binary: String? {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("navreplay").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        let fallback = path(".build/debug/navreplay")
        return FileManager.default.isExecutableFile(atPath: fallback) ? fallback : nil
    }

    /// Whether `python3` can import `jsonschema` (scripts/test installs it), for the tests that
    /// check files against the JSON Schemas.
    public static let pythonHasJSONSchema: Bool = {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import jsonschema"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    /// Whether a process's peak memory means anything here: not under a sanitizer
    /// (`scripts/sanitizers` sets `NAVREPLAY_SANITIZER`), whose shadow memory and quarantine
    /// dwarf what the tests compare. Tests that only compare peaks are skipped there; the code
    /// they drive is covered under the sanitizer by the tests of the same outputs.
    public static let measuresMemory = !isSanitized

    /// Whether the tests run under a sanitizer (`scripts/sanitizers` sets `NAVREPLAY_SANITIZER`).
    public static let isSanitized = ProcessInfo.processInfo.environment["NAVREPLAY_SANITIZER"] != nil

    /// The cases a test runs: all of them, or under a sanitizer `count` of them spread evenly
    /// over the list. The sanitizers check the code paths, which a few cases drive as well as
    /// many; the plain run (`scripts/test`) takes every case.
    public static func cases<Case>(_ all: [Case], underSanitizer count: Int) -> [Case] {
        guard isSanitized, count < all.count, count > 0 else { return all }
        return (0..<count).map { all[$0 * all.count / count] }
    }

    /// A number of trials: `all`, or `underSanitizer` under a sanitizer (see `cases`).
    public static func trials(_ all: Int, underSanitizer count: Int) -> Int { isSanitized ? min(all, count) : all }
}
