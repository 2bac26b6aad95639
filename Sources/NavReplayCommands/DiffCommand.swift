import ArgumentParser
import NavAnalytics
import NavEvents
import NavReport
import NavResults
import NavStore

enum DiffBy: String, ExpressibleByArgument, CaseIterable {
    case appVersion = "app_version"
    case platform, batch
}

enum DiffFormat: String, ExpressibleByArgument, CaseIterable { case text, json, ndjson, markdown }

extension NavReplayCommand {
    struct Diff: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Compare two populations of sessions: app versions, platforms, a store's batches, or two sets of logs.",
            discussion: """
                Each rule, screen, transition (two consecutive screen_views of different screens), exit (the last \
                screen) and flow is compared as the share of sessions that hold it, never as a count of events: \
                Fisher's exact test where an expected count is below 5, else the two-proportion z-test, with the \
                difference's 95% interval (Newcombe) and the ratio's (log). Session length, duration and deepest \
                stack are compared by Mann-Whitney, with their p50, p90 and p99. q-values are Benjamini-Hochberg over \
                every comparison of the diff. A comparison is significant when q < --alpha and its effect is at least \
                --min-effect; a rule broken by significantly more sessions is a regression, by fewer an improvement; \
                other kinds are a change. See docs/analytics.md.

                Groups: --by app_version (a session's version is that of its session_start), --by platform, or \
                --by batch on a store (the batch that first held the session). The candidate is by default the \
                newest group (dot-separated parts compared as numbers where both are numbers, else as text), the \
                baseline the one before it.

                Exit status: 0 whatever was found; 1 with --fail-on-regression when a rule regressed significantly; \
                2 for a usage error or an input that could not be read.

                Examples:
                  navreplay diff --by app_version logs/
                  navreplay diff --baseline 4.1.0 --candidate 4.2.0 --format markdown logs/
                  navreplay diff --store nightly.navstore --by batch --format json
                  navreplay diff --store nightly.navstore --since 2026-11-01 --fail-on-regression
                  navreplay diff --baseline-logs logs/main --candidate-logs logs/branch
                """)

        @OptionGroup var input: InputOptions
        @OptionGroup var store: StoreInput

        @Option(help: "How sessions are grouped: app_version, platform or batch (a store's).")
        var by: DiffBy = .appVersion

        @Option(help: ArgumentHelp("The baseline group (default: the one before the candidate).", valueName: "group"))
        var baseline: String?

        @Option(help: ArgumentHelp("The candidate group (default: the newest).", valueName: "group"))
        var candidate: String?

        @Option(help: ArgumentHelp("Logs of the baseline, compared with --candidate-logs (files or directories).", valueName: "path"))
        var baselineLogs: [String] = []

        @Option(help: ArgumentHelp("Logs of the candidate, compared with --baseline-logs.", valueName: "path"))
        var candidateLogs: [String] = []

        @Option(help: ArgumentHelp("Only sessions that start at or after this time (RFC 3339, or a date: 2026-11-01).", valueName: "time"))
        var since: String?

        @Option(help: ArgumentHelp("Only sessions that start before this time (RFC 3339, or a date).", valueName: "time"))
        var until: String?

        @Option(help: "A comparison is significant only with a Benjamini-Hochberg q-value below this.")
        var alpha = DiffThresholds.defaultAlpha

        @Option(
            help: ArgumentHelp(
                "... and an effect at least this many percentage points: the difference of the rates, or for a distribution P(candidate larger) - 50%.",
                valueName: "points"))
        var minEffect = DiffThresholds.defaultMinEffect * 100

        @Option(help: "text, json, ndjson or markdown.")
        var format: DiffFormat = .text

        @Option(name: .shortAndLong, help: ArgumentHelp("Write the diff to this file instead of standard output.", valueName: "file"))
        var output: String?

        @Flag(help: "Exit 1 when a rule regressed significantly.")
        var failOnRegression = false

        var twoLogSets: Bool { !baselineLogs.isEmpty || !candidateLogs.isEmpty }

        func validate() throws {
            if twoLogSets {
                if baselineLogs.isEmpty || candidateLogs.isEmpty {
                    throw ValidationError("Please give both --baseline-logs and --candidate-logs.")
                }
                if !input.inputs.isEmpty || store.store != nil {
                    throw ValidationError("Please give either --baseline-logs and --candidate-logs, or inputs, or --store, not both.")
                }
            } else {
                try input.requireInputs(orStore: store.store)
            }
            if by == .batch && store.store == nil { throw ValidationError("--by batch needs --store: a batch is a store's.") }
            if !(alpha > 0 && alpha <= 1) { throw ValidationError("Please give --alpha a number above 0, at most 1.") }
            if !(minEffect >= 0 && minEffect <= 100) { throw ValidationError("Please give --min-effect a number of points from 0 to 100.") }
            _ = try window()
        }

        /// `--since` and `--until` as epoch milliseconds.
        func window() throws -> (since: Int64?, until: Int64?) {
            func parse(_ text: String?, _ name: String) throws -> Int64? {
                guard let text else { return nil }
                if let time = Timestamp(text) ?? Timestamp(text + "T00:00:00Z") { return time.epochMilliseconds }
                throw ValidationError("Please give \(name) an RFC 3339 time (2026-11-20T10:00:00Z) or a date (2026-11-20), not '\(text)'.")
            }
            return (try parse(since, "--since"), try parse(until, "--until"))
        }

        func run() throws {
            let window = try window()
            let thresholds = DiffThresholds(alpha: alpha, minEffect: minEffect / 100)
            var tally: DiffAnalysis.Tally
            var runs: [AuditRun] = []
            var baseline = baseline
            var candidate = candidate
            if twoLogSets {
                baseline = baseline ?? baselineLogs.joined(separator: ",")
                candidate = candidate ?? candidateLogs.joined(separator: ",")
                tally = DiffAnalysis.Tally()
                for (label, paths) in [(baseline!, baselineLogs), (candidate!, candidateLogs)] {
                    var side = input
                    side.inputs = paths
                    let analysis = DiffAnalysis(grouping: .all(label), since: window.since, until: window.until)
                    let folded = try foldJourneys(analysis, input: side, store: nil)
                    runs.append(folded.run)
                    analysis.merge(folded.tally, into: &tally)
                }
            } else {
                let analysis = DiffAnalysis(grouping: try grouping(), since: window.since, until: window.until)
                let folded = try foldJourneys(analysis, input: input, store: store.store)
                runs.append(folded.run)
                tally = folded.tally
            }
            if !input.quiet {
                for run in runs { Terminal.writeError("navreplay: " + SummaryWriter.text(run) + "\n") }
            }
            let (before, after) = try Self.groups(tally, baseline: baseline, candidate: candidate, by: by.rawValue)
            let result = DiffResult(tally, baseline: before, candidate: after, thresholds: thresholds)
            let text =
                switch format {
                case .text: DiffWriter.text(result, by: by.rawValue)
                case .json: DiffWriter.json(result, by: twoLogSets ? "logs" : by.rawValue, ungrouped: tally.ungrouped)
                case .ndjson: DiffWriter.ndjson(result)
                case .markdown: DiffWriter.markdown(result, by: by.rawValue)
                }
            try emit(Array(text.utf8), to: output)
            if runs.contains(where: { !$0.inputErrors.isEmpty }) { throw ExitCode(2) }
            if failOnRegression && result.hasRegression { throw ExitCode(1) }
        }

        /// How sessions are grouped; for batches, each session's first batch from the store.
        func grouping() throws -> DiffAnalysis.Grouping {
            switch by {
            case .appVersion: return .appVersion
            case .platform: return .platform
            case .batch:
                do {
                    return .sessions(try StoredRun.sessionBatches(try openStore(store.store!)).mapValues { String($0) })
                } catch let error as StoreError {
                    throw CommandFailure(error.description)
                }
            }
        }

        /// The baseline and candidate groups: as given, else the newest and the one before.
        static func groups(_ tally: DiffAnalysis.Tally, baseline: String?, candidate: String?, by: String) throws -> (String, String) {
            let labels = tally.labels
            let found = labels.isEmpty ? "none" : labels.joined(separator: ", ")
            for label in [baseline, candidate].compactMap({ $0 }) where !labels.contains(label) {
                throw CommandFailure("No session has \(by) '\(label)'; the groups found: \(found).")
            }
            let after = candidate ?? labels.last { $0 != baseline }
            guard let after else { throw CommandFailure("A diff needs two groups of sessions by \(by); the groups found: \(found).") }
            let before = baseline ?? labels.last { DiffAnalysis.precedes($0, after) } ?? labels.first { $0 != after }
            guard let before, before != after else {
                throw CommandFailure("A diff needs two groups of sessions by \(by); the groups found: \(found).")
            }
            return (before, after)
        }
    }
}
