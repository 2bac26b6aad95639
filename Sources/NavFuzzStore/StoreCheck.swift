#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import NavFuzzRuns
import NavModel
import NavResults
import NavSQLite
import NavStore

/// The `store` fuzz target: the readers of the ingestion store (`navreplay ingest --store`),
/// fed a corrupted store. A store is an SQLite file whose smallest form is a few tens of KB
/// (a page per table and index), too large for `runs`' 4 KB inputs, and reading it links SQLite:
/// it is a target of its own. (`IngestCheck`, the `ingest` target, ingests a batch into one.)
///
/// The input's first byte picks the reader (`selection`, modulo its count), the second is a
/// parameter, the rest is what the reader is given: a stored chunk of lines for `chunk`, a
/// whole store file for `database`, a damage and a store file for `damaged`. Every reader must end with a result or with an error that
/// names the store: never crash, loop, or read a damaged chunk as if it were whole.
public enum StoreCheck {
    public enum Reader: UInt8, CaseIterable, Sendable {
        /// `ChunkCodec.locatedLines`: a session's stored lines (`event_chunks.data`), against a
        /// plain restatement of the framing, and written again.
        case chunk
        /// A store read as `audit --store`, `sessions --store`, `report --store` and `ingest`'s
        /// printing read it: findings, records, changes, trends and every held event.
        case database
        /// A store read whole, damaged (`DamageCheck`), and read again: read exactly, or refused.
        case damaged
    }

    /// The readers as the first byte picks them, a third each.
    public static let selection: [Reader] = [.chunk, .database, .damaged]

    /// The tool version the seeds are written with and the checks open them with, so that a
    /// seed stays a readable store whatever version navreplay is.
    package static let toolVersion = "fuzz"

    /// The byte that picks `reader` (for seeds).
    package static func selector(of reader: Reader) -> UInt8 { UInt8(selection.firstIndex(of: reader)!) }

    public static func check(_ input: UnsafeBufferPointer<UInt8>) -> [String] {
        guard let first = input.first else { return [] }
        let reader = selection[Int(first) % selection.count]
        let body = Array(input.dropFirst(2))
        let violations: [String]
        switch reader {
        case .chunk:
            violations = checkChunk(body)
        case .database:
            let parameter = input.count > 1 ? input[1] : 0
            violations = withStoreFile(body, parameter: parameter) { path, scratch in checkReading(path, in: scratch) }
        case .damaged:
            violations = DamageCheck.check(body, kind: input.count > 1 ? input[1] : 0)
        }
        return violations.map { "\(reader): \($0)" }
    }

    /// How many of a store file's `count` bytes a check writes: below 128 the parameter cuts
    /// the file, as a copy or a disk that lost its end would.
    static func keptBytes(of count: Int, parameter: UInt8) -> Int { parameter < 128 ? count * Int(parameter) / 128 : count }

    /// Runs `body` on `bytes` written as a store file (`keptBytes`) in a scratch directory.
    static func withStoreFile(_ bytes: [UInt8], parameter: UInt8, _ body: (String, ScratchSpace) -> [String]) -> [String] {
        guard let scratch = ScratchSpace() else { return ["cannot make a scratch directory"] }
        let kept = keptBytes(of: bytes.count, parameter: parameter)
        let path = scratch.file("nav.db")
        guard scratch.store(Array(bytes.prefix(kept)), to: path) else { return ["cannot write the store file"] }
        var violations = body(path, scratch)
        // The check's own files; anything else left (an ingest's scratch directory) is a broken
        // invariant.
        for name in ["nav.db", "nav.db-wal", "nav.db-shm", "nav.db-journal", "batch.ndjson", "held"] { unlink(scratch.file(name)) }
        violations += scratch.remove()
        return violations
    }

    // MARK: The chunk codec

    /// A chunk's located lines agree with the plain restatement (both refuse it, or both give
    /// the same lines), and an accepted chunk's lines, written again, read back the same.
    static func checkChunk(_ body: [UInt8]) -> [String] {
        let read = ChunkCodec.locatedLines(body)
        let restated = NaiveChunk.lines(body)
        guard read == restated.map({ NaiveChunk.located($0) }) else {
            return [
                "the codec and the restatement disagree (\(read == nil ? "refused" : "read") against \(restated == nil ? "refused" : "read"))"
            ]
        }
        guard let restated else { return [] }
        var again: [UInt8] = []
        for line in restated {
            line.prefix.withUnsafeBufferPointer { prefix in
                line.text.withUnsafeBufferPointer { text in _ = ChunkCodec.append(prefix: prefix, text: text, to: &again) }
            }
        }
        return ChunkCodec.locatedLines(again) == read ? [] : ["the chunk's lines written again read back otherwise"]
    }

    // MARK: A store read

    /// Every reader of a stored store; each error must name the store's file.
    static func checkReading(_ path: String, in scratch: ScratchSpace) -> [String] {
        var violations: [String] = []
        func expectNamed(_ error: any Error, _ what: String) {
            if !"\(error)".contains(path) { violations.append("\(what): an error that does not name the store: \(error)") }
        }
        let store: EventStore
        do {
            store = try EventStore.openForReading(path: path, toolVersion: toolVersion)
        } catch {
            expectNamed(error, "opening")
            return violations
        }
        do {
            let run = try StoredRun.audit(store)
            try StoredRun.sessionRecords(store) { _ in }
            _ = try StoredRun.openSessions(store)
            for batch in (try? batches(store)) ?? [] {
                for change in [StoredChanges.Change.new, .withdrawn] {
                    _ = try StoredChanges.findings(store, batch: batch, change: change, files: run.files)
                }
            }
            _ = try StoredRun.trends(store)
        } catch {
            expectNamed(error, "reading")
        }
        // Every held chunk as the report's timelines read it (as located input: the located
        // prefixes' parser is the `located` target's).
        do {
            _ = try StoredRun.writeHeldEvents(store, to: scratch.file("held"))
        } catch {
            expectNamed(error, "the held events")
        }
        // The chunks one by one, against the restatement: a damaged chunk read as whole is
        // the fault this target looks for.
        if let chunks = try? store.database.prepare("SELECT data FROM event_chunks ORDER BY chunk LIMIT 64") {
            try? chunks.forEachRow([]) { row in violations += checkChunk(row.blob(0)) }
        }
        return violations
    }

    static func batches(_ store: EventStore) throws -> [Int64] {
        var batches: [Int64] = []
        try store.database.prepare("SELECT batch FROM batches ORDER BY batch LIMIT 8").forEachRow([]) { batches.append($0.integer(0)) }
        return batches
    }
}
