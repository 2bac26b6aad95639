// The `runs` fuzz target (`NavFuzzRuns.RunsCheck`): the readers of every on-disk form the engine
// writes and reads back, fed corrupted files. `scripts/fuzz --target runs` builds and runs it;
// `navreplay-fuzz-runs --write-seeds DIR` writes its seeds (files the writers made).
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import NavFuzzDriver
import NavFuzzRuns

let arguments = CommandLine.arguments
if arguments.count == 3, arguments[1] == "--write-seeds" {
    do {
        for seed in try RunsSeeds.all() {
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
FuzzDriver.main(target: "runs", check: RunsCheck.check)
