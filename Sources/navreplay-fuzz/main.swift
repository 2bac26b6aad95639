// The `pipeline` fuzz target (`NavFuzz.FuzzHarness`): each input through the reader, the
// decoder, the fold and every output format. `scripts/fuzz --target pipeline` builds and runs it.
import NavFuzz
import NavFuzzDriver

let harness = FuzzHarness()
FuzzDriver.main(target: "pipeline") { harness.check(Array($0)).violations }
