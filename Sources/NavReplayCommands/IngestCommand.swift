import ArgumentParser
import NavEngine
import NavInput
import NavJSON
import NavModel
import NavReplay
import NavReport
import NavStore

extension NavReplayCommand {
    struct Ingest: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fold a batch of logs into an event store that carries sessions across batches (nightly use).",
            discussion: """
                The store is one SQLite file (made by the first ingest). Each run reads only what is new: a file \
                ingested before is skipped, a file that grew gives its new complete lines. A session whose events arrive \
                over several batches is folded as if they had arrived together: the sessions a batch touches are folded \
                again from every event the store holds of them. Prints what the batch changed: new findings, and \
                findings withdrawn because later events explained them.

                A session with no event for --close-after (event time) is closed: its last correlation group is \
                judged. --close-all closes every session (the end of the data). A late event opens a closed session \
                again, while the store holds its events; --retain drops the events of sessions closed long ago.

                A batch is one transaction: an ingest killed at any moment leaves the store as it was, and the same \
                command again gives the store of an uninterrupted run. A second ingest on one store waits \
                (--lock-wait), then stops with an error. Exit status: 0, or 1 when the batch brings new findings at or \
                above --fail-on, or 2 when an input could not be read completely.

                Examples:
                  navreplay ingest --store nav.db logs/2026-11-25/
                  navreplay ingest --store nav.db --close-after 2h --retain 30d --format ndjson logs/2026-11-26/
                  navreplay ingest --store nav.db --close-all
                  navreplay audit --store nav.db --format sarif > navreplay.sarif
                """)

        @Option(help: ArgumentHelp("The event store (a SQLite file), made when it does not exist.", valueName: "store"))
        var store: String

        @Argument(
            help: ArgumentHelp(
                "Log files (.ndjson, .ndjson.gz) or directories (their *.ndjson and *.ndjson.gz files, recursively).", valueName: "file"))
        var inputs: [String] = []

        @Option(
            help: ArgumentHelp(
                "The navigation model file. Default: the store's model; for a new store, the model.json of a directory argument, else the built-in PoC model.",
                valueName: "model.json"))
        var model: String?

        @Option(help: "What the batch changed: text (for people), ndjson (one changed finding a line, with \"change\"), or json.")
        var format: IngestFormat = .text

        @OptionGroup var output: OutputOptions

        @Option(
            help: ArgumentHelp(
                "Close a session after this long without an event, in event time (e.g. 30m, 2h, 1d).", valueName: "duration"),
            transform: Duration.parse)
        var closeAfter: Duration = Duration(milliseconds: IngestOptions.defaultCloseAfter)

        @Flag(help: "Close every open session: the end of the data (judges each session's last correlation group).")
        var closeAll = false

        @Option(
            help: ArgumentHelp(
                "Drop the events of sessions closed longer ago than this (event time), keeping their records and findings. Default: keep them.",
                valueName: "duration"),
            transform: Duration.parse)
        var retain: Duration?

        @Option(
            help: ArgumentHelp(
                "Write every invalid line of the batch to this file, as NDJSON with its source and raw bytes.", valueName: "file"))
        var quarantine: String?

        @Option(
            help: ArgumentHelp(
                "Keep at most this many findings per session (the rest are counted). Default: the store's (kept from its first batch), or 10000 for a new store.",
                valueName: "count"))
        var maxFindingsPerSession: Int?

        @Option(help: ArgumentHelp("How long to wait for another ingest on the same store before giving up.", valueName: "seconds"))
        var lockWait: Double = EventStore.defaultLockWait

        @Flag(name: .shortAndLong, help: "No summary on standard error (errors still go there).")
        var quiet = false

        @OptionGroup(title: "Large inputs") var large: IngestLargeOptions

        func validate() throws {
            if inputs.isEmpty && !closeAll {
                throw ValidationError("Please give the batch's log files or directories (or --close-all alone, to close every session).")
            }
            if inputs.contains("-") {
                throw ValidationError("ingest reads files, whose names and lengths it remembers: save standard input to a file first.")
            }
            if let maxFindingsPerSession, maxFindingsPerSession < 0 {
                throw ValidationError("Please give --max-findings-per-session a number of 0 or more.")
            }
            if lockWait < 0 || !lockWait.isFinite { throw ValidationError("Please give --lock-wait a number of seconds, 0 or more.") }
            try InputOptions.validate(maxLineBytes: large.maxLineBytes, jobs: large.jobs)
        }

        func run() throws {
            let resolution = InputResolver.resolution(inputs)
            try refuseOverwritingStore(resolution.files)
            if !quiet { for entry in resolution.skipped { Terminal.writeError("navreplay: warning: \(safe(entry.description))\n") } }
            let (model, modelText) = try chooseModel(resolution.files)
            var options = IngestOptions()
            options.maxLineBytes = large.maxLineBytes
            options.jobs = large.jobs
            options.memoryLimit = large.memoryLimit?.bytes
            options.temporaryDirectory = large.tempDir
            options.quarantinePath = quarantine
            options.closeAfterMilliseconds = closeAfter.milliseconds
            options.closeAll = closeAll
            options.retainMilliseconds = retain?.milliseconds
            options.maxFindingsPerSession = maxFindingsPerSession
            let report: IngestReport
            let eventStore: EventStore
            do {
                eventStore = try EventStore.openForWriting(
                    path: store, model: model, modelText: modelText, toolVersion: NavReplayCommand.version, lockWait: lockWait)
                let progress = ProgressLine(enabled: !quiet && Terminal.standardErrorIsTerminal)
                defer { progress.clear() }
                report = try Ingestion.run(store: eventStore, paths: resolution.files.map(\.path), options: options) { progress.update($0) }
            } catch let error as StoreError {
                throw CommandFailure(error.description)
            } catch let error as InputError {
                throw CommandFailure(error.phrased.description)
            }
            for error in report.inputErrors { Terminal.writeError("navreplay: error: \(safe(error))\n") }
            // A batch whose files hold no byte is no error (a night without uploads), but it is
            // said as such, not as files ingested already.
            let empty = EmptyBatch(report)
            let file = try OutputFile(path: output.output)
            do {
                if let text = empty?.text, format == .text {
                    try file.write(Array(text.utf8))
                } else {
                    try IngestWriter.write(report, format: format.writerFormat, store: eventStore) { try file.write($0) }
                }
            } catch let error as StoreError {
                throw CommandFailure(error.description)
            }
            try file.commit()
            do {
                try eventStore.waitForCheckpoint()
            } catch let error as StoreError {
                if !quiet { Terminal.writeError(empty?.summary(report, store: store) ?? IngestWriter.summary(report, store: store)) }
                throw CommandFailure(error.description)
            }
            if !quiet { Terminal.writeError(empty?.summary(report, store: store) ?? IngestWriter.summary(report, store: store)) }
            if let path = output.summary { try emit(IngestWriter.summaryJSON(report), to: path) }
            if !report.inputErrors.isEmpty { throw ExitCode(2) }
            let level = output.failLevel(default: .error)
            if report.newBySeverity.contains(where: { level.fails($0.key) && $0.value > 0 }) { throw ExitCode(1) }
        }

        /// `--model`; else the store's own (so a nightly command line need not repeat it); else,
        /// for a new store, the model.json the inputs share, or the built-in model.
        private func chooseModel(_ files: [InputResolver.File]) throws -> (NavigationModel, String) {
            if let model {
                let bytes = try readWholeFile(model, as: "model file")
                do {
                    return (try NavigationModel.load(json: bytes), String(decoding: bytes, as: UTF8.self))
                } catch {
                    throw CommandFailure("The model file \(model) is invalid: \(error)")
                }
            }
            let modelPaths = Set(files.compactMap(\.modelPath))
            if let stored = try? EventStore.openForReading(path: store, toolVersion: NavReplayCommand.version) {
                // A directory's model.json is a model given as surely as --model: one that is
                // not the store's is refused, never left unused.
                for path in modelPaths.sorted() {
                    let bytes = try readWholeFile(path, as: "model file")
                    guard let loaded = try? NavigationModel.load(json: bytes) else {
                        throw CommandFailure("The model file \(path) is invalid: give a valid --model.")
                    }
                    if loaded != stored.model {
                        throw CommandFailure(
                            "The store \(store) was made with another navigation model than \(path), the model.json of the batch's "
                                + "directory. A store folds every batch with one model: ingest these logs into a new store made "
                                + "with this model (or ingest every night's logs again into it), or give --model with the store's model.")
                    }
                }
                return (stored.model, stored.modelText)
            }
            if modelPaths.count == 1, let path = modelPaths.first {
                let bytes = try readWholeFile(path, as: "model file")
                guard let loaded = try? NavigationModel.load(json: bytes) else {
                    throw CommandFailure("The model file \(path) is invalid: give a valid --model.")
                }
                return (loaded, String(decoding: bytes, as: UTF8.self))
            }
            if modelPaths.count > 1 {
                throw CommandFailure(
                    "The inputs are in folders with \(modelPaths.count) different model.json files: a store folds with one model. Give --model, or one app's logs."
                )
            }
            return (.poc, NavigationModel.pocJSON)
        }
    }
}

/// The large-input options that make sense for an ingest.
struct IngestLargeOptions: ParsableArguments {
    @Option(help: "How many cores to use (0: all).")
    var jobs: Int = 0

    @Option(
        help: ArgumentHelp(
            "Hold about this much of the batch in memory before spilling to temporary files (e.g. 128M, 2G). Default: a quarter of RAM.",
            valueName: "size"),
        transform: ByteSize.parse)
    var memoryLimit: ByteSize?

    @Option(help: ArgumentHelp("Where temporary files go (default: $TMPDIR or /tmp).", valueName: "directory"))
    var tempDir: String?

    @Option(help: "Lines longer than this many bytes are invalid; only this many bytes of them are ever held.")
    var maxLineBytes: Int = LineReader.defaultMaxLineBytes
}

enum IngestFormat: String, ExpressibleByArgument, CaseIterable {
    case text, ndjson, json

    var writerFormat: IngestWriter.Format {
        switch self {
        case .text: .text
        case .ndjson: .ndjson
        case .json: .json
        }
    }
}

/// A span of event time: a number and a unit, `ms`, `s`, `m`, `h` or `d` (`90s`, `30m`, `7d`).
struct Duration: Sendable {
    var milliseconds: Int64

    static func parse(_ text: String) throws -> Duration {
        let units: [(String, Int64)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000), ("d", 86_400_000)]
        for (unit, scale) in units where text.hasSuffix(unit) {
            let number = text.dropLast(unit.count)
            // "5ms" ends in "s" too: only a number may come before the unit.
            guard let value = Int64(number), value >= 0, value <= Int64.max / scale else { continue }
            return Duration(milliseconds: value * scale)
        }
        throw ValidationError("'\(text)' is not a duration: give a number and a unit, ms, s, m, h or d (e.g. 30m, 2h, 7d).")
    }
}
