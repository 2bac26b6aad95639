public import NavModel
import NavReplay

/// Folds sessions with a model into an analysis: over logs or a store in the command line, over
/// sessions in memory in tests. `infer` folds its input several times, each with the latest
/// draft.
public protocol InferFolding {
    func fold<Analysis: SessionAnalysis>(_ analysis: Analysis, model: NavigationModel) throws -> Analysis.Tally
}

/// A draft model from sessions (`navreplay infer`), and what supports it.
public struct Inference: Sendable {
    public struct Options: Sendable {
        /// Sessions where the opposite of a restriction could have been seen, and was not,
        /// before the draft claims it (a singleton).
        public var minSupport = Inference.defaultMinSupport
        public var name = "draft"
        /// A model to widen (`--merge`), with its `description` and `$comment`.
        public var base: DraftModel?

        public init(minSupport: Int = Inference.defaultMinSupport, name: String = "draft", base: DraftModel? = nil) {
            self.minSupport = minSupport
            self.name = name
            self.base = base
        }
    }

    /// 20 sessions: a route that stands twice in as few as one session in seven where it could
    /// shows it with a chance of 1 - (6/7)^20 ≈ 95% (Daikon's bound for a likely invariant).
    public static let defaultMinSupport = 20

    public var draft: DraftModel
    public var names: Evidence
    public var behaviour: Evidence
    /// The last fold with the draft.
    public var check: InferCheck.Tally
    /// The folds of the input: one for the names, one for the behaviour, one or more checks.
    public var passes: Int
    /// With `--merge`: every difference from the base model, each a widening.
    public var additions: [String] = []

    public static func run(_ options: Options, folding: some InferFolding) throws -> Inference {
        let names = try folding.fold(InferNames(), model: try (options.base ?? poc).model())
        var skeleton = InferStructure.draft(names, name: options.name)
        if let base = options.base { skeleton = base.widened(with: skeleton) }
        let behaviour = try folding.fold(InferBehaviour(model: try skeleton.model()), model: try skeleton.model())
        var draft = InferBehaviour.refine(skeleton, with: behaviour, minSupport: options.minSupport, keeping: options.base)
        var passes = 2
        var check = InferCheck.Tally()
        var tried: Set<DraftFix> = []
        var flipped: [DraftFix] = []
        var mismatches = Int.max
        for _ in 0..<8 {
            check = try folding.fold(InferCheck(model: try draft.model()), model: try draft.model())
            passes += 1
            let now = check.rules[.stateMismatch]?.count ?? 0
            if now > mismatches {
                // A return to the first occurrence explained nothing: back to the last.
                for case .popToFirst(let stack) in flipped { draft.stacks[stack]?.popTo = .last }
                flipped = []
                mismatches = .max
                continue
            }
            mismatches = now
            flipped = []
            var changed = false
            for fix in check.fixes.keys.sorted() where !tried.contains(fix) {
                if case .popToFirst(let stack) = fix {
                    guard behaviour[.ambiguousPopTo(stack)] > 0 else { continue }
                    tried.insert(fix)
                    flipped.append(fix)
                }
                tried.insert(fix)
                if draft.apply(fix) { changed = true }
            }
            if !changed { break }
        }
        var result = Inference(draft: draft, names: names, behaviour: behaviour, check: check, passes: passes)
        if let base = options.base { result.additions = base.differences(to: draft) }
        return result
    }

    static let poc = DraftModel(NavigationModel.poc)

    /// Singletons not claimed for lack of support: the routes that never stood twice, with the
    /// sessions where they could have.
    public var unsupportedSingletons: [(stack: String, route: String, support: Support)] {
        behaviour.all { clue -> (String, String)? in
            if case .singletonChance(let stack, let route) = clue { (stack, route) } else { nil }
        }.compactMap { key, support in
            let (stack, route) = key
            guard behaviour[.duplicate(stack: stack, route: route)] == 0,
                draft.stacks[stack]?.singletons.contains(route) == false
            else { return nil }
            return (stack, route, support)
        }
    }
}
