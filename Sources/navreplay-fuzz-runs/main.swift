// The `runs` fuzz target (`NavFuzzRuns.RunsCheck`): the readers of every on-disk form the engine
// writes and reads back, fed corrupted files. `scripts/fuzz --target runs` builds and runs it;
// `navreplay-fuzz-runs --write-seeds DIR` writes its seeds (files the writers made).
import NavFuzzDriver
import NavFuzzRuns

FuzzDriver.main(target: "runs", check: RunsCheck.check, seeds: RunsSeeds.all)
