import Foundation
import NavTestSupport
import Testing

/// `scripts/bench --ceiling` measures the audit with `scripts/bench-ceiling.patch` applied: the
/// patch must keep applying to the sources it was made for.
struct BenchCeilingPatchTests {
    @Test func theCeilingPatchAppliesToTheseSources() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // `git apply` works as a patch tool outside a repository too, so a copy of the sources
        // without `.git` is checked as well.
        process.arguments = ["git", "apply", "--check", "scripts/bench-ceiling.patch"]
        process.currentDirectoryURL = Repository.root
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "scripts/bench-ceiling.patch no longer applies: \(message)")
    }
}
