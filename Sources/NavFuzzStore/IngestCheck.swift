#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import NavFuzzRuns
import NavModel
import NavStore

/// The `ingest` fuzz target: a batch ingested into a corrupted store, `ingest`'s readers (the
/// files read so far, the sessions, event ids, shared ids and stored chunks) on what they find,
/// then the fold and the commit, and the store read back (`StoreCheck`). Like `pipeline` it runs
/// a whole command (the engine, SQLite's writes), at tens of executions a second, not thousands.
///
/// The input is a parameter byte (below 128 it cuts the file) and a store file. A file that is
/// not an SQLite database is left alone: an ingest would make a new store in its place.
public enum IngestCheck {
    public static func check(_ input: UnsafeBufferPointer<UInt8>) -> [String] {
        guard let parameter = input.first else { return [] }
        let body = Array(input.dropFirst())
        guard StoreCheck.keptBytes(of: body.count, parameter: parameter) >= 100, body.starts(with: Array("SQLite format 3\u{0}".utf8))
        else { return [] }
        return StoreCheck.withStoreFile(body, parameter: parameter) { path, scratch in checkIngest(path, in: scratch) }
    }

    /// A batch ingested into the damaged store: it commits, or ends with an error naming the
    /// store (or the batch's file), and the store reads back after it.
    static func checkIngest(_ path: String, in scratch: ScratchSpace) -> [String] {
        let batch = scratch.file("batch.ndjson")
        guard scratch.store(StoreSeeds.laterBatch, to: batch) else { return ["cannot write the batch"] }
        var violations: [String] = []
        do {
            let store = try EventStore.openForWriting(
                path: path, model: .poc, modelText: NavigationModel.pocJSON, toolVersion: StoreCheck.toolVersion, lockWait: 0)
            var options = IngestOptions()
            options.jobs = 1
            options.temporaryDirectory = scratch.path
            options.closeAll = true
            _ = try Ingestion.run(store: store, paths: [batch], options: options)
            try store.waitForCheckpoint()
        } catch {
            let text = "\(error)"
            if !text.contains(path) && !text.contains(batch) {
                violations.append("an ingest's error that names neither the store nor the batch: \(text)")
            }
            return violations
        }
        return violations + StoreCheck.checkReading(path, in: scratch)
    }
}
