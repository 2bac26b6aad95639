import ArgumentParser
import NavJSON
import NavReplay
import NavReport
import NavResults

extension NavReplayCommand {
    struct Replay: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replay one session: the state after each event, with what changed and what it broke.",
            discussion: """
                Examples:
                  navreplay replay --session s-bad-lost-event --until-seq 9 SampleLogs
                  navreplay replay --store nav.db --session s-bad-lost-event

                With --store, the session's events as the store holds them (files named as they were given to \
                ingest), until --retain prunes them.

                The exit status follows the findings shown: the session's, up to --until-seq. The summary on \
                standard error speaks of that session; --summary FILE writes the whole input's counts, as audit does.

                Each event's line holds the whole state after it and what changed, every route of every stack: \
                the output grows with the stacks' depth times the events, as asked. Every other output lists a \
                long stack as findings do (its first 4 and last 12 routes).
                """)

        @Option(help: "The session_id to replay.")
        var session: String

        @Option(help: "Stop after this seq.")
        var untilSeq: Int64?

        @OptionGroup var output: OutputOptions

        @Option(help: "text or ndjson.")
        var format: ReplayFormat = .text

        @OptionGroup var input: InputOptions

        @OptionGroup var store: StoreInput

        func validate() throws { try input.requireInputs(orStore: store.store) }

        /// What each session's replay keeps: every step, no finding's states.
        var sessionOptions: SessionAuditOptions { SessionAuditOptions(recordSteps: true, untilSeq: untilSeq, keepStates: false) }

        func run() throws {
            try input.refuseOverwritingInputs(output)
            if let path = store.store {
                try replayStored(path)
                return
            }
            let run = try runAudit(input, sessionOptions: sessionOptions, onlySession: session)
            try show(run, source: "read \(run.counts.files) file(s), \(run.counts.lines) line(s) to find it", notFound: "in the input")
        }

        /// Writes the session's replay, its summary, and decides the exit status. `source`: how
        /// the session was found, for the summary.
        func show(_ run: AuditRun, source: String, notFound: String) throws {
            let matching = run.sessions.filter { $0.sessionID.utf8Equals(session) }
            guard let audit = matching.first else {
                throw CommandFailure("No events of session \(Self.quoted(session)) \(notFound).")
            }
            // An app's session ids are its own (each folder with its own model.json): showing
            // one of two such sessions would hide the other.
            guard matching.count == 1 else {
                throw CommandFailure(
                    "Session \(Self.quoted(session)) is in the logs of \(matching.count) apps (folders with their own "
                        + "model.json); give the logs of one.")
            }
            // Written as it is made: the output grows with the stack's depth x the events.
            let file = try OutputFile(path: output.output)
            switch format {
            case .ndjson: try ReplayWriter.ndjson(audit, files: run.files, write: file.write)
            case .text: try ReplayWriter.text(audit, files: run.files, style: output.textStyle) { try file.write(Array($0.utf8)) }
            }
            try file.commit()
            // The findings shown decide: the session's up to --until-seq (a seq.duplicate or
            // event_id.conflict past it is found before the fold stops, and not shown), and
            // those past --max-findings-per-session, counted by rule.
            let shown = audit.findings.filter { finding in untilSeq.map { (finding.seq ?? $0) <= $0 } ?? true }
            if let path = output.summary { try emit(SummaryWriter.json(run), to: path) }
            if !input.quiet { Terminal.writeError("navreplay: " + Self.summary(audit, shown: shown, source: source) + "\n") }
            if !run.inputErrors.isEmpty { throw ExitCode(2) }
            let failOn = output.failLevel()
            if shown.contains(where: { failOn.fails($0.severity) })
                || audit.droppedFindings.contains(where: { $0.value > 0 && failOn.fails($0.key.severity) })
            {
                throw ExitCode(1)
            }
        }

        /// One line about the replayed session: its events, what was left past --until-seq, and
        /// the findings shown; then what was read to find it.
        static func summary(_ audit: SessionAudit, shown: [Finding], source: String) -> String {
            let dropped = audit.droppedFindings.values.reduce(0, +)
            let errors =
                shown.filter { $0.severity == .error }.count
                + audit.droppedFindings.filter { $0.key.severity == .error }.values.reduce(0, +)
            let findings = shown.count + dropped
            var text = "session \(quoted(audit.sessionID)): \(audit.events) event(s) replayed"
            if let first = audit.firstSeq, let last = audit.lastSeq { text += " (seq \(first) to \(last))" }
            if audit.eventsPastUntil > 0 { text += ", \(audit.eventsPastUntil) past --until-seq" }
            text += "; \(findings) finding(s) (\(errors) error(s), \(findings - errors) warning(s))"
            if !shown.isEmpty {
                let rules = Dictionary(grouping: shown, by: \.rule).mapValues(\.count)
                text += "\n  by rule: " + rules.keys.sorted().map { "\($0.rawValue) \(rules[$0] ?? 0)" }.joined(separator: ", ")
            }
            return text + "\n  " + source
        }

        /// A session id as a person reads it: quoted, its control and format characters escaped
        /// (as every output shows them).
        static func quoted(_ sessionID: String) -> String { safe(JSONWriter.quoted(sessionID)) }
    }
}
