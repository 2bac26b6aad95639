import ArgumentParser
import Foundation
import NavReplay
import NavReport
import NavSQLite
import NavResults

/// `--baseline` and `--write-baseline`, shared by `audit` and `validate`.
struct BaselineOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Findings accepted earlier (written by --write-baseline): they neither fail the run nor are printed; SARIF marks them unchanged.",
            valueName: "file"))
    var baseline: String?

    @Option(help: ArgumentHelp("Write every finding of this run to this file as the accepted baseline.", valueName: "file"))
    var writeBaseline: String?

    /// Whether a baseline is read or written (then every finding is needed at once).
    var isUsed: Bool { baseline != nil || writeBaseline != nil }

    /// Fingerprints the run when a baseline or SARIF needs them, writes `--write-baseline`, and
    /// splits the findings into accepted and new ones.
    func apply(to run: AuditRun, needFingerprints: Bool) throws -> BaselinedRun {
        guard baseline != nil || writeBaseline != nil || needFingerprints else {
            return BaselinedRun(full: run, shown: run, fingerprints: [], accepted: nil, fixed: 0)
        }
        let fingerprints = FindingFingerprint.compute(run)
        if let path = writeBaseline { try emit(Baseline.json(run, fingerprints: fingerprints), to: path) }
        guard let path = baseline else {
            return BaselinedRun(full: run, shown: run, fingerprints: fingerprints, accepted: nil, fixed: 0)
        }
        let bytes = try readWholeFile(path, as: "baseline file")
        let accepted: Baseline
        do {
            accepted = try Baseline(json: bytes)
        } catch {
            throw CommandFailure("The baseline file \(path) \(error)")
        }
        let comparison = accepted.compare(run, fingerprints: fingerprints)
        return BaselinedRun(
            full: run, shown: comparison.newFindings, fingerprints: fingerprints, accepted: comparison.accepted,
            fixed: comparison.fixed)
    }
}

/// A run with its baseline applied: `shown` has only the new findings.
struct BaselinedRun {
    var full: AuditRun
    var shown: AuditRun
    var fingerprints: [String]
    /// Per finding of `full`: accepted by the baseline. `nil` without a baseline.
    var accepted: [Bool]?
    var fixed: Int

    var acceptedCount: Int { accepted?.filter { $0 }.count ?? 0 }
}

/// Writes a CI format: JUnit XML, SARIF or GitHub workflow commands.
func emitCI(_ format: AuditFormat, _ result: BaselinedRun, passingName: String, to path: String?) throws {
    switch format {
    case .junit:
        try emit(JUnitWriter.xml(result.shown, passingName: passingName), to: path)
    case .sarif:
        try emit(
            SARIFWriter.json(
                result.full, fingerprints: result.fingerprints, accepted: result.accepted,
                toolVersion: NavReplayCommand.version),
            to: path)
    case .github:
        try emit(GitHubWriter.commands(result.shown), to: path)
    case .text, .ndjson, .json:
        break
    }
}

/// Writes the summary (of every finding) and decides the exit status (from the new findings).
func finish(_ result: BaselinedRun, output: OutputOptions, quiet: Bool) throws {
    if let path = output.summary { try emit(SummaryWriter.json(result.full), to: path) }
    if !quiet {
        var text = "navreplay: " + SummaryWriter.text(result.full) + "\n"
        if result.accepted != nil {
            text +=
                "navreplay: baseline: \(result.acceptedCount) accepted, "
                + "\(result.full.findings.count - result.acceptedCount) new, \(result.fixed) no longer found\n"
        }
        Terminal.writeError(text)
    }
    let status = exitStatus(result.shown, failOn: output.failLevel())
    if status != .success { throw status }
}

/// `navreplay sessions --format sqlite`: the database, or exit 2 when it cannot be written.
/// `sessions --format sqlite`: a stream that inserts each session's rows, in session order, as
/// the sessions fold, and what to call when the run is done (the summary, the commit).
func sessionsDatabase(at path: String, replace: Bool) throws -> (sink: AuditSink, finish: (AuditRun) throws -> Void) {
    // A database file is removed and created anew (with --replace) or opened: a device, a FIFO
    // or a symbolic link there would be replaced by a regular file (`-o /dev/null` as root
    // replaced the device).
    var status = stat()
    if lstat(path, &status) == 0, (status.st_mode & S_IFMT) != S_IFREG {
        throw CommandFailure("--output \(path) is not a regular file; a database is written to a file of its own. Please give a file path.")
    }
    let database = try sqliteFailure(path: path) { () throws(SQLiteError) in
        try SQLiteSessionsWriter(path: path, toolVersion: NavReplayCommand.version, existing: replace ? .replace : .append)
    }
    return (.streaming(database), { run in try sqliteFailure(path: path) { () throws(SQLiteError) in try database.finish(run) } })
}

/// Runs `body` (an audit whose sink is the database), phrasing the database's errors as
/// `sqliteFailure` does.
func phrasingSQLiteErrors<T>(path: String, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as SQLiteError {
        return try sqliteFailure(path: path) { () throws(SQLiteError) -> T in throw error }
    }
}

/// A SQLite error, as the command's failure: naming the database, and when the database is
/// refused, with the way out.
func sqliteFailure<T>(path: String, _ body: () throws(SQLiteError) -> T) throws -> T {
    do {
        return try body()
    } catch {
        switch error.kind {
        case .sqlite, .busy, .notADatabase, .fileSystem, .damaged:
            throw CommandFailure(error.description.contains(path) ? "\(error)" : "Cannot write \(path): \(error).")
        case .sessionAlreadyHeld:
            throw CommandFailure(
                "\(error). Give --replace to write a new database in its place, or leave out the logs it already holds.")
        case .notASessionsDatabase:
            throw CommandFailure("\(error). Give --replace to overwrite it, or another --output path.")
        }
    }
}
