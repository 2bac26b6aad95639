#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import NavFuzzRuns
import NavInput
import NavReplay
import NavResults
import NavSQLite
import NavStore

/// The `store` target's `damaged` reader: a store read whole, then damaged as a disk, an editor
/// or a `sqlite3` shell would damage it (a flipped byte, a deleted row, a cut blob, an edited
/// column), then read again. The damaged store is either read exactly as before, or refused
/// with an error that names it ("The store STORE is damaged: ..."): never read as another
/// valid store. The input is `[selector][kind][position, 2 bytes][store file]`.
enum DamageCheck {
    enum Kind: UInt8, CaseIterable {
        case flippedByte, deletedRow, cutBlob, editedColumn
    }

    static let tables = [
        "meta", "batches", "files", "sessions", "findings", "finding_changes", "event_chunks", "late_events", "event_ids", "shared_ids",
    ]
    static let edits = [
        "UPDATE event_chunks SET lines = lines + 1", "UPDATE sessions SET status = 'bogus'", "UPDATE sessions SET record = '{'",
        "UPDATE meta SET value = 'abc' WHERE key = 'watermark_ms'", "UPDATE files SET lines = lines - 1",
        "UPDATE findings SET message = 'x'", "UPDATE sessions SET events = events + 1", "UPDATE batches SET watermark_ms = 'abc'",
        "UPDATE findings SET seq = seq + 1", "UPDATE event_ids SET entries = entries || x'00'",
    ]

    static func check(_ body: [UInt8], kind byte: UInt8) -> [String] {
        guard body.count > 2 else { return [] }
        let kind = Kind.allCases[Int(byte) % Kind.allCases.count]
        let position = Int(body[0]) << 8 | Int(body[1])
        return StoreCheck.withStoreFile(Array(body.dropFirst(2)), parameter: 255) { path, scratch in
            // A store that does not read whole is the `database` reader's: nothing to compare.
            guard case .success(let intact) = read(path, scratch) else { return [] }
            guard damage(path, kind, at: position, scratch) else { return [] }
            switch read(path, scratch) {
            case .success(let damaged):
                guard damaged != intact else { return [] }
                let first =
                    zip(damaged, intact).first { $0 != $1 }.map { "\($0.0.prefix(300)) against \($0.1.prefix(300))" }
                    ?? "\(damaged.count) against \(intact.count) parts"
                return ["\(kind) at \(position): the damaged store reads as another store: \(first)"]
            case .failure(let error):
                return "\(error)".contains(path) ? [] : ["\(kind) at \(position): an error that does not name the store: \(error)"]
            }
        }
    }

    struct Refused: Error { let message: String }

    /// Everything the readers give, or the first refusal; `verify` must refuse what it finds.
    static func read(_ path: String, _ scratch: ScratchSpace) -> Result<[String], Refused> {
        do {
            let store = try EventStore.openForReading(path: path, toolVersion: StoreCheck.toolVersion)
            let run = try StoredRun.audit(store)
            var counts = run.counts
            let byRule = counts.findingsByRule.map { "\($0.key.rawValue)=\($0.value)" }.sorted()
            counts.findingsByRule = [:]
            var seen = run.findings.map { "\($0)" } + ["\(counts)", byRule.joined(separator: ","), "\(run.fileReports)"]
            try StoredRun.sessionRecords(store) { seen.append($0) }
            _ = try StoredRun.writeHeldEvents(store, to: scratch.file("held"))
            var held: [UInt8] = []
            try LineReader.readWholeFile(scratch.file("held"), into: &held)
            seen.append(String(decoding: held, as: UTF8.self))
            try StoreVerification.verify(path: path, toolVersion: StoreCheck.toolVersion)
            return .success(seen)
        } catch {
            return .failure(Refused(message: "\(error)"))
        }
    }

    /// Damages the store at `path`; false when it could not.
    static func damage(_ path: String, _ kind: Kind, at position: Int, _ scratch: ScratchSpace) -> Bool {
        if kind == .flippedByte {
            var bytes: [UInt8] = []
            guard (try? LineReader.readWholeFile(path, into: &bytes)) != nil, !bytes.isEmpty else { return false }
            // Past the first 100 bytes (SQLite's header, whose damage the `database` reader feeds).
            let offset = bytes.count > 100 ? 100 + (position * 977) % (bytes.count - 100) : position % bytes.count
            bytes[offset] ^= UInt8(1 << (position % 8))
            return scratch.store(bytes, to: path)
        }
        // As another program writes the store: through SQLite's own VFS, which sums no page.
        guard let database = try? SQLiteDatabase(path: path, existing: true, checksums: false) else { return false }
        let table = tables[position % tables.count]
        let statement: String
        switch kind {
        case .deletedRow:
            statement = "DELETE FROM \(table) WHERE rowid IN (SELECT rowid FROM \(table) LIMIT 1 OFFSET \(position / 16 % 4))"
        case .cutBlob:
            statement =
                position % 2 == 0
                ? "UPDATE event_chunks SET data = substr(data, 1, length(data) - \(1 + position % 32)) WHERE chunk = (SELECT min(chunk) FROM event_chunks)"
                : "UPDATE event_ids SET entries = substr(entries, 1, length(entries) - \(1 + position % 16))"
        default:
            statement = edits[position % edits.count]
        }
        return (try? database.execute(statement)) != nil
    }
}
