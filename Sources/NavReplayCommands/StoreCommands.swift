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

/// The findings of a store, each with the states around it (what `audit` over the logs
/// prints in text, json and ndjson `--explain`): the held sessions are folded again with their
/// states, as `report --store` folds them. The findings are the store's; a finding the refold
/// does not find again (a pruned session's: its events are gone) is printed without states.
func storedAuditExplained(_ path: String, input: InputOptions) throws -> AuditRun {
    var run = try storedAudit(path, quiet: input.quiet)
    let store = try openStore(path)
    let cap: Int
    do {
        cap = try StoredRun.maxFindingsPerSession(store)
    } catch let error as StoreError {
        throw CommandFailure(error.description)
    }
    let findings = FindingsAccumulator()
    _ = try foldHeldSessions(
        store, input: input, sessionOptions: SessionAuditOptions(maxFindings: cap, keepStates: true, recordScreens: false),
        sink: .accumulating(findings))
    StoredRun.explain(&run, with: findings.finalize())
    return run
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
