import Foundation
import NavAnalytics
import NavTestSupport
import Testing

/// Python with a module, for the tests that take SciPy or statsmodels as their oracle.
enum Oracle {
    static func has(_ module: String) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import \(module)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    static let available = has("scipy") && has("statsmodels")

    /// Runs `script` with `input` as JSON on its standard input; returns its standard output
    /// parsed as JSON.
    static func run(_ script: String, input: Any) throws -> Any {
        let directory = try TemporaryDirectory()
        let scriptPath = try directory.write("oracle.py", script)
        let inputPath = try directory.write(
            "input.json", String(decoding: try JSONSerialization.data(withJSONObject: input), as: UTF8.self))
        let outputPath = directory.path("output.json")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", scriptPath, inputPath, outputPath]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "the oracle failed")
        return try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: outputPath)))
    }
}

/// Each statistic against SciPy's or statsmodels' on fixed tables, to 1e-9.
@Suite(.enabled(if: Oracle.available, "needs python3 with scipy and statsmodels (scripts/install-test-deps installs them)"))
struct StatisticsTests {
    /// [a, b, c, d]: [[a, b], [c, d]], rows the two groups, columns with / without.
    static let tables: [[Int]] = [
        [3, 1, 1, 3], [10, 2, 3, 15], [0, 5, 5, 0], [1, 99, 5, 95], [7, 12, 7, 12], [2, 18, 0, 20], [12, 5, 7, 40],
        [20, 19_980, 35, 19_965], [400, 19_600, 600, 19_400], [2_000, 18_000, 2_600, 17_400], [1, 0, 0, 1],
        [50, 950, 50, 950], [0, 1000, 4, 996],
    ]

    static func close(_ a: Double, _ b: Double, _ what: String) {
        #expect(abs(a - b) <= 1e-9 * max(1, abs(b)), "\(what): \(a) against \(b)")
    }

    @Test func fisherAndTheTwoProportionTestEqualSciPyAndStatsmodels() throws {
        let script = """
            import json, sys
            from scipy.stats import fisher_exact
            from statsmodels.stats.proportion import proportions_ztest
            tables = json.load(open(sys.argv[1]))
            out = []
            for a, b, c, d in tables:
                f = fisher_exact([[a, b], [c, d]])[1]
                if (a + c) in (0, a + b + c + d):
                    z = [0.0, 1.0]
                else:
                    z = [float(v) for v in proportions_ztest([a, c], [a + b, c + d])]
                out.append([float(f), z[0], z[1]])
            json.dump(out, open(sys.argv[2], "w"))
            """
        let expected = try #require(try Oracle.run(script, input: Self.tables) as? [[Double]])
        for (table, values) in zip(Self.tables, expected) {
            let (a, b, c, d) = (table[0], table[1], table[2], table[3])
            Self.close(Statistics.fisherExact(a, b, c, d), values[0], "fisher \(table)")
            let z = Statistics.twoProportionZTest(a, a + b, c, c + d)
            Self.close(z.z, values[1], "z \(table)")
            Self.close(z.p, values[2], "z p \(table)")
        }
    }

    @Test func theIntervalsEqualStatsmodels() throws {
        let script = """
            import json, sys
            from statsmodels.stats.proportion import confint_proportions_2indep, proportion_confint
            tables = json.load(open(sys.argv[1]))
            out = []
            for a, b, c, d in tables:
                row = [float(v) for v in proportion_confint(a, a + b, method="wilson")]
                row += [float(v) for v in confint_proportions_2indep(a, a + b, c, c + d, compare="diff", method="newcomb")]
                if a > 0 and c > 0:
                    row += [float(v) for v in confint_proportions_2indep(a, a + b, c, c + d, compare="ratio", method="log")]
                out.append(row)
            json.dump(out, open(sys.argv[2], "w"))
            """
        let expected = try #require(try Oracle.run(script, input: Self.tables) as? [[Double]])
        for (table, values) in zip(Self.tables, expected) {
            let (a, b, c, d) = (table[0], table[1], table[2], table[3])
            let wilson = Statistics.wilsonInterval(a, a + b)
            Self.close(wilson.low, values[0], "wilson low \(table)")
            Self.close(wilson.high, values[1], "wilson high \(table)")
            let difference = Statistics.differenceInterval(a, a + b, c, c + d)
            Self.close(difference.difference, Double(a) / Double(a + b) - Double(c) / Double(c + d), "difference \(table)")
            Self.close(difference.low, values[2], "newcombe low \(table)")
            Self.close(difference.high, values[3], "newcombe high \(table)")
            let ratio = Statistics.ratioInterval(a, a + b, c, c + d)
            #expect((ratio == nil) == (values.count == 4), "ratio \(table)")
            if let ratio, values.count == 6 {
                Self.close(ratio.low, values[4], "ratio low \(table)")
                Self.close(ratio.high, values[5], "ratio high \(table)")
            }
        }
    }

    static let samples: [([Int64], [Int64])] = [
        ([1, 2, 3, 4, 5], [3, 4, 5, 6, 7, 8]),
        ([5, 5, 5, 2, 2, 9, 11], [5, 5, 3, 3, 3, 12, 15, 15, 1]),
        ([10, 20, 30], [10, 20, 30]),
        ((0..<400).map { Int64($0 % 17) }, (0..<350).map { Int64(($0 * 7) % 19) }),
        ((0..<1000).map { Int64($0 % 5) }, (0..<1200).map { Int64(($0 + 1) % 6) }),
    ]

    @Test func mannWhitneyEqualsSciPy() throws {
        let script = """
            import json, sys
            from scipy.stats import mannwhitneyu
            samples = json.load(open(sys.argv[1]))
            out = []
            for x, y in samples:
                r = mannwhitneyu(x, y, alternative="two-sided", method="asymptotic")
                out.append([float(r.statistic), float(r.pvalue)])
            json.dump(out, open(sys.argv[2], "w"))
            """
        let input = Self.samples.map { [$0.0, $0.1] }
        let expected = try #require(try Oracle.run(script, input: input) as? [[Double]])
        func counts(_ values: [Int64]) -> [Int64: Int] { values.reduce(into: [:]) { $0[$1, default: 0] += 1 } }
        for (sample, values) in zip(Self.samples, expected) {
            let result = Statistics.mannWhitney(counts(sample.0), counts(sample.1))
            Self.close(result.u, values[0], "U \(sample)")
            Self.close(result.p, values[1], "p \(sample)")
        }
    }

    @Test func benjaminiHochbergAndTheNormalQuantileEqualStatsmodelsAndSciPy() throws {
        let pValues = [0.01, 0.04, 0.03, 0.2, 0.5, 0.001, 0.04, 0.9, 0.049, 1.0, 0.0002, 0.03]
        let levels = [0.5, 0.975, 0.995, 0.9, 0.001, 1e-10, 0.3, 0.999_999]
        let script = """
            import json, sys
            from statsmodels.stats.multitest import multipletests
            from scipy.stats import norm
            p, levels = json.load(open(sys.argv[1]))
            q = multipletests(p, method="fdr_bh")[1]
            json.dump([[float(v) for v in q], [float(norm.ppf(v)) for v in levels]], open(sys.argv[2], "w"))
            """
        let expected = try #require(try Oracle.run(script, input: [pValues, levels]) as? [[Double]])
        for (mine, theirs) in zip(Statistics.benjaminiHochberg(pValues), expected[0]) { Self.close(mine, theirs, "q") }
        #expect(Statistics.benjaminiHochberg(pValues).count == pValues.count)
        for (level, theirs) in zip(levels, expected[1]) { Self.close(Statistics.normalQuantile(level), theirs, "ppf \(level)") }
    }
}

/// What holds without an oracle.
@Suite struct StatisticsPropertyTests {
    @Test func fisherOfATableAndItsMirrorAgreeAndABalancedTableIsOne() {
        #expect(Statistics.fisherExact(7, 12, 7, 12) == 1)
        #expect(abs(Statistics.fisherExact(10, 2, 3, 15) - Statistics.fisherExact(3, 15, 10, 2)) < 1e-15)
        #expect(Statistics.fisherExact(10, 0, 0, 10) < 1e-4)
    }

    @Test func qValuesAreMonotoneInThePValues() {
        let p = [0.2, 0.001, 0.03, 0.04, 0.5]
        let q = Statistics.benjaminiHochberg(p)
        let order = p.indices.sorted { p[$0] < p[$1] }
        for (a, b) in zip(order, order.dropFirst()) { #expect(q[a] <= q[b]) }
        for (pi, qi) in zip(p, q) { #expect(qi >= pi) }
    }

    @Test func nearestRankPercentiles() {
        let sample: [Int64: Int] = [1: 50, 2: 40, 10: 9, 100: 1]
        #expect(Statistics.nearestRank(sample, 0.5) == 1)
        #expect(Statistics.nearestRank(sample, 0.9) == 2)
        #expect(Statistics.nearestRank(sample, 0.99) == 10)
        #expect(Statistics.nearestRank(sample, 1) == 100)
        #expect(Statistics.nearestRank([Int64: Int](), 0.5) == nil)
    }
}
