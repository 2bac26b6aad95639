import Testing

@testable import NavEngine

/// `NAVREPLAY_TUNING`, which `scripts/bench --mechanisms` uses to turn each mechanism off.
struct AuditTuningTests {
    @Test func eachOverrideSetsItsMechanism() throws {
        var tuning = AuditTuning()
        try tuning.apply(overrides: "routing=serial,shorthand=never")
        #expect(!tuning.routesInParallel)
        #expect(tuning.shorthandFromBytes == .max)
        try tuning.apply(overrides: "shorthand=always,routing=parallel")
        #expect(tuning.shorthandFromBytes == 0)
        #expect(tuning.routesInParallel)
    }

    @Test func nothingToApplyChangesNothing() throws {
        var tuning = AuditTuning()
        try tuning.apply(overrides: "")
        #expect(tuning.routesInParallel)
        #expect(tuning.shorthandFromBytes == nil)
    }

    @Test(arguments: ["routing", "prefetch=0", "partition-memory=0", "routing=fast", "shorthand=", "ledger=flat"])
    func anUnknownPairIsRefusedByName(_ text: String) {
        var tuning = AuditTuning()
        #expect {
            try tuning.apply(overrides: text)
        } throws: { error in
            (error as? TuningError)?.description.contains("'\(text)'") == true
        }
    }
}
