import ArgumentParser
import NavAnalytics
import NavModel

extension NavReplayCommand {
    struct Paths: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Where sessions go: every screen and every transition between screens, by the operation that caused it.",
            discussion: """
                A screen is taken where the router logs a screen_view (the state at the end of each correlation \
                group), named as the logs name it: STACK/ROUTE, STACK/(root), or modal:NAME. A transition is a pair of \
                consecutive screen_views of different screens, attributed to the operation of the first state-changing \
                event of the group that led to it (push, pop, pop_to, tab, modal_present, command, deep_link, restore, \
                ...), so its operations add up to its count.

                --from or --to with --steps N draws the paths of N transitions out of or into a screen, from each \
                session's first view of it, as a tree whose every node's children add up to it. Text shows the --top \
                rows of each table and of each node, with an "other" row for the rest; --format json gives every row.

                A data export: it exits 0 whatever the sessions' findings, unless --fail-on is given.

                Examples:
                  navreplay paths SampleLogs/poc-app
                  navreplay paths --from 'tab1/(root)' --steps 3 logs/
                  navreplay paths --to modal:paywall --format json --store nightly.store
                """)

        @OptionGroup var output: OutputOptions

        @Option(help: "text (for people) or json (every row).")
        var format: JourneyFormat = .text

        @Option(help: ArgumentHelp("The paths out of this screen, as a tree.", valueName: "screen"))
        var from: String?

        @Option(help: ArgumentHelp("The paths into this screen, as a tree.", valueName: "screen"))
        var to: String?

        @Option(help: "How many transitions the --from or --to tree follows.")
        var steps = 3

        @Option(help: "How many rows text shows of each table and under each tree node.")
        var top = 10

        @OptionGroup var input: InputOptions

        @OptionGroup var store: StoreInput

        func validate() throws {
            try input.requireInputs(orStore: store.store)
            if from != nil && to != nil { throw ValidationError("Give --from or --to, not both: a tree grows one way from its screen.") }
            for screen in [from, to].compactMap({ $0 }) where Screen(label: screen) == nil {
                throw ValidationError("'\(screen)' is not a screen: give STACK/ROUTE, STACK/(root) or modal:NAME.")
            }
            if steps < 1 || steps > 20 { throw ValidationError("Please give --steps a number from 1 to 20.") }
            if top < 1 { throw ValidationError("Please give --top a positive number.") }
        }

        func run() throws {
            try input.refuseOverwritingInputs(output)
            let anchor = (from ?? to).flatMap(Screen.init(label:)).map {
                PathsAnalysis.Anchor(screen: $0, direction: from != nil ? .from : .to, steps: steps)
            }
            let (run, tally) = try foldJourneys(PathsAnalysis(anchor: anchor), input: input, store: store.store)
            let result = PathsResult(tally, anchor: anchor)
            try emit(format == .json ? result.json() : Array(result.text(top: top).utf8), to: output.output)
            try finish(run, output: output, quiet: input.quiet, failOnByDefault: .never)
        }
    }
}

/// The formats of `paths` and `funnel`.
enum JourneyFormat: String, ExpressibleByArgument, CaseIterable { case text, json }
