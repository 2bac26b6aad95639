#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import NavFuzz
import NavResults

// The libFuzzer target over `FuzzHarness` (reader, decoder, fold, every output format).
//
// Built by `scripts/fuzz` with `-sanitize=fuzzer,address -DFUZZING`: libFuzzer drives
// `LLVMFuzzerTestOneInput`, and any broken invariant aborts with its description so that
// libFuzzer saves the input as a crash. A plain `swift build` (no FUZZING) makes a replayer
// instead: `navreplay-fuzz FILE|DIR...` checks each input once and exits 1 if one fails, which
// is how a saved crash is reproduced without the fuzzer.

let harness = FuzzHarness()

func report(_ violations: [String], input: String) {
    var text = "navreplay-fuzz: \(input): \(violations.count) invariant(s) broken\n"
    for violation in violations { text += "  - \(violation)\n" }
    FileHandle.standardError.write(Data(text.utf8))
}

#if FUZZING
    @_silgen_name("LLVMFuzzerRunDriver")
    func LLVMFuzzerRunDriver(
        _ argc: UnsafeMutablePointer<Int32>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
    ) -> Int32

    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
        let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
        let result = harness.check(input)
        if !result.violations.isEmpty {
            report(result.violations, input: "\(size)-byte input")
            abort()
        }
        return 0
    }

    @main struct FuzzDriver {
        static func main() {
            var argc = CommandLine.argc
            var argv = CommandLine.unsafeArgv
            exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzOneInput))
        }
    }
#else
    @main struct FuzzReplayer {
        static func main() {
            let arguments = Array(CommandLine.arguments.dropFirst())
            if arguments.isEmpty || arguments.contains("--help") {
                print("usage: navreplay-fuzz FILE|DIR...  (checks each input with the fuzz harness; exit 1 if one breaks an invariant)")
                exit(arguments.isEmpty ? 2 : 0)
            }
            var paths: [String] = []
            for argument in arguments {
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory), isDirectory.boolValue {
                    let names = (try? FileManager.default.contentsOfDirectory(atPath: argument)) ?? []
                    paths += names.sorted().map { (argument as NSString).appendingPathComponent($0) }
                } else {
                    paths.append(argument)
                }
            }
            var failed = 0
            for path in paths {
                guard let data = FileManager.default.contents(atPath: path) else {
                    report(["cannot be read"], input: path)
                    failed += 1
                    continue
                }
                let result = harness.check([UInt8](data))
                if result.violations.isEmpty {
                    print("ok \(path): \(result.counts.lines) line(s)")
                } else {
                    report(result.violations, input: path)
                    failed += 1
                }
            }
            print("navreplay-fuzz: checked \(paths.count) input(s), \(failed) broke an invariant")
            exit(failed == 0 ? 0 : 1)
        }
    }
#endif
