import Foundation
import NavTestSupport
import Testing

/// The README's nightly recipe (`nightly.sh`, the `nightly-ingest` block), run as written over
/// four nights of logs in `logs/<date>/`: sessions that cross midnight, a file that grows after
/// its night, a late file dropped into an earlier night's folder, a corrupt line, and a night
/// run twice. Each night ends with its one-line summary and fails only when new errors arrive;
/// the store then answers as one audit of the whole tree.
@Suite(.serialized) struct NightlyRecipeTests {
    static let nights = ["2026-11-23", "2026-11-24", "2026-11-25", "2026-11-26"]

    /// The lines of a demo log from `navreplay-loggen` (interleaved sessions, nothing lost; its
    /// only findings are warnings, which do not fail a night).
    static func demoLines(_ directory: TemporaryDirectory) throws -> [String] {
        guard let binary = Repository.binary else { throw BinaryMissing() }
        let loggen = URL(fileURLWithPath: binary).deletingLastPathComponent().appendingPathComponent("navreplay-loggen").path
        let path = directory.path("demo.ndjson")
        let child = try ChildProcess(
            loggen, ["--bytes", "400K", "--sessions", "40", "--seed", "7", "--violation-rate", "0", "--output", path])
        #expect(child.wait().exitStatus == 0)
        return try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    /// Runs `nightly.sh` for one night in `directory`, with `navreplay` the built binary.
    static func runNight(_ night: String, in directory: TemporaryDirectory) throws -> (status: Int32, stdout: String, stderr: String) {
        guard let binary = Repository.binary else { throw BinaryMissing() }
        let bin = directory.path("bin")
        try? FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try? FileManager.default.removeItem(atPath: bin + "/navreplay")
        try FileManager.default.createSymbolicLink(atPath: bin + "/navreplay", withDestinationPath: binary)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [directory.path("nightly.sh")]
        process.currentDirectoryURL = directory.url
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = bin + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["NIGHT"] = night
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let stdout = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, stdout, stderr)
    }

    static func append(_ lines: ArraySlice<String>, to path: String) throws {
        if !FileManager.default.fileExists(atPath: path) {
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: path, contents: nil)
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(lines.map { $0 + "\n" }.joined().utf8))
        try handle.close()
    }

    @Test(.timeLimit(.minutes(5)))
    func theRecipeOverSeveralNightsGivesTheStoreOfOneAudit() throws {
        let block = try #require(try readmeBlock("nightly-ingest"), "README.md has no nightly-ingest block")
        #expect(block.contains(" logs ") || block.hasSuffix(" logs\n"), "the recipe does not ingest the whole tree")
        #expect(!block.contains("logs/$"), "the recipe ingests one night's folder")
        #expect(block.contains("date -u -d yesterday +%F"), "the recipe does not name the night that ended")
        let directory = try TemporaryDirectory()
        _ = try directory.write("nightly.sh", block)
        let lines = try Self.demoLines(directory)
        #expect(lines.count > 400)
        // Five slices in time order: sessions run across them.
        let slice = lines.count / 5
        let parts = (0..<5).map { lines[($0 * slice)..<($0 == 4 ? lines.count : ($0 + 1) * slice)] }
        let logs = directory.path("logs")
        func night(_ index: Int) -> String { "\(logs)/\(Self.nights[index])" }

        // Night 1: its first upload.
        try Self.append(parts[0], to: night(0) + "/app-1.ndjson")
        var results = [try Self.runNight(Self.nights[0], in: directory)]
        // Night 2: its own file, and night 1's file grew after night 1 was ingested.
        try Self.append(parts[1].prefix(slice / 2), to: night(0) + "/app-1.ndjson")
        try Self.append(parts[1].dropFirst(slice / 2), to: night(1) + "/app-1.ndjson")
        results.append(try Self.runNight(Self.nights[1], in: directory))
        // Night 3: its file, a late upload into night 1's folder, and a corrupt line.
        try Self.append(parts[2], to: night(2) + "/app-1.ndjson")
        try Self.append(parts[3], to: night(0) + "/late-upload.ndjson")
        try Self.append(["{\"schema_version\":1,\"event_id\":"], to: night(2) + "/app-2.ndjson")
        results.append(try Self.runNight(Self.nights[2], in: directory))
        // Night 4: its file; then night 4 run again (nothing new).
        try Self.append(parts[4], to: night(3) + "/app-1.ndjson")
        results.append(try Self.runNight(Self.nights[3], in: directory))
        results.append(try Self.runNight(Self.nights[3], in: directory))

        // Each night's log ends with its one-line summary; only night 3 (an unreadable line,
        // a new error) fails.
        #expect(results.map(\.status) == [0, 0, 1, 0, 0], "\(results.map(\.stderr))")
        for (index, result) in results.enumerated() {
            let nightName = Self.nights[min(index, 3)]
            let last = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
            #expect(last.hasPrefix("navreplay nightly \(nightName): "), "night \(index + 1): \(result.stdout)")
            #expect(last.hasSuffix("; exit \(result.status)"), "\(last)")
            #expect(FileManager.default.fileExists(atPath: directory.path("report-\(nightName).html")))
            #expect(FileManager.default.fileExists(atPath: directory.path("findings-\(nightName).ndjson")))
        }
        #expect(results[2].stdout.contains(" new lines, 1 unreadable, "), "\(results[2].stdout)")
        #expect(results[4].stdout.contains(": 0 new lines, 0 unreadable, 0 new findings"), "\(results[4].stdout)")
        let changes = try String(contentsOfFile: directory.path("changes-\(Self.nights[2]).ndjson"), encoding: .utf8)
        #expect(changes.contains("\"rule\":\"schema.invalid\""))

        // Once every session is closed, the store is one audit of the whole tree (its files
        // named as the recipe gave them, from the job's folder).
        let binary = try #require(Repository.binary)
        func navreplayInJobFolder(_ arguments: [String]) throws -> ProcessResult { try run(binary, arguments, directory: directory.url) }
        let closed = try navreplayInJobFolder(["ingest", "--store", "nav.db", "--close-all", "--quiet", "--fail-on", "never"])
        #expect(closed.status == 0, "\(closed.stderr)")
        let stored = try navreplayInJobFolder(["audit", "--store", "nav.db", "--format", "ndjson", "--quiet"])
        let direct = try navreplayInJobFolder(["audit", "--format", "ndjson", "--quiet", "logs"])
        #expect(!direct.stdout.isEmpty)
        #expect(stored.stdout == direct.stdout)
        #expect(stored.status == direct.status && direct.status == 1)
        let storedSessions = try navreplayInJobFolder(["sessions", "--store", "nav.db", "--quiet"])
        let directSessions = try navreplayInJobFolder(["sessions", "--quiet", "logs"])
        #expect(storedSessions.stdout == directSessions.stdout)
    }
}
