import NavFuzzDecoder
import NavFuzzRuns
import NavFuzzStore

/// The fuzz targets by name, as `scripts/fuzz --list` gives them: each a check of one input's
/// bytes that returns the invariants it broke. Each has its executable,
/// `navreplay-fuzz-NAME` (`navreplay-fuzz` for `pipeline`), which links only what it checks; the
/// tests replay the saved inputs of `Tests/Fixtures/fuzz/NAME` through the same checks.
public struct FuzzTarget: Sendable {
    public var name: String
    public var check: @Sendable (UnsafeBufferPointer<UInt8>) -> [String]

    /// Every target, in the order `scripts/fuzz --all` runs them.
    public static let all: [FuzzTarget] = [
        FuzzTarget(name: "decoder", check: DecoderCheck.check),
        FuzzTarget(name: "model", check: ModelCheck.check),
        FuzzTarget(name: "located", check: LocatedCheck.check),
        FuzzTarget(name: "runs", check: RunsCheck.check),
        FuzzTarget(name: "store", check: StoreCheck.check),
        FuzzTarget(name: "ingest", check: IngestCheck.check),
        FuzzTarget(name: "pipeline") { FuzzHarness().check(Array($0)).violations },
    ]

    public static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }

    /// The check on an array.
    public func check(_ bytes: [UInt8]) -> [String] { bytes.withUnsafeBufferPointer { check($0) } }
}
