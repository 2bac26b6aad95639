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

/// `sessions --store`: each session's record, as `sessions` over every file writes it, in any
/// of its formats but sqlite (the store's record is its NDJSON line, read back for the others).
func writeStoredSessions(_ path: String, format: SessionRecordStream.Kind, output: OutputOptions, quiet: Bool) throws {
    let store = try openStore(path)
    let file = try OutputFile(path: output.output)
    let records = try SessionRecordStream(format, style: output.textStyle, to: file)
    do {
        try StoredRun.sessionRecords(store) { record in
            switch format {
            case .ndjson: try records.write(Array((record + "\n").utf8))
            case .json: try records.write(Array(record.utf8))
            case .csv, .text:
                guard let fields = SessionRecord(ndjson: record) else {
                    throw CommandFailure("The store \(path) is damaged: a session's record is not one navreplay wrote.")
                }
                try records.write(
                    format == .csv ? SessionWriter.csvRow(fields) : Array(SessionWriter.textLines(fields, style: output.textStyle).utf8))
            }
        }
    } catch let error as StoreError {
        throw CommandFailure(error.description)
    }
    try records.finish()
    try file.commit()
    let run = try storedAudit(path, quiet: true)
    try finish(run, output: output, quiet: quiet, failOnByDefault: .never)
}
