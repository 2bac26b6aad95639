public import ArgumentParser
import Foundation
import NavJSON
import NavModel
import NavReplay
import NavReport
import NavSQLite
import NavEngine
import NavInput
import NavResults
import SystemPackage

/// The `navreplay` root command.
public struct NavReplayCommand: ParsableCommand {
    public static let version = "0.1.0"

    public static let configuration = CommandConfiguration(
        commandName: "navreplay",
        abstract: "Audit navigation event logs: check every line, rebuild each session, flag broken invariants.",
        discussion: """
            Reads NDJSON logs written by an app's navigation router (plain or .gz, files, directories, or - for \
            standard input), checks every line against the v1 event schema, groups events into sessions, folds \
            them back into router state and reports every broken rule with a stable id.

            Exit status: 0 nothing at or above --fail-on; 1 findings at or above it; 2 a usage error or an \
            input that could not be read completely (the other inputs are still audited).

            Example:
              navreplay audit SampleLogs
            """,
        version: version,
        subcommands: [
            Audit.self, Validate.self, Sessions.self, Replay.self, Report.self, Ingest.self, Repro.self, Rules.self, Schema.self,
            Partition.self, Paths.self, Funnel.self, Diff.self, Infer.self, Coverage.self, Verify.self,
        ],
        defaultSubcommand: nil)

    public init() {}

    /// Runs the command line and exits with the contract's status codes (usage errors are 2).
    public static func mainWithContractExitCodes(_ arguments: [String]? = nil) -> Never {
        let arguments = NegativeValues.attached(arguments ?? Array(CommandLine.arguments.dropFirst()))
        if let unknown = unknownSubcommand(in: arguments) {
            Terminal.writeError("navreplay: error: \(unknown)\nSee 'navreplay --help'.\n")
            Foundation.exit(2)
        }
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
            exitWritingStandardOutput(0)
        } catch let failure as CommandFailure {
            Terminal.writeError("navreplay: error: " + failure.description + "\n")
            Foundation.exit(2)
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                // --help and --version: written as every output is, so a full disk or a closed
                // descriptor is an error (exit 2), not a help screen reported as shown.
                do {
                    if !message.isEmpty { try emit(Array((HelpLayout.largeInputsLast(message) + "\n").utf8), to: nil) }
                } catch {
                    Terminal.writeError("navreplay: error: \(error)\n")
                    Foundation.exit(2)
                }
                exitWritingStandardOutput(0)
            }
            if !message.isEmpty { Terminal.writeError("navreplay: " + message + "\n") }
            // ArgumentParser reports usage errors as 64 (EX_USAGE); the contract says 2. Any other
            // error that is not an exit status of ours (a file the system refused: `repro
            // --output-dir` naming a file) would be 1, which means findings: it is 2, as a file
            // that cannot be read or written is.
            if code == .validationFailure || (code == .failure && !(error is ExitCode)) { Foundation.exit(2) }
            exitWritingStandardOutput(code.rawValue)
        }
    }

    /// Exits once what `print` left in standard output's buffer (repro's list of files) is
    /// written; when it cannot be, exits 2 and says why, as every other output does.
    static func exitWritingStandardOutput(_ code: Int32) -> Never {
        if fflush(nil) != 0 {  // every output stream; standard output is the only one used
            Terminal.writeError("navreplay: error: Cannot write standard output: \(String(cString: strerror(errno))).\n")
            Foundation.exit(2)
        }
        Foundation.exit(code)
    }
}

extension NavReplayCommand {
    /// The message for a first argument that names no subcommand (every command needs one), with
    /// the closest name when one is near; `nil` when the first argument is a subcommand or an
    /// option. Left to ArgumentParser, such a word would be read as an input, and the error would
    /// be "unexpected arguments".
    static func unknownSubcommand(in arguments: [String]) -> String? {
        guard let word = arguments.first, !word.hasPrefix("-") else { return nil }
        let names = configuration.subcommands.map { $0._commandName }
        guard !names.contains(word), word != "help" else { return nil }
        let scored = names.map { (name: $0, distance: editDistance($0, word)) }
        if let best = scored.min(by: { $0.distance < $1.distance }), best.distance <= max(1, word.count / 3) {
            return "unknown subcommand '\(word)'; did you mean '\(best.name)'?"
        }
        return "unknown subcommand '\(word)'; the subcommands are \(names.joined(separator: ", "))."
    }

    /// Levenshtein distance, with a swap of two neighbours counted as one edit (`audti`).
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var table = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}

/// The help screen's order. ArgumentParser prints titled option groups before the untitled
/// OPTIONS section; the options most runs need are untitled, so the large-input group is
/// moved after them.
enum HelpLayout {
    static let largeInputsHeader = "LARGE INPUTS:"

    static func largeInputsLast(_ help: String) -> String {
        let body = help.reversed().drop { $0 == "\n" }.reversed()
        let ending = String(help.dropFirst(body.count))
        var sections = String(body).components(separatedBy: "\n\n")
        guard let large = sections.firstIndex(where: { $0.hasPrefix(largeInputsHeader + "\n") }),
            let options = sections.firstIndex(where: { $0.hasPrefix("OPTIONS:\n") }), large < options
        else { return help }
        let moved = sections.remove(at: large)
        sections.insert(moved, at: options)  // `options` moved up by one: this lands just after it
        return sections.joined(separator: "\n\n") + ending
    }
}

/// Options shared by every command that reads logs: the common ones, then (under their own
/// title in --help) those for large inputs and distributed runs.
struct InputOptions: ParsableArguments {
    @Argument(
        help: ArgumentHelp(
            "Log files (.ndjson, .ndjson.gz), directories (their *.ndjson and *.ndjson.gz files, recursively), or - for standard input.",
            valueName: "file"))
    var inputs: [String] = []

    @Option(
        help: ArgumentHelp(
            "The navigation model file. Default: the model.json of a directory argument, else the built-in PoC model.",
            valueName: "model.json"))
    var model: String?

    @Flag(name: .shortAndLong, help: "No progress line, no summary and no warnings about inputs on standard error (errors still go there).")
    var quiet = false

    @OptionGroup(title: "Large inputs") var large: LargeInputOptions

    var maxLineBytes: Int { large.maxLineBytes }
    var jobs: Int { large.jobs }
    var preGrouped: Bool { large.preGrouped }
    var memoryLimit: ByteSize? { large.memoryLimit }
    var locatedInput: String? { large.locatedInput }
    var tempDir: String? { large.tempDir }
    var noMmap: Bool { large.noMmap }

    /// Every command reads logs; `audit`, `sessions` and `report` may read a store instead.
    func requireInputs(orStore store: String? = nil) throws {
        if store != nil {
            if !inputs.isEmpty {
                throw ValidationError("--store is the input: give no log files with it (navreplay ingest adds them to the store).")
            }
            return
        }
        if inputs.isEmpty { throw ValidationError("Please provide at least one log file, directory, or - for standard input.") }
    }

    func validate() throws { try Self.validate(maxLineBytes: maxLineBytes, jobs: jobs) }

    /// Every command's `--max-line-bytes` and `--jobs`, `ingest`'s too. Upper bounds as well:
    /// sizes past them overflowed in the reader's arithmetic, and a huge --jobs made one fold job
    /// per number (a crash, or a hang).
    static func validate(maxLineBytes: Int, jobs: Int) throws {
        if maxLineBytes < 1 || maxLineBytes > largestLineLimit {
            throw ValidationError("Please give --max-line-bytes a number from 1 to \(largestLineLimit) (1 TiB).")
        }
        if jobs < 0 || jobs > mostJobs { throw ValidationError("Please give --jobs a number from 0 to \(mostJobs).") }
    }

    static let largestLineLimit = 1 << 40
    static let mostJobs = 1024

    /// The files to read, the models, and which model each file folds with: `--model` for all,
    /// else each file's nearest directory `model.json`, else the built-in PoC model.
    func resolve() throws -> (inputs: [AuditInput], models: [NavigationModel], skipped: [InputResolver.Skipped]) {
        let resolution = InputResolver.resolution(inputs)
        let files = resolution.files
        if let model {
            return (files.map { AuditInput(path: $0.path) }, [try loadModel(model)], resolution.skipped)
        }
        // Models are numbered in the order of their paths (UTF-8 bytes), not of the arguments:
        // two sessions with one id under two models are ordered by model, so the output stays
        // the same bytes whatever order the inputs are given in (docs/outputs.md).
        var paths: [String] = []
        for file in files { if let path = file.modelPath, !paths.contains(where: { $0.utf8Equals(path) }) { paths.append(path) } }
        paths.sort { $0.utf8Precedes($1) }
        var models: [NavigationModel] = [.poc]
        var index: [String: Int] = [:]
        for path in paths {
            index[path] = models.count
            models.append(try loadModel(path))
        }
        let result = files.map { file in AuditInput(path: file.path, model: file.modelPath.flatMap { index[$0] } ?? 0) }
        return (result, models, resolution.skipped)
    }

    func loadModel(_ path: String) throws -> NavigationModel {
        let bytes = try readWholeFile(path, as: "model file")
        do {
            return try NavigationModel.load(json: bytes)
        } catch {
            throw CommandFailure("The model file \(path) is invalid: \(error)")
        }
    }
}

/// How a large input is read: cores, memory, spill files, pre-grouped and located input. Kept
/// apart so that --help shows the options most runs need first.
struct LargeInputOptions: ParsableArguments {
    @Option(help: "How many cores to use (0: all): sessions folded, or lines checked (validate), at once.")
    var jobs: Int = 0

    @Option(
        help: ArgumentHelp(
            "Hold about this much decoded input in memory before spilling to temporary files (e.g. 128M, 2G). Default: a quarter of RAM.",
            valueName: "size"),
        transform: ByteSize.parse)
    var memoryLimit: ByteSize?

    @Option(
        help: ArgumentHelp(
            "Where spill files go (default: $TMPDIR or /tmp). They are removed when done or interrupted.", valueName: "directory"))
    var tempDir: String?

    @Flag(help: "The input is already grouped by session and ordered by seq (as Spark delivers it): fold one session at a time.")
    var preGrouped = false

    @Option(
        help: ArgumentHelp(
            "Located input, for distributed runs: each input line is FILE_INDEX<TAB>LINE<TAB>original line, where FILE_INDEX is a 0-based line of this file listing the original paths; findings carry the original file and line.",
            valueName: "paths-file"))
    var locatedInput: String?

    @Flag(
        help:
            "Never map input files into memory. By default, large plain files that fit --memory-limit are mapped; one that shrinks while it is audited (log rotation by copytruncate) ends the run with status 2."
    )
    var noMmap = false

    @Option(help: "Lines longer than this many bytes are invalid; only this many bytes of them are ever held.")
    var maxLineBytes: Int = LineReader.defaultMaxLineBytes
}

/// Where findings go and when the run fails.
struct OutputOptions: ParsableArguments {
    @Option(name: .shortAndLong, help: ArgumentHelp("Write the report to this file instead of standard output.", valueName: "file"))
    var output: String?

    @Option(help: ArgumentHelp("Write the summary as JSON to this file.", valueName: "file"))
    var summary: String?

    @Option(
        help: ArgumentHelp(
            "Exit 1 when a finding is at or above this severity: error, warning or never. Default: error for audit, validate and replay; never for sessions and report, which export data.",
            valueName: "severity"))
    var failOn: FailOn?

    /// `--fail-on`, or the command's default when it is not given.
    func failLevel(default level: FailOn = .error) -> FailOn { failOn ?? level }
}

enum FailOn: String, ExpressibleByArgument, CaseIterable {
    case error, warning, never

    func fails(_ severity: Severity) -> Bool {
        switch self {
        case .error: severity == .error
        case .warning: true
        case .never: false
        }
    }
}

/// An error the command has already explained; exits 2.
struct CommandFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

// MARK: Running an audit

enum Terminal {
    static var standardErrorIsTerminal: Bool { isatty(2) == 1 }
    static var standardOutputIsTerminal: Bool { isatty(1) == 1 }
    static var colorAllowed: Bool {
        let noColor = ProcessInfo.processInfo.environment["NO_COLOR"]
        return noColor == nil || noColor == ""
    }

    /// Writes to standard error with write(2), ignoring failures: Foundation's
    /// `FileHandle.write` stops the process when the write fails (`2>/dev/full`, a closed
    /// descriptor, a reader gone with SIGPIPE ignored), and a summary that cannot be shown must
    /// not turn a run's exit status into a crash.
    static func writeError(_ text: String) {
        var text = text
        text.withUTF8 { bytes in _ = try? FileDescriptor.standardError.writeAll(UnsafeRawBufferPointer(bytes)) }
    }
}

/// Runs the engine with a progress line on a terminal.
func runAudit(
    _ input: InputOptions, quarantine: String? = nil, sessionOptions: SessionAuditOptions = .init(),
    onlySession: String? = nil, foldSessions: Bool = true, sink: AuditSink? = nil,
    configure: (inout AuditConfiguration) throws -> Void = { _ in }
) throws -> AuditRun {
    let (inputs, models, skipped) = try input.resolve()
    var configuration = AuditConfiguration(
        model: models[0], maxLineBytes: input.maxLineBytes, quarantinePath: quarantine, jobs: input.jobs,
        sessionOptions: sessionOptions, onlySession: onlySession)
    configuration.foldSessions = foldSessions
    configuration.preGrouped = input.preGrouped
    if let limit = input.memoryLimit { configuration.memoryLimit = limit.bytes }
    configuration.temporaryDirectory = input.tempDir
    configuration.mapsInputs = !input.noMmap
    if let list = input.locatedInput {
        guard let text = String(bytes: try readWholeFile(list, as: "located-input paths file"), encoding: .utf8) else {
            throw CommandFailure("The located-input paths file \(list) is not UTF-8 text.")
        }
        configuration.locatedPaths = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            .filter { !$0.isEmpty }
    }
    try configure(&configuration)
    if let overrides = ProcessInfo.processInfo.environment[AuditTuning.environmentVariable] {
        do { try configuration.tuning.apply(overrides: overrides) } catch { throw CommandFailure(error.description) }
    }
    // Located input is read as FILE_INDEX<TAB>LINE<TAB>line: its files are not logs as such.
    let notes =
        input.quiet || input.locatedInput != nil
        ? [] : InputSniffer.notes(for: inputs.map(\.path), maxLineBytes: input.maxLineBytes)
    let engine = AuditEngine(configuration: configuration)
    let progress = ProgressLine(enabled: !input.quiet && Terminal.standardErrorIsTerminal)
    var sink = sink
    if case .streaming(let formatter) = sink {
        // The progress line goes before the first output, which may share the terminal.
        sink = .streaming(ProgressClearing(formatter, progress: progress))
    }
    var run: AuditRun
    do {
        run = try engine.run(inputs: inputs, models: models, sink: sink) { progress.update($0) }
        run.phraseErrors()
    } catch let error as SQLiteError {
        progress.clear()
        throw error  // the sessions database's own refusals are phrased by its command
    } catch let error as InputError {
        progress.clear()
        throw CommandFailure("\(error.phrased)")
    } catch {
        progress.clear()
        throw CommandFailure("\(error)")
    }
    progress.clear()
    for error in run.inputErrors { Terminal.writeError("navreplay: error: \(safe(error.description))\n") }
    if !input.quiet { for entry in skipped { Terminal.writeError("navreplay: warning: \(safe(entry.description))\n") } }
    for note in notes { Terminal.writeError("navreplay: warning: \(safe(note))\n") }
    if !input.quiet, input.locatedInput == nil {
        for report in run.fileReports where report.path == "-" && report.error == nil && report.lines == 0 {
            Terminal.writeError("navreplay: warning: standard input is empty: it holds no events.\n")
        }
    }
    return run
}

/// A streaming formatter whose output begins once the progress line is cleared.
final class ProgressClearing: StreamingFormatter {
    private let formatter: any StreamingFormatter
    private let progress: ProgressLine

    init(_ formatter: any StreamingFormatter, progress: ProgressLine) {
        self.formatter = formatter
        self.progress = progress
    }

    var sessionFormat: any SessionFormat { formatter.sessionFormat }

    func begin(invalid: [Finding], files: [String]) throws {
        progress.clear()
        try formatter.begin(invalid: invalid, files: files)
    }

    func write(_ bytes: [UInt8]) throws { try formatter.write(bytes) }

    func write(session audit: SessionAudit, files: [String]) throws { try formatter.write(session: audit, files: files) }
}

extension InputError {
    /// The error with its remedy phrased in this command line's options (the libraries name
    /// none).
    var phrased: InputError {
        guard let remedy else { return self }
        var error = self
        error.remedy = nil
        switch remedy {
        case .readUngrouped: error.message += " (run without --pre-grouped)"
        case .chooseTemporaryDirectory: error.message += " (--temp-dir)"
        }
        return error
    }
}

extension AuditRun {
    /// Phrases every input error's remedy before any format writes it.
    mutating func phraseErrors() {
        for index in fileReports.indices { fileReports[index].error = fileReports[index].error?.phrased }
    }
}

/// The exit status of docs/outputs.md.
func exitStatus(_ run: AuditRun, failOn: FailOn) -> ExitCode {
    if !run.inputErrors.isEmpty { return ExitCode(2) }
    // The counts by rule hold every finding: those written (or kept) and those past
    // --max-findings-per-session, which are counted, not kept, and fail the run by their own
    // severity. (A baseline cannot accept those: they have no fingerprint.)
    if run.counts.findingsByRule.contains(where: { $0.value > 0 && failOn.fails($0.key.severity) }) { return ExitCode(1) }
    return .success
}

/// A single progress line on standard error, redrawn at most a few times a second.
final class ProgressLine: @unchecked Sendable {
    // @unchecked: used from the engine's reading loop, then from fold jobs one call at a time.
    private let enabled: Bool
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant
    private var lastDraw: ContinuousClock.Instant
    private var drawn = false
    private var foldStarted: ContinuousClock.Instant?

    init(enabled: Bool) {
        self.enabled = enabled
        started = clock.now
        lastDraw = started
    }

    func update(_ snapshot: ProgressSnapshot) {
        guard enabled else { return }
        let now = clock.now
        if snapshot.fold != nil, foldStarted == nil { foldStarted = now }
        guard now - lastDraw > .milliseconds(250) else { return }
        lastDraw = now
        let seconds = max(0.001, Double((now - started).components.attoseconds) / 1e18 + Double((now - started).components.seconds))
        let megabytes = Double(snapshot.bytes) / 1_048_576
        var read = "\(String(format: "%.1f", megabytes)) MB"
        var eta = ""
        if snapshot.totalBytes > 0 {
            let fraction = min(1, Double(snapshot.bytes) / Double(snapshot.totalBytes))
            read += " of \(String(format: "%.0f", Double(snapshot.totalBytes) / 1_048_576)) MB (\(Int(fraction * 100))%)"
            if fraction > 0.01 {
                let remaining = Int(seconds / fraction - seconds)
                eta = ", ETA \(remaining / 60):\(String(format: "%02d", remaining % 60))"
            }
        }
        var line =
            "\r\u{1B}[2Kreading \(read), \(Int(Double(snapshot.lines) / seconds)) events/s, "
            + "\(snapshot.sessions) sessions, \(snapshot.findings) invalid lines\(eta)"
        if let fold = snapshot.fold {
            // Reading is done; spilled partitions fold. The ETA is the fold's, from its own pace.
            if foldStarted == nil { foldStarted = now }
            let fraction = Double(fold.partitionsFolded) / Double(max(1, fold.partitions))
            let elapsed = (now - (foldStarted ?? now)).components
            let folding = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
            let remaining = fraction > 0 ? Int(folding / fraction - folding) : 0
            if fold.sessionsFoldedAgain > 0 {
                line =
                    "\r\u{1B}[2Kfolded again: \(fold.sessionsFoldedAgain) sessions that share event ids with others, "
                    + "\(fold.findings + snapshot.findings) findings"
            } else {
                line =
                    "\r\u{1B}[2Kfolding sessions: \(fold.partitionsFolded) of \(fold.partitions) partitions (\(Int(fraction * 100))%), "
                    + "\(snapshot.sessions) sessions, \(fold.findings + snapshot.findings) findings so far"
                    + (fold.partitionsFolded > 0 ? ", ETA \(remaining / 60):\(String(format: "%02d", remaining % 60))" : "")
            }
        }
        Terminal.writeError(line)
        drawn = true
    }

    func clear() {
        if drawn { Terminal.writeError("\r\u{1B}[2K") }
    }
}
