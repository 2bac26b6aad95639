import NavAnalytics
import NavReplay
import NavReport
import NavResults

/// Two accumulators fed by one fold: each session goes to both.
final class PairAccumulator<First: SessionAccumulator, Second: SessionAccumulator>: SessionAccumulator {
    struct Folder: SessionFolder {
        let first: First.Folder
        let second: Second.Folder

        func makeLocal() -> (First.Folder.Local, Second.Folder.Local) { (first.makeLocal(), second.makeLocal()) }

        func add(_ audit: SessionAudit, model: Int, files: [String], to local: inout (First.Folder.Local, Second.Folder.Local)) {
            first.add(audit, model: model, files: files, to: &local.0)
            second.add(audit, model: model, files: files, to: &local.1)
        }

        func replace(
            _ previous: SessionAudit, with audit: SessionAudit, model: Int, files: [String],
            in local: inout (First.Folder.Local, Second.Folder.Local)
        ) {
            first.replace(previous, with: audit, model: model, files: files, in: &local.0)
            second.replace(previous, with: audit, model: model, files: files, in: &local.1)
        }
    }

    let first: First
    let second: Second
    let folder: Folder

    init(_ first: First, _ second: Second) {
        self.first = first
        self.second = second
        folder = Folder(first: first.folder, second: second.folder)
    }

    func begin(invalid: [Finding], files: [String]) throws {
        try first.begin(invalid: invalid, files: files)
        try second.begin(invalid: invalid, files: files)
    }

    func combine(_ local: consuming (First.Folder.Local, Second.Folder.Local)) {
        let (one, two) = local
        first.combine(one)
        second.combine(two)
    }
}

extension ReportRegressions {
    /// The report's regressions: `diff --by app_version`'s significant rule rows, newest version
    /// against the one before, or why there are none.
    init(_ tally: DiffAnalysis.Tally) {
        let labels = tally.labels
        guard let candidate = labels.last, labels.count >= 2 else {
            self.init(baseline: nil, candidate: nil, comparisons: 0, rows: [])
            return
        }
        let result = DiffResult(tally, baseline: labels[labels.count - 2], candidate: candidate)
        self.init(result)
    }

    init(_ result: DiffResult) {
        let rows = result.significant.filter { $0.indicator.kind == .rule }.map { comparison in
            [
                comparison.indicator.key, comparison.direction.rawValue, DiffWriter.side(comparison.baseline, comparison),
                DiffWriter.side(comparison.candidate, comparison), DiffWriter.effect(comparison), DiffWriter.short(comparison.q),
            ]
        }
        self.init(baseline: result.baseline, candidate: result.candidate, comparisons: result.comparisons.count, rows: rows)
    }
}
