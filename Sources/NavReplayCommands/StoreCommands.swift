import ArgumentParser
import NavJSON
import NavReplay
import NavReport
import NavResults
import NavStore

/// `--store STORE` as the input of `audit`, `sessions` and `report`.
struct StoreInput: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Read an event store (made by navreplay ingest) instead of log files: its sessions as folded so far.", valueName: "store"))
    var store: String?
}

/// Opens a store for reading, its refusals phrased as the command's errors.
func openStore(_ path: String) throws -> EventStore {
    do {
        return try EventStore.openForReading(path: path, toolVersion: NavReplayCommand.version)
    } catch let error as StoreError {
        throw CommandFailure(error.description)
    }
}

/// The findings of a store, as an audit of every file it has read, with a note of the
/// sessions still open (their last correlation group is not judged yet).
func storedAudit(_ path: String, quiet: Bool) throws -> AuditRun {
    let store = try openStore(path)
    do {
        let run = try StoredRun.audit(store)
        if !quiet, let open = try? StoredRun.openSessions(store), open > 0 {
            Terminal.writeError(
                "navreplay: note: \(open) sessions of the store are open: their findings may still change (navreplay ingest --close-all closes them).\n"
            )
        }
        return run
    } catch let error as StoreError {
        throw CommandFailure(error.description)
    }
}

/// `sessions --store`: each session's record, as `sessions` over every file writes it.
func writeStoredSessions(_ path: String, json: Bool, output: OutputOptions, quiet: Bool) throws {
    let store = try openStore(path)
    let file = try OutputFile(path: output.output)
    var first = true
    if json { try file.write(Array("[".utf8)) }
    do {
        try StoredRun.sessionRecords(store) { record in
            if json {
                try file.write(Array(((first ? "" : ",") + record).utf8))
            } else {
                try file.write(Array((record + "\n").utf8))
            }
            first = false
        }
    } catch let error as StoreError {
        throw CommandFailure(error.description)
    }
    if json { try file.write(Array("]\n".utf8)) }
    try file.commit()
    let run = try storedAudit(path, quiet: true)
    try finish(run, output: output, quiet: quiet, failOnByDefault: .never)
}
