// The `model` fuzz target (`NavFuzzDecoder.ModelCheck`): a model file through the loader, which
// loads it or names a JSON path. `scripts/fuzz --target model` builds and runs it.
import NavFuzzDecoder
import NavFuzzDriver

FuzzDriver.main(target: "model", check: ModelCheck.check)
