import NavAnalytics
import NavReplay
import NavReport
import NavResults

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
