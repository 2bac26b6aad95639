import ArgumentParser
import Foundation
import NavJSON
import NavModel
import NavReplay
import NavReport
import NavEngine
import NavResults

extension NavReplayCommand {
    struct Audit: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check, group, fold and audit logs; report every finding.",
            discussion: """
                Findings go to standard output (or --output), a summary to standard error (or --summary as JSON).

                Examples:
                  navreplay audit SampleLogs
                  navreplay audit --format ndjson --fail-on warning logs/*.ndjson.gz
                  cat today.ndjson | navreplay audit --model app-model.json -
                  navreplay audit --format sarif --baseline navreplay-baseline.json logs/ > navreplay.sarif
                  navreplay audit --write-baseline navreplay-baseline.json logs/
                """)

        @OptionGroup var output: OutputOptions

        @Option(
            help: "text (for people), ndjson (one finding a line), json (one document with explanations), or for CI: junit, sarif, github.")
        var format: AuditFormat = .text

        @OptionGroup var input: InputOptions

        @OptionGroup var baseline: BaselineOptions

        @Option(help: ArgumentHelp("Write every invalid line to this file, as NDJSON with its source and raw bytes.", valueName: "file"))
        var quarantine: String?

        @Flag(help: "With --format ndjson: add the witness event and the state before and after to each finding.")
        var explain = false

        @Option(help: "Keep at most this many findings per session (the rest are counted in the summary).")
        var maxFindingsPerSession: Int = 10_000

        @OptionGroup var store: StoreInput

        @OptionGroup var empty: EmptyInputOption

        func validate() throws {
            try input.requireInputs(orStore: store.store)
            if maxFindingsPerSession < 0 { throw ValidationError("Please give --max-findings-per-session a number of 0 or more.") }
        }

        func run() throws {
            try input.refuseOverwritingInputs(
                output, also: [("--quarantine", quarantine), ("--write-baseline", baseline.writeBaseline)],
                reading: [("--baseline", baseline.baseline)], store: store.store)
            if let path = store.store {
                try auditStore(path)
                return
            }
            // Machine formats without explanations need no states and no screens: dropping them
            // keeps a large audit's memory near --memory-limit. (Text shows what changed; the
            // JSON document explains each finding.)
            let explained = explain || [.text, .json].contains(format)
            let sessionOptions = SessionAuditOptions(
                maxFindings: maxFindingsPerSession, keepStates: explained, recordScreens: false)
            if (format == .ndjson || format == .text) && !baseline.isUsed {
                // Written while the audit runs, session by session: memory then stays near
                // --memory-limit however many findings there are.
                let run = try streamAudit(sessionOptions: sessionOptions)
                try finish(run, output: output, quiet: input.quiet)
                try empty.refuseEmpty(run)
                return
            }
            let run = try collectFindings(sessionOptions: sessionOptions)
            try write(run)
            try empty.refuseEmpty(run)
        }

        /// The findings of a store, as an audit of every file it has read writes them.
        private func auditStore(_ path: String) throws {
            if quarantine != nil {
                throw CommandFailure("--quarantine is for navreplay ingest, which reads the lines: a store keeps no invalid line.")
            }
            // The formats that explain a finding take its states from the held sessions folded
            // again, as `audit` of the logs takes them from its fold.
            let explained = explain || [.text, .json].contains(format)
            try write(explained ? try storedAuditExplained(path, input: input) : try storedAudit(path, quiet: input.quiet))
        }

        private func write(_ run: AuditRun) throws {
            let result = try baseline.apply(to: run, needFingerprints: format == .sarif)
            switch format {
            case .text:
                let style = output.textStyle
                try emit(Array(TextWriter.findings(result.shown, style: style).utf8), to: output.output)
            case .ndjson:
                try emit(FindingWriter.ndjson(result.shown, explain: explain), to: output.output)
            case .json:
                try emit(FindingWriter.jsonDocument(result.shown), to: output.output)
            case .junit, .sarif, .github:
                try emitCI(format, result, passingName: "no findings", to: output.output)
            }
            try finish(result, output: output, quiet: input.quiet)
        }

        /// The run, with its sessions' findings only: a document format (or a baseline) needs
        /// every finding before it writes, and nothing else of a session. Each fold job keeps
        /// its sessions' findings; a clean session leaves nothing behind.
        private func collectFindings(sessionOptions: SessionAuditOptions) throws -> AuditRun {
            let findings = FindingsAccumulator()
            var run = try runAudit(input, quarantine: quarantine, sessionOptions: sessionOptions, sink: .accumulating(findings))
            run.sessions = findings.finalize()
            run.streamedFindings = nil
            return run
        }

        private func streamAudit(sessionOptions: SessionAuditOptions) throws -> AuditRun {
            let file = try OutputFile(path: output.output)
            if format == .text {
                let text = TextFindingsStream(style: output.textStyle, to: file)
                let run = try runAudit(input, quarantine: quarantine, sessionOptions: sessionOptions, sink: .streaming(text))
                // "no findings" only when every input was read: a missing one is not a clean one.
                if run.inputErrors.isEmpty { try text.finish() }
                try file.commit()
                return run
            }
            let ndjson = NDJSONFindingsStream(explain: explain, to: file)
            let run = try runAudit(input, quarantine: quarantine, sessionOptions: sessionOptions, sink: .streaming(ndjson))
            try file.commit()
            return run
        }
    }

    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check every line against the v1 event schema only (no sessions, no fold): for CI.",
            discussion: """
                Examples:
                  navreplay validate --format ndjson build/analytics/*.ndjson
                  navreplay validate --format github logs/          # annotations in a GitHub Actions job
                  navreplay validate --format junit logs/ > navreplay-junit.xml
                """)

        @OptionGroup var output: OutputOptions

        @Option(help: "text, ndjson, json, or for CI: junit, sarif, github.")
        var format: AuditFormat = .text

        @OptionGroup var input: InputOptions

        @OptionGroup var baseline: BaselineOptions

        @Option(help: ArgumentHelp("Write every invalid line to this file, as NDJSON with its source and raw bytes.", valueName: "file"))
        var quarantine: String?

        @OptionGroup var empty: EmptyInputOption

        func validate() throws { try input.requireInputs() }

        func run() throws {
            try input.refuseOverwritingInputs(
                output, also: [("--quarantine", quarantine), ("--write-baseline", baseline.writeBaseline)],
                reading: [("--baseline", baseline.baseline)])
            let run = try runAudit(input, quarantine: quarantine, foldSessions: false)
            let result = try baseline.apply(to: run, needFingerprints: format == .sarif)
            switch format {
            case .text:
                let style = output.textStyle
                try emit(Array(TextWriter.findings(result.shown, style: style).utf8), to: output.output)
            case .ndjson: try emit(FindingWriter.ndjson(result.shown), to: output.output)
            case .json: try emit(FindingWriter.jsonDocument(result.shown), to: output.output)
            case .junit, .sarif, .github:
                try emitCI(format, result, passingName: "every line is a valid v1 event", to: output.output)
            }
            try finish(result, output: output, quiet: input.quiet)
            try empty.refuseEmpty(run)
        }
    }

    struct Sessions: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "One record per session: events, seqs, start and end, duration, final state, screens, findings.",
            discussion: """
                A data export: it exits 0 whatever the sessions' findings, unless --fail-on is given (then as audit \
                does). Exit status 2 still means an input could not be read completely.

                With --format sqlite, --output names the database. A database that exists already gets the sessions it \
                does not hold yet (a nightly run adds its night); a session it already holds is refused, with nothing \
                written, unless --replace is given, which writes a new database in place of the old one.

                Examples:
                  navreplay sessions --format csv --output sessions.csv SampleLogs
                  navreplay sessions --format sqlite --output sessions.db SampleLogs
                  sqlite3 sessions.db 'SELECT rule, count(*) FROM findings GROUP BY rule'
                """)

        @OptionGroup var output: OutputOptions

        @Option(
            help:
                "ndjson, json, csv, text, or sqlite (a database of sessions, events with the state after each, and findings; needs --output)."
        )
        var format: SessionsFormat = .ndjson

        @OptionGroup var input: InputOptions

        @Flag(help: "With --format sqlite: write a new database in place of the --output file, instead of adding to it.")
        var replace = false

        @OptionGroup var store: StoreInput

        func validate() throws {
            try input.requireInputs(orStore: store.store)
            if store.store != nil && format == .sqlite {
                throw ValidationError(
                    "With --store, sessions writes ndjson, json, csv or text: the store is itself a SQLite database (docs/store.md).")
            }
            if format == .sqlite && output.output == nil {
                throw ValidationError("Please give --output FILE: --format sqlite writes a database file.")
            }
            if replace && format != .sqlite {
                throw ValidationError("--replace is for --format sqlite: the other formats always write --output anew.")
            }
        }

        /// A session's record has no finding's explanation: the findings' states are not kept.
        static let options = SessionAuditOptions(keepStates: false)

        func run() throws {
            try input.refuseOverwritingInputs(output, store: store.store)
            let kind: SessionRecordStream.Kind =
                switch format {
                case .csv: .csv
                case .json: .json
                case .text: .text
                case .ndjson, .sqlite: .ndjson
                }
            if let path = store.store {
                try writeStoredSessions(path, format: kind, output: output, quiet: input.quiet)
                return
            }
            if format != .sqlite {
                // One record per session, written as the sessions fold (bounded memory); the
                // JSON array's brackets and commas around them.
                let file = try OutputFile(path: output.output)
                let records = try SessionRecordStream(kind, style: output.textStyle, to: file)
                let run = try runAudit(input, sessionOptions: Self.options, sink: .streaming(records))
                try records.finish()
                try file.commit()
                try finish(run, output: output, quiet: input.quiet, failOnByDefault: .never)
                return
            }
            // Each session's rows are encoded as it folds and inserted in session order, so no
            // session is kept: the database of a large input needs no more memory than its audit.
            let path = output.output ?? "sessions.db"
            // A new database that cannot be finished (a full disk) is removed: no half database
            // is left. One appended to keeps what it held (its transaction is rolled back).
            var status = stat()
            let exists = lstat(path, &status) == 0
            let creating = !exists || ((status.st_mode & S_IFMT) == S_IFREG && (replace || status.st_size == 0))
            let run: AuditRun
            do {
                let database = try sessionsDatabase(at: path, replace: replace)
                run = try phrasingSQLiteErrors(path: path) {
                    try runAudit(input, sessionOptions: SessionAuditOptions(recordSteps: true, keepStates: false), sink: database.sink)
                }
                try database.finish(run)
            } catch {
                if creating {
                    for file in [path, path + "-journal"] { unlink(file) }
                }
                throw error
            }
            try finish(run, output: output, quiet: input.quiet, failOnByDefault: .never)
        }
    }

    struct Schema: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the JSON Schema (draft 2020-12) of v1 events, or of the model file.",
            discussion: """
                Example:
                  navreplay schema > navigation-event.v1.schema.json
                """)

        @Flag(help: "Print the model file's schema instead of the event schema.")
        var model = false

        func run() throws {
            // Written like every other output, so a full disk or a closed pipe is an error (exit 2).
            try emit(model ? PackageResources.navigation_model_v1_schema_json : PackageResources.navigation_event_v1_schema_json, to: nil)
        }
    }
}

extension OutputOptions {
    /// Colour only when writing to a terminal and `NO_COLOR` is unset.
    var textStyle: TextStyle {
        TextStyle(color: output == nil && Terminal.standardOutputIsTerminal && Terminal.colorAllowed)
    }
}

enum AuditFormat: String, ExpressibleByArgument, CaseIterable { case text, ndjson, json, junit, sarif, github }
enum SessionsFormat: String, ExpressibleByArgument, CaseIterable { case ndjson, json, csv, text, sqlite }
enum ReplayFormat: String, ExpressibleByArgument, CaseIterable { case text, ndjson }

/// Writes the summary and decides the exit status: by `--fail-on`, else by `failOnByDefault`.
func finish(_ run: AuditRun, output: OutputOptions, quiet: Bool, failOnByDefault: FailOn = .error) throws {
    if let path = output.summary { try emit(SummaryWriter.json(run), to: path) }
    if !quiet { Terminal.writeError("navreplay: " + SummaryWriter.text(run) + "\n") }
    let status = exitStatus(run, failOn: output.failLevel(default: failOnByDefault))
    if status != .success { throw status }
}
