import ArgumentParser
import NavAnalytics

extension NavReplayCommand {
    struct Funnel: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A funnel over router states: per step, sessions, conversion, drop-off, where dropped sessions went, and time.",
            discussion: """
                A step is a state of the router at a screen_view, not an event name: screen:STACK/ROUTE, \
                screen:STACK/(root), modal:NAME (presented), flow:NAME, tab:NAME (selected), or command:NAME (applied \
                by the view's correlation group). A session reaches a step when, after its view of the previous step, a \
                later view matches it: in order, not necessarily adjacent, each step at its first matching view; with \
                --within, every step within that long of the first step's view.

                Per step: the sessions that reached it, the conversion from the previous step and from the first, the \
                drop-off, the five screens the dropped sessions went to next (the first screen after their last step's \
                that differs from it; (exit) when the session ended), and the time from the previous step at p50, p90 \
                and p99 (numpy's default linear percentiles). Then conversion by --by value side by side, and of the \
                sessions with and without findings of each rule.

                A data export: it exits 0 whatever the sessions' findings, unless --fail-on is given.

                Examples:
                  navreplay funnel --step 'screen:onboarding/(root)' --step flow:authorized --step screen:tab1/detail logs/
                  navreplay funnel --step modal:paywall --step command:purchase --within 10m --by app_version logs/
                  navreplay funnel --step tab:tab2 --step screen:tab2/post --format json --store nightly.store
                """)

        @OptionGroup var output: OutputOptions

        @Option(help: "text (for people) or json.")
        var format: JourneyFormat = .text

        @OptionGroup var funnel: FunnelSteps

        @Option(help: ArgumentHelp("One funnel per value side by side: app_version or platform.", valueName: "field"))
        var by: Breakdown?

        @OptionGroup var input: InputOptions

        @OptionGroup var store: StoreInput

        func validate() throws {
            try input.requireInputs(orStore: store.store)
            if try funnel.analysis(by: nil) == nil {
                throw ValidationError("Please give two --step options or more: a funnel goes from one step to the next.")
            }
        }

        func run() throws {
            try input.refuseOverwritingInputs(output)
            let breakdown = by.flatMap { FunnelAnalysis.Breakdown(rawValue: $0.rawValue) }
            guard let analysis = try funnel.analysis(by: breakdown) else { return }
            let (run, tally) = try foldJourneys(analysis, input: input, store: store.store)
            let result = FunnelResult(tally, analysis: analysis)
            try emit(format == .json ? result.json() : Array(result.text().utf8), to: output.output)
            try finish(run, output: output, quiet: input.quiet, failOnByDefault: .never)
        }
    }
}

/// A funnel's steps and window: `funnel`'s, and `report`'s funnel section.
struct FunnelSteps: ParsableArguments {
    @Option(
        name: .customLong("step"),
        help: ArgumentHelp(
            "A funnel step, in order (two or more): screen:STACK/ROUTE, modal:NAME, flow:NAME, tab:NAME or command:NAME.",
            valueName: "step"))
    var steps: [String] = []

    @Option(
        help: ArgumentHelp("Every funnel step within this long of the first (e.g. 30s, 10m, 2h).", valueName: "duration"),
        transform: Duration.parse)
    var within: Duration?

    /// The funnel, `nil` without steps.
    func analysis(by: FunnelAnalysis.Breakdown?) throws -> FunnelAnalysis? {
        if steps.isEmpty { return nil }
        if steps.count < 2 { throw ValidationError("Please give two --step options or more: a funnel goes from one step to the next.") }
        let parsed = try steps.map { text in
            guard let step = FunnelStep(text) else {
                throw ValidationError(
                    "'\(text)' is not a step: give screen:STACK/ROUTE, screen:STACK/(root), modal:NAME, flow:NAME, tab:NAME or command:NAME."
                )
            }
            return step
        }
        return FunnelAnalysis(steps: parsed, within: within?.milliseconds, by: by)
    }
}

/// `--by`'s values, as `FunnelAnalysis.Breakdown` names them.
enum Breakdown: String, ExpressibleByArgument, CaseIterable {
    case appVersion = "app_version"
    case platform
}
