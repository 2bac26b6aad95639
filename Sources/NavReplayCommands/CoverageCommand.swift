import ArgumentParser
import NavAnalytics
import NavModel
import NavStore

extension NavReplayCommand {
    struct Coverage: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "What a model declares that the sessions use, what none reaches, and the share that audits clean.",
            discussion: """
                Each declared flow, tab, route, modal and command with the sessions that used it (a route entered \
                its stack, a modal was presented, a command applied, a tab selected), then the declared tabs, \
                routes, modals and commands that no session reached, and the share of sessions with no finding \
                and with no finding of the rules the model decides.

                Examples:
                  navreplay coverage --model model.json logs/
                  navreplay coverage --model model.json --format json logs/ > coverage.json
                  navreplay coverage --store nav.db
                """)

        @OptionGroup var input: InputOptions
        @OptionGroup var store: StoreInput

        @Option(help: ArgumentHelp("The report's format: text or json.", valueName: "format"))
        var format: AnalyticsFormat = .text

        @Option(name: .shortAndLong, help: ArgumentHelp("Write the report to this file instead of standard output.", valueName: "file"))
        var output: String?

        func validate() throws { try input.requireInputs(orStore: store.store) }

        func run() throws {
            let model: NavigationModel
            if let path = input.model {
                model = try input.loadModel(path)
            } else if let path = store.store {
                model = try openStore(path).model
            } else {
                model = try input.resolve().models.last ?? .poc
            }
            let folding = CommandFolding(input: input, store: store.store)
            let tally = try folding.fold(CoverageAnalysis(model: model), model: model)
            let report = CoverageReport(model: model, tally: tally)
            try emit(Array((format == .json ? report.json() : report.text()).utf8), to: output)
        }
    }
}
