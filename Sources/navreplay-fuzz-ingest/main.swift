// The `ingest` fuzz target (`NavFuzzStore.IngestCheck`): a batch ingested into a corrupted
// store. `scripts/fuzz --target ingest` builds and runs it;
// `navreplay-fuzz-ingest --write-seeds DIR` writes its seeds (stores `ingest` wrote).
import NavFuzzDriver
import NavFuzzStore

FuzzDriver.main(target: "ingest", check: IngestCheck.check, seeds: StoreSeeds.ingest)
