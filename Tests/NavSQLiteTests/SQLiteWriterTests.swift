import Foundation
import NavResults
import NavEngine
import NavSQLite
import NavTestSupport
import Testing

/// The sessions database writer.
@Suite struct SQLiteWriterTests {
    /// Descriptors of this process open on files under `directory` (other tests running at the
    /// same time open files elsewhere).
    static func openDescriptors(under directory: String) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.filter { name in
            let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name)
            return target?.hasPrefix(directory) == true
        }.count
    }

    /// Each statement holds its database: were it to keep only the raw `sqlite3*`, an optimised
    /// build could release the database first, `sqlite3_close` would fail with SQLITE_BUSY and
    /// the connection and its descriptor would stay open. (Debug builds keep locals to the end
    /// of their scope: the fault shows under `-c release`, as in `scripts/fuzz`'s replayer.)
    @Test func writingADatabaseLeavesNoDescriptorOpen() throws {
        let run = try AuditEngine(configuration: AuditConfiguration(jobs: 1))
            .run(paths: [Repository.path("SampleLogs/violations/app-2026-11-20-broken.ndjson")])
        let scratch = try TemporaryDirectory()
        for index in 0..<20 {
            try SQLiteWriter.write(run, to: scratch.path("db-\(index).sqlite"), toolVersion: "test")
        }
        let open = Self.openDescriptors(under: scratch.url.path)
        #expect(open == 0, "\(open) of 20 databases are still open")
    }
}
