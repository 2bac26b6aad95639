#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The tests and intervals `diff` runs, in plain Swift. Each follows a named SciPy or
/// statsmodels function, which the tests use as the oracle (docs/analytics.md).
public enum Statistics {
    /// The standard normal distribution function, Φ(x).
    public static func normalCDF(_ x: Double) -> Double { 0.5 * erfc(-x / 2.0.squareRoot()) }

    /// The upper tail of the standard normal, 1 − Φ(x), without cancellation for large `x`.
    public static func normalSurvival(_ x: Double) -> Double { 0.5 * erfc(x / 2.0.squareRoot()) }

    /// The standard normal quantile Φ⁻¹(p) (`scipy.stats.norm.ppf`): Acklam's rational
    /// approximation, refined by two Newton steps on `erfc`.
    public static func normalQuantile(_ p: Double) -> Double {
        if p <= 0 { return -.infinity }
        if p >= 1 { return .infinity }
        let a = [
            -3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02, -3.066479806614716e+01,
            2.506628277459239e+00,
        ]
        let b = [-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01, -1.328068155288572e+01]
        let c = [
            -7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00, 4.374664141464968e+00,
            2.938163982698783e+00,
        ]
        let d = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00]
        let low = 0.02425
        var x: Double
        if p < low {
            let q = (-2 * log(p)).squareRoot()
            x =
                (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
                / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
        } else if p <= 1 - low {
            let q = p - 0.5
            let r = q * q
            x =
                (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
                / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
        } else {
            let q = (-2 * log(1 - p)).squareRoot()
            x =
                -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
                / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
        }
        for _ in 0..<2 {
            // Newton on Φ(x) − p, with the tail that keeps the difference accurate.
            let error = p < 0.5 ? normalCDF(x) - p : (1 - p) - normalSurvival(x)
            let density = exp(-x * x / 2) / (2 * Double.pi).squareRoot()
            x -= error / density
        }
        return x
    }

    /// log C(n, k).
    static func logChoose(_ n: Int, _ k: Int) -> Double {
        lgamma(Double(n) + 1) - lgamma(Double(k) + 1) - lgamma(Double(n - k) + 1)
    }

    /// The hypergeometric log probability of `x` successes in `draws` draws from `total`
    /// items of which `successes` are successes (`scipy.stats.hypergeom.logpmf(x, total,
    /// successes, draws)`).
    public static func hypergeometricLogPMF(_ x: Int, total: Int, successes: Int, draws: Int) -> Double {
        guard x >= max(0, draws - (total - successes)), x <= min(draws, successes) else { return -.infinity }
        return logChoose(successes, x) + logChoose(total - successes, draws - x) - logChoose(total, draws)
    }

    /// Fisher's exact test of the 2×2 table [[a, b], [c, d]], two-sided as
    /// `scipy.stats.fisher_exact`: the probability, given the margins, of every table no more
    /// likely than the one observed (within a relative 1e-7, as R and SciPy allow).
    public static func fisherExact(_ a: Int, _ b: Int, _ c: Int, _ d: Int) -> Double {
        let total = a + b + c + d
        let successes = a + b
        let draws = a + c
        guard total > 0 else { return 1 }
        let low = max(0, draws - (total - successes))
        let high = min(draws, successes)
        let observed = hypergeometricLogPMF(a, total: total, successes: successes, draws: draws)
        let bound = observed + log1p(1e-7)
        var logs: [Double] = []
        for x in low...high {
            let value = hypergeometricLogPMF(x, total: total, successes: successes, draws: draws)
            if value <= bound { logs.append(value) }
        }
        guard let largest = logs.max() else { return 1 }
        let sum = logs.reduce(0) { $0 + exp($1 - largest) }
        return min(1, exp(largest) * sum)
    }

    /// The pooled two-proportion z-test of `count1` of `n1` against `count2` of `n2`
    /// (`statsmodels.stats.proportion.proportions_ztest([count1, count2], [n1, n2])`): z and
    /// its two-sided p-value. A pooled rate of 0 or 1 has no variance: z 0, p 1.
    public static func twoProportionZTest(_ count1: Int, _ n1: Int, _ count2: Int, _ n2: Int) -> (z: Double, p: Double) {
        guard n1 > 0, n2 > 0 else { return (0, 1) }
        let p1 = Double(count1) / Double(n1)
        let p2 = Double(count2) / Double(n2)
        let pooled = Double(count1 + count2) / Double(n1 + n2)
        let variance = pooled * (1 - pooled) * (1 / Double(n1) + 1 / Double(n2))
        guard variance > 0 else { return (0, 1) }
        let z = (p1 - p2) / variance.squareRoot()
        return (z, min(1, 2 * normalSurvival(abs(z))))
    }

    /// The Wilson score interval of `count` of `n` (`statsmodels ... proportion_confint(method=
    /// "wilson")`).
    public static func wilsonInterval(_ count: Int, _ n: Int, level: Double = 0.95) -> (low: Double, high: Double) {
        guard n > 0 else { return (0, 1) }
        let crit = normalQuantile(1 - (1 - level) / 2)
        let nobs = Double(n)
        let p = Double(count) / nobs
        let crit2 = crit * crit
        let denominator = 1 + crit2 / nobs
        let center = (p + crit2 / (2 * nobs)) / denominator
        let distance = crit * (p * (1 - p) / nobs + crit2 / (4 * nobs * nobs)).squareRoot() / denominator
        return (center - distance, center + distance)
    }

    /// The difference of two proportions, p1 − p2, with Newcombe's hybrid score interval
    /// (`statsmodels ... confint_proportions_2indep(count1, n1, count2, n2, compare="diff",
    /// method="newcomb")`), built from each side's Wilson interval.
    public static func differenceInterval(
        _ count1: Int, _ n1: Int, _ count2: Int, _ n2: Int, level: Double = 0.95
    ) -> (
        difference: Double, low: Double, high: Double
    ) {
        let p1 = n1 > 0 ? Double(count1) / Double(n1) : 0
        let p2 = n2 > 0 ? Double(count2) / Double(n2) : 0
        let (low1, high1) = wilsonInterval(count1, n1, level: level)
        let (low2, high2) = wilsonInterval(count2, n2, level: level)
        let difference = p1 - p2
        let below = ((p1 - low1) * (p1 - low1) + (high2 - p2) * (high2 - p2)).squareRoot()
        let above = ((p2 - low2) * (p2 - low2) + (high1 - p1) * (high1 - p1)).squareRoot()
        return (difference, difference - below, difference + above)
    }

    /// The ratio of two proportions, p1 / p2, with the log (Katz) interval
    /// (`statsmodels ... confint_proportions_2indep(..., compare="ratio", method="log")`):
    /// exp(log(p1/p2) ± z·√(1/count1 − 1/n1 + 1/count2 − 1/n2)). `nil` when either count is 0,
    /// where the ratio or its interval is not finite.
    public static func ratioInterval(
        _ count1: Int, _ n1: Int, _ count2: Int, _ n2: Int, level: Double = 0.95
    ) -> (
        ratio: Double, low: Double, high: Double
    )? {
        guard count1 > 0, count2 > 0, n1 > 0, n2 > 0 else { return nil }
        let ratio = (Double(count1) / Double(n1)) / (Double(count2) / Double(n2))
        let variance = 1 / Double(count1) - 1 / Double(n1) + 1 / Double(count2) - 1 / Double(n2)
        let spread = normalQuantile(1 - (1 - level) / 2) * max(variance, 0).squareRoot()
        return (ratio, ratio * exp(-spread), ratio * exp(spread))
    }

    /// The Mann-Whitney U test of two samples given as value → count, two-sided, by the
    /// normal approximation with the tie correction and the continuity correction
    /// (`scipy.stats.mannwhitneyu(x, y, method="asymptotic")`). `u` is sample 1's statistic;
    /// `p` is 1 when either sample is empty or every value ties.
    public static func mannWhitney<Value: Comparable>(_ sample1: [Value: Int], _ sample2: [Value: Int]) -> (u: Double, p: Double) {
        let n1 = sample1.values.reduce(0, +)
        let n2 = sample2.values.reduce(0, +)
        guard n1 > 0, n2 > 0 else { return (0, 1) }
        let values = Set(sample1.keys).union(sample2.keys).sorted()
        var rankSum1 = 0.0
        var below = 0
        var ties = 0.0
        for value in values {
            let count1 = sample1[value] ?? 0
            let count2 = sample2[value] ?? 0
            let tied = count1 + count2
            guard tied > 0 else { continue }
            // The tied values share the mean of ranks below+1 ... below+tied.
            let rank = Double(below) + Double(tied + 1) / 2
            rankSum1 += rank * Double(count1)
            let t = Double(tied)
            ties += t * t * t - t
            below += tied
        }
        let m1 = Double(n1)
        let m2 = Double(n2)
        let n = m1 + m2
        let u1 = rankSum1 - m1 * (m1 + 1) / 2
        let u = max(u1, m1 * m2 - u1)
        let mean = m1 * m2 / 2
        let variance = m1 * m2 / 12 * ((n + 1) - ties / (n * (n - 1)))
        guard variance > 0 else { return (u1, 1) }
        let z = (u - mean - 0.5) / variance.squareRoot()
        return (u1, min(1, max(0, 2 * normalSurvival(z))))
    }

    /// Benjamini-Hochberg q-values of `pValues`, in their order
    /// (`statsmodels.stats.multitest.multipletests(p, method="fdr_bh")[1]`): the p-value of
    /// rank i (of m, ascending) times m / i, made monotone from the largest down, at most 1.
    public static func benjaminiHochberg(_ pValues: [Double]) -> [Double] {
        let m = pValues.count
        guard m > 0 else { return [] }
        let order = pValues.indices.sorted { (pValues[$0], $0) < (pValues[$1], $1) }
        var q = [Double](repeating: 1, count: m)
        var running = 1.0
        for rank in stride(from: m, through: 1, by: -1) {
            let index = order[rank - 1]
            running = min(running, pValues[index] * Double(m) / Double(rank))
            q[index] = min(1, running)
        }
        return q
    }

    /// The value at quantile `fraction` of a sample given as value → count: the smallest value
    /// with at least that share of the sample at or below it (the nearest-rank method).
    public static func nearestRank<Value: Comparable>(_ sample: [Value: Int], _ fraction: Double) -> Value? {
        let total = sample.values.reduce(0, +)
        guard total > 0 else { return nil }
        let rank = max(1, Int((fraction * Double(total)).rounded(.up)))
        var seen = 0
        for value in sample.keys.sorted() {
            seen += sample[value] ?? 0
            if seen >= rank { return value }
        }
        return nil
    }
}
