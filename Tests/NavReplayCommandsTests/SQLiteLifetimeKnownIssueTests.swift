import Foundation
import NavLog
import NavSQLite
import NavTestSupport
import Testing

/// A leak the fuzz harness found in Sources/NavSQLite/SQLiteWriter.swift, now fixed: a statement
/// kept only the raw `sqlite3*` of its database, so in an optimised build the database could be
/// released first; `sqlite3_close` then failed with SQLITE_BUSY and the connection (about 120 KB
/// and the file's descriptor) was never closed. Statements now hold their database.
/// Debug builds keep locals to the end of their scope, so the leak shows under `-c release`
/// (`scripts/fuzz`: the replayer built with `-c release` grows by about 0.12 MB per database).
@Suite struct SQLiteLifetimeKnownIssueTests {
    /// Descriptors of this process open on files under `directory` (other tests running at the
    /// same time open files elsewhere).
    static func openDescriptors(under directory: String) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.filter { name in
            let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name)
            return target?.hasPrefix(directory) == true
        }.count
    }

    @Test func writingADatabaseLeavesNoDescriptorOpen() throws {
        let run = try AuditEngine(configuration: AuditConfiguration(jobs: 1))
            .run(paths: [Repository.path("SampleLogs/violations/app-2026-11-20-broken.ndjson")])
        let scratch = try ScratchDirectory()
        for index in 0..<20 {
            try SQLiteWriter.write(run, to: scratch.path("db-\(index).sqlite"), toolVersion: "test")
        }
        let open = Self.openDescriptors(under: scratch.url.path)
        #expect(open == 0, "\(open) of 20 databases are still open")
    }
}
