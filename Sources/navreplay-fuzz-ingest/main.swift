// The `ingest` fuzz target (`NavFuzzStore.IngestCheck`): a batch ingested into a corrupted
// store. `scripts/fuzz --target ingest` builds and runs it;
// `navreplay-fuzz-ingest --write-seeds DIR` writes its seeds (stores `ingest` wrote).
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import NavFuzzDriver
import NavFuzzStore

let arguments = CommandLine.arguments
if arguments.count == 3, arguments[1] == "--write-seeds" {
    do {
        for seed in try StoreSeeds.ingest() {
            let path = arguments[2] + "/" + seed.name
            guard let file = fopen(path, "wb") else { fatalError("cannot write \(path)") }
            _ = seed.bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
            fclose(file)
            print(path)
        }
        exit(0)
    } catch {
        fatalError("cannot make the seeds: \(error)")
    }
}
FuzzDriver.main(target: "ingest", check: IngestCheck.check)
