import Foundation
import NavEvents
import NavModel
import NavReplay
import NavRouter
import NavSamples
import NavTestSupport
import Testing

/// One lost event, one consequence (docs/events-and-rules.md, "Adopting a claimed value"): random
/// sessions of each seed system, written by the router (so without any finding), each with one
/// event dropped from its middle. The fold re-synchronises from what the events after the gap
/// claim, so that the loss costs the `seq.gap` and at most one more finding.
@Suite("One lost event, one consequence")
struct LostEventPropertyTests {
    /// Sessions per system, and drops per session.
    static let sessions: UInt64 = 200
    static let dropsPerSession = 3

    struct Tally: CustomStringConvertible {
        var system = ""
        var cases = 0
        var withinTwo = 0
        /// Extra findings → cases.
        var histogram: [Int: Int] = [:]
        var byRule: [String: Int] = [:]
        var notAfterGap = 0
        var examples: [String] = []

        var share: Double { cases == 0 ? 1 : Double(withinTwo) / Double(cases) }
        var description: String {
            "\(system): \(withinTwo) of \(cases) within two (\(Double(Int(10_000 * share)) / 100)%); extra findings → cases "
                + histogram.keys.sorted().map { "\($0): \(histogram[$0] ?? 0)" }.joined(separator: ", ")
                + "; beyond the gap: " + byRule.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        }
    }

    /// The findings of `events` with the event at `index` dropped, against those of the whole session.
    static func measure(_ profile: SeedSystemPropertyTests.Profile, seeds: ClosedRange<UInt64>) throws -> Tally {
        var tally = Tally(system: profile.model.name)
        for seed in seeds {
            let events = SeedSystemPropertyTests.runSession(profile, seed: seed).written
            guard events.count >= 4 else { continue }
            let whole = try auditSession(events, model: profile.model)
            var random = SeededRandom(seed: seed &* 0x9E37_79B9 &+ 17)
            for _ in 0..<dropsPerSession {
                let index = Int.random(in: 1..<(events.count - 1), using: &random)
                var lossy = events
                let dropped = lossy.remove(at: index)
                let audit = try auditSession(lossy, model: profile.model)
                let extra = audit.findings.count - whole.findings.count
                tally.cases += 1
                tally.histogram[extra, default: 0] += 1
                if extra <= 2 { tally.withinTwo += 1 }
                let beyondGap = audit.findings.filter { $0.rule != .seqGap }
                for finding in beyondGap { tally.byRule[finding.rule.rawValue, default: 0] += 1 }
                tally.notAfterGap += audit.findings.filter { !$0.afterGap && ($0.seq ?? 0) >= dropped.seq }.count
                if extra > 2, tally.examples.count < 12 {
                    tally.examples.append(
                        "\(profile.model.name) seed \(seed), dropped seq \(dropped.seq) \(dropped.name.rawValue): "
                            + audit.findings.map { "\($0.rule.rawValue)@\($0.seq ?? -1)" }.joined(separator: ", "))
                }
            }
        }
        return tally
    }

    static func profile(_ name: String) -> SeedSystemPropertyTests.Profile? {
        switch name {
        case "poc": SeedSystemPropertyTests.poc
        case "pocApp": SeedSystemPropertyTests.pocApp
        case "spaceHub": SeedSystemPropertyTests.spaceHub
        case "modularTabs": SeedSystemPropertyTests.modularTabs
        case "pagesWidgets": SeedSystemPropertyTests.pagesWidgets
        case "registry": SeedSystemPropertyTests.registry
        default: nil
        }
    }

    static let systems = ["poc", "pocApp", "spaceHub", "modularTabs", "pagesWidgets", "registry"]

    /// Measured (200 sessions x 3 drops a system): the PoC router's two systems 99.3% and 99.7%
    /// (99.5% together), the others 97.0% (registry: two route names, so a lost push and lost
    /// pops look alike) to 99.0%; 98.8% of all. Without the re-synchronisation (main before it):
    /// 87.5% to 92.5%, 90.1% of all.
    @Test func oneLostEventCostsTheGapAndAtMostOneConsequence() throws {
        var all = Tally(system: "all")
        var poc = Tally(system: "the PoC router's systems")
        for name in Self.systems {
            let profile = try #require(Self.profile(name))
            let tally = try Self.measure(profile, seeds: 1...Self.sessions)
            print(tally)
            for example in tally.examples { print("  " + example) }
            #expect(tally.cases >= Int(Self.sessions) * Self.dropsPerSession / 2)
            #expect(tally.share >= 0.965, Comment(rawValue: "\(tally)\n" + tally.examples.joined(separator: "\n")))
            // Every finding at or after the lost event says the lost events may explain it.
            #expect(tally.notAfterGap == 0, "\(name): \(tally.notAfterGap) finding(s) after the lost event without after_gap")
            for total in [\Tally.cases, \Tally.withinTwo] {
                all[keyPath: total] += tally[keyPath: total]
                if name.hasPrefix("poc") { poc[keyPath: total] += tally[keyPath: total] }
            }
        }
        print(all)
        print(poc)
        #expect(poc.share >= 0.99, "\(poc)")
        #expect(all.share >= 0.985, "\(all)")
    }
}

/// `NAVREPLAY_LOST_EVENT=SYSTEM:SEED:SEQ swift test --filter LostEventDebug` prints one case:
/// the events around the lost one and the findings with and without it.
@Suite struct LostEventDebug {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["NAVREPLAY_LOST_EVENT"] != nil))
    func printOneCase() throws {
        let parts = (ProcessInfo.processInfo.environment["NAVREPLAY_LOST_EVENT"] ?? "").split(separator: ":").map(String.init)
        let profile = try #require(LostEventPropertyTests.profile(parts[0]))
        let seed = try #require(UInt64(parts[1]))
        let seq = try #require(Int64(parts[2]))
        let events = SeedSystemPropertyTests.runSession(profile, seed: seed).written
        var lossy = events
        lossy.removeAll { $0.seq == seq }
        let audit = try auditSession(lossy, model: profile.model)
        for event in events where abs(event.seq - seq) <= 12 {
            print("\(event.seq == seq ? "LOST " : "     ")\(event.canonicalJSON)")
        }
        for finding in audit.findings {
            print("\(finding.rule.rawValue)@\(finding.seq ?? -1) after_gap=\(finding.afterGap): \(finding.message)")
        }
    }
}
