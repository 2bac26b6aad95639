// The `store` fuzz target (`NavFuzzStore.StoreCheck`): the readers of the ingestion store, fed
// corrupted stores and chunks. `scripts/fuzz --target store` builds and runs it;
// `navreplay-fuzz-store --write-seeds DIR` writes its seeds (what `ingest` writes).
import NavFuzzDriver
import NavFuzzStore

FuzzDriver.main(target: "store", check: StoreCheck.check, seeds: StoreSeeds.all)
