#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import ArgumentParser
import NavRuns
import NavStore
import NavReplay
import NavReport
import NavAnalytics
import NavEngine
import NavResults
import NavAnalytics

extension NavReplayCommand {
    struct Report: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the nightly report: one self-contained HTML page with charts and the worst sessions' timelines.",
            discussion: """
                The page needs no network (no script, no external font or image): open it in any browser, attach it \
                to a ticket, or publish it as a CI artifact. Sessions are added to its totals as they fold; only the \
                worst sessions' states (for their timelines) are kept, so its memory is the audit's.

                A data export: it exits 0 whatever the findings, unless --fail-on is given (then as audit does). Exit \
                status 2 still means an input could not be read completely.

                Examples:
                  navreplay report SampleLogs --output report.html
                  navreplay report --worst 10 --title "Nightly audit 2026-11-20" logs/2026-11-20/ -o nightly.html
                """)

        @OptionGroup var output: OutputOptions
        @OptionGroup var input: InputOptions

        @Option(help: "The page's title.")
        var title = "NavReplay audit"

        @Option(help: "How many of the worst sessions get a timeline.")
        var worst = 5

        @Option(help: "A worst session with more events shows only the events around its findings.")
        var timelineLimit = 80

        @OptionGroup var store: StoreInput

        @OptionGroup(title: "Funnel section") var funnel: FunnelSteps

        func validate() throws {
            try input.requireInputs(orStore: store.store)
            _ = try funnel.analysis(by: nil)
            if worst < 0 { throw ValidationError("Please give --worst a number of 0 or more.") }
            if timelineLimit < 1 { throw ValidationError("Please give --timeline-limit a positive number.") }
        }

        func run() throws {
            try input.refuseOverwritingInputs(output, store: store.store)
            if let path = store.store {
                try reportStore(path)
                return
            }
            // Each session is added to the report's totals as it folds, and dropped unless it
            // is among the worst: memory holds the worst sessions' states, not every session's.
            // The counts by label (one screen path nearly per session) are held up to an eighth
            // of --memory-limit, as the event-id ledger is, then written to temporary files.
            let sessions = try makeAccumulator()
            let run = try runAudit(
                input, sessionOptions: SessionAuditOptions(recordSteps: true, keepStates: false),
                sink: .accumulating(sessions))
            try write(run, sessions: sessions, trends: nil)
        }

        /// The report's totals, and beside them the journeys (paths, and a funnel with --step) and
        /// `diff --by app_version` for the regressions.
        private func makeAccumulator() throws -> ReportSessions {
            let report = ReportAccumulator(
                worstCount: worst, labelBudget: (input.memoryLimit?.bytes ?? AuditConfiguration.defaultMemoryLimit) / 8,
                temporaryDirectory: input.tempDir)
            let analyses = JourneyAnalyses(ReportJourneys(funnel: try funnel.analysis(by: nil)), DiffAnalysis(grouping: .appVersion))
            return PairedAccumulator(report, JourneyAccumulator(analyses))
        }

        private func write(
            _ run: AuditRun, sessions: ReportSessions, trends: ReportTrends?
        ) throws {
            var data = try ReportData(run: run, sessions: sessions.first)
            let (journeys, diff) = try sessions.second.tally()
            let (paths, funnel) = sessions.second.folder.analysis.first.results(journeys)
            data.journeysHTML = JourneyReport.html(paths, funnel: funnel)
            data.regressions = ReportRegressions(diff)
            data.trends = trends
            let page = try HTMLReport.html(data, title: title, toolVersion: NavReplayCommand.version, timelineLimit: timelineLimit)
            try emit(Array(page.utf8), to: output.output)
            try finish(run, output: output, quiet: input.quiet, failOnByDefault: .never)
        }

        /// The report of a store: its held sessions folded again (for the charts, the worst
        /// sessions' timelines and the regressions), with the trends over its batches and app
        /// versions.
        private func reportStore(_ path: String) throws {
            let store = try openStore(path)
            let sessions = try makeAccumulator()
            let trends: ReportTrends
            do {
                trends = try StoredRun.trends(store)
            } catch let error as StoreError {
                throw CommandFailure(error.description)
            }
            let run = try foldHeldSessions(
                store, input: input, sessionOptions: SessionAuditOptions(recordSteps: true, keepStates: false),
                sink: .accumulating(sessions))
            try write(run, sessions: sessions, trends: trends)
        }
    }
}

/// What a report gathers as its sessions fold: its totals and worst sessions, and the journeys'
/// analyses (paths, a funnel, the versions compared).
typealias ReportSessions = PairedAccumulator<
    ReportAccumulator, JourneyAccumulator<JourneyAnalyses<ReportJourneys, DiffAnalysis>>
>
