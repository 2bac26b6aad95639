// The `decoder` fuzz target (`NavFuzzDecoder.DecoderCheck`): one line through the strict event
// decoder, against Foundation's JSON reader. `scripts/fuzz --target decoder` builds and runs it.
import NavFuzzDecoder
import NavFuzzDriver

FuzzDriver.main(target: "decoder", check: DecoderCheck.check)
