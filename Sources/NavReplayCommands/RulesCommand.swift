import ArgumentParser
import NavReplay
import NavReport

extension NavReplayCommand {
    struct Rules: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List every rule: its id, severity, what it checks, why it matters, likely causes and an example log.",
            discussion: """
                Findings name their rule by id; this is the reference for each. Every example log is audited by the \
                tests: the example draws its rule, and a close variant of it that draws nothing is kept next to it \
                (--format json lists both).

                Examples:
                  navreplay rules
                  navreplay rules state.mismatch seq.gap
                  navreplay rules --format markdown
                """)

        @Argument(help: ArgumentHelp("Rule ids to show (default: every rule).", valueName: "rule"))
        var ids: [String] = []

        @Option(
            help:
                "text (for people), json (every field, with the examples that do and do not trigger each rule), or markdown (a table of rule, severity and summary)."
        )
        var format: RulesFormat = .text

        @Option(name: .shortAndLong, help: ArgumentHelp("Write to this file instead of standard output.", valueName: "file"))
        var output: String?

        func validate() throws {
            for id in ids where Rule(rawValue: id) == nil {
                throw ValidationError(
                    "Unknown rule \(id); the rules are: \(Rule.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
        }

        func run() throws {
            let rules = ids.isEmpty ? Rule.allCases : ids.compactMap(Rule.init(rawValue:))
            switch format {
            case .text: try emit(Array(RulesWriter.text(rules).utf8), to: output)
            case .json: try emit(RulesWriter.json(rules), to: output)
            case .markdown: try emit(Array(RulesWriter.markdown(rules).utf8), to: output)
            }
        }
    }
}

enum RulesFormat: String, ExpressibleByArgument, CaseIterable { case text, json, markdown }
