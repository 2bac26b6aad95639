import Foundation
import NavLog
import NavSQLite
import Testing

/// A leak found by the fuzz harness in Sources/NavSQLite/SQLiteWriter.swift (not this test's
/// owner's file): `SQLiteStatement` keeps only the raw `sqlite3*` of its database, not the
/// `SQLiteDatabase` object, so in an optimised build the database can be released first; its
/// `deinit` calls `sqlite3_close`, which fails with SQLITE_BUSY while statements are not yet
/// finalized, and the connection (about 120 KB and the file's descriptor) is never closed.
/// Debug builds keep locals to the end of their scope, so the leak shows under `-c release`
/// (`scripts/fuzz`: the replayer built with `-c release` grows by about 0.12 MB per database).
@Suite struct SQLiteLifetimeKnownIssueTests {
    static func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }

    @Test func writingADatabaseLeavesNoDescriptorOpen() throws {
        let run = try AuditEngine(configuration: AuditConfiguration(jobs: 1))
            .run(paths: [Repository.path("SampleLogs/violations/app-2026-11-20-broken.ndjson")])
        let scratch = try ScratchDirectory()
        let before = Self.openDescriptors()
        for index in 0..<20 {
            try SQLiteWriter.write(run, to: scratch.path("db-\(index).sqlite"), toolVersion: "test")
        }
        let after = Self.openDescriptors()
        withKnownIssue("SQLiteStatement does not keep its SQLiteDatabase alive: sqlite3_close fails (SQLITE_BUSY) in optimised builds", isIntermittent: true) {
            #expect(after <= before, "\(after - before) descriptor(s) left open by 20 databases")
        }
    }
}
