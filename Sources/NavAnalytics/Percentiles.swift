/// Percentiles of a distribution held as counts by value, by numpy's default method.
public enum Percentiles {
    /// How a percentile is taken, as the outputs state it.
    public static let method =
        "linear (numpy's default, Hyndman and Fan type 7): the sorted values' rank (n - 1) * p / 100, interpolated between the two nearest"

    /// The `percents` (0 to 100) of the values counted in `counts` (value: how many times it
    /// occurs; counts of zero or less are left out), as `numpy.percentile(values, percents)`
    /// gives them, bit for bit; `nil` without values.
    public static func linear(_ counts: [Int64: Int], percents: [Int]) -> [Double]? {
        let sorted = counts.filter { $0.value > 0 }.sorted { $0.key < $1.key }
        var cumulative: [Int] = []
        var total = 0
        for (_, count) in sorted {
            total += count
            cumulative.append(total)
        }
        guard total > 0 else { return nil }
        /// The value at a 0-based rank of the sorted values.
        func value(at rank: Int) -> Int64 {
            var low = 0
            var high = cumulative.count - 1
            while low < high {
                let middle = (low + high) / 2
                if cumulative[middle] > rank { high = middle } else { low = middle + 1 }
            }
            return sorted[low].key
        }
        return percents.map { percent in
            let quantile = Double(percent) / 100
            let virtual = Double(total - 1) * quantile
            if virtual >= Double(total - 1) { return Double(value(at: total - 1)) }
            let previous = virtual.rounded(.down)
            let gamma = virtual - previous
            let a = value(at: Int(previous))
            let b = value(at: Int(previous) + 1)
            let difference = Double(b - a)
            // numpy's `_lerp`: from the nearer end.
            return gamma >= 0.5 ? Double(b) - difference * (1 - gamma) : Double(a) + difference * gamma
        }
    }
}
