import ArgumentParser
import NavAnalytics
import NavJSON
import NavModel
import NavReplay
import NavResults

extension NavReplayCommand {
    struct Infer: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Draft a model file from the logs: the flows, tabs, stacks, routes, modals and commands they show.",
            discussion: """
                The draft declares what the sessions show and claims nothing stricter than they support: every \
                stack lists the routes that entered it, every flow its stack or tabs, every modal the flows and \
                styles it was presented in (and its own stack), every command the flow, tab, resets and dismissal \
                that each of its groups achieved and at least one brought about. A route is a singleton only when \
                it never stood twice in its stack and --min-support sessions had it in the stack while another \
                route entered (default 20: a route that stands twice in one session in seven where it could \
                would show it with a chance of 95%). A stack whose routes carry route_params compares them by \
                value; a pop beyond a stack's depth makes its pops clamped.

                The logs are read several times: once for the names, once with the skeleton for what each \
                command's group did, then with the draft until its checks widen it no more. Every session then \
                folds clean of the rules the model decides; the findings of rules that judge the log itself \
                (seq.gap, schema.invalid, state.mismatch, …) stay, and the summary lists them with their \
                sessions. Standard input cannot be read twice: give files, directories or --store.

                The summary goes to standard output (text, or --format json); the draft to --output.

                Examples:
                  navreplay infer logs/ --output model.json
                  navreplay infer --min-support 50 --format json logs/ --output model.json > infer.json
                  navreplay infer --merge model.json logs/ --output model.json   # widen a model; lists every addition
                  navreplay infer --store nav.db --output model.json
                """)

        @OptionGroup var input: InputOptions
        @OptionGroup var store: StoreInput

        @Option(name: .shortAndLong, help: ArgumentHelp("Write the draft model to this file.", valueName: "file"))
        var output: String

        @Option(help: ArgumentHelp("The summary's format: text or json.", valueName: "format"))
        var format: AnalyticsFormat = .text

        @Option(help: "Sessions needed before the draft claims a singleton (at least 2).")
        var minSupport = Inference.defaultMinSupport

        @Option(help: ArgumentHelp("Widen this model with what the logs show, never narrowing it.", valueName: "model.json"))
        var merge: String?

        @Option(help: "The draft's name.")
        var name = "draft"

        func validate() throws {
            try input.requireInputs(orStore: store.store)
            if input.inputs.contains("-") { throw ValidationError("infer reads its logs several times: give files or directories, not -.") }
            if minSupport < 2 { throw ValidationError("Please give --min-support a number of 2 or more.") }
            if input.model != nil { throw ValidationError("infer drafts the model: use --merge to start from one.") }
        }

        func run() throws {
            var options = Inference.Options(minSupport: minSupport, name: name)
            if let merge {
                let bytes = try readWholeFile(merge, as: "model file")
                let model: NavigationModel
                do { model = try NavigationModel.load(json: bytes) } catch {
                    throw CommandFailure("The model file \(merge) is invalid: \(error)")
                }
                let root = (try? JSONValue.parse(bytes))?.objectValue
                options.base = DraftModel(model, description: root?["description"]?.stringValue, comment: root?["$comment"]?.stringValue)
            }
            let folding = CommandFolding(input: input, store: store.store)
            let inference = try Inference.run(options, folding: folding)
            try emit(Array(inference.draft.json().utf8), to: output)
            let invalid = folding.lastRun?.invalidFindings.count ?? 0
            let summary = InferSummary(inference: inference, invalidLines: invalid, merging: merge != nil, minSupport: minSupport)
            let text = format == .json ? summary.json() : summary.text()
            try emit(Array(text.utf8), to: nil)
        }
    }
}

/// The formats of the analytics commands' output.
enum AnalyticsFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}
