// The `located` fuzz target (`NavFuzzRuns.LocatedCheck`): located input's prefixes, split and
// written again. `scripts/fuzz --target located` builds and runs it.
import NavFuzzDriver
import NavFuzzRuns

FuzzDriver.main(target: "located", check: LocatedCheck.check)
