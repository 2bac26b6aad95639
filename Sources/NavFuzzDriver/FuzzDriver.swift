#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The entry point every fuzz executable shares: one target's check, run by libFuzzer or on
/// saved inputs.
///
/// Built with `-sanitize=fuzzer -DFUZZING` (`scripts/fuzz`), `main` hands the check to
/// libFuzzer (`LLVMFuzzerRunDriver`): a check that reports a broken invariant aborts with its
/// description, so that libFuzzer saves the input as a crash. In a plain build it replays
/// instead: `navreplay-fuzz-NAME FILE|DIR...` checks each input once and exits 1 if one breaks
/// an invariant, which is how a saved crash is reproduced without the fuzzer.
///
/// A check takes one input's bytes and returns the invariants it broke, in words (empty when
/// all held).
public enum FuzzDriver {
    public typealias Check = @Sendable (UnsafeBufferPointer<UInt8>) -> [String]

    /// A target's seeds, by name: files its writers made.
    public typealias Seeds = () throws -> [(name: String, bytes: [UInt8])]

    /// Runs `check` under libFuzzer or as a replayer (see the type's documentation); never returns.
    /// With `seeds`, `navreplay-fuzz-NAME --write-seeds DIR` writes them into DIR instead, a file
    /// each, and prints their paths.
    public static func main(target: String, check: @escaping Check, seeds: Seeds? = nil) -> Never {
        let arguments = CommandLine.arguments
        if let seeds, arguments.count == 3, arguments[1] == "--write-seeds" { exit(writeSeeds(seeds, to: arguments[2])) }
        #if FUZZING
            currentCheck = check
            var argc = CommandLine.argc
            var argv = CommandLine.unsafeArgv
            exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzOneInput))
        #else
            exit(replay(target: target, arguments: Array(CommandLine.arguments.dropFirst()), check: check))
        #endif
    }

    /// Writes each seed as `DIRECTORY/NAME`; the exit status.
    static func writeSeeds(_ seeds: Seeds, to directory: String) -> Int32 {
        func fail(_ message: String) -> Int32 {
            let bytes = Array("navreplay-fuzz: \(message)\n".utf8)
            _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
            return 1
        }
        do {
            for seed in try seeds() {
                let path = directory + "/" + seed.name
                guard let file = fopen(path, "wb") else { return fail("cannot write \(path)") }
                let written = seed.bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
                guard fclose(file) == 0, written == seed.bytes.count else { return fail("cannot write \(path)") }
                print(path)
            }
            return 0
        } catch {
            return fail("cannot make the seeds: \(error)")
        }
    }

    /// Checks each file (each file of each directory, not recursively) once; the exit status.
    public static func replay(target: String, arguments: [String], check: Check) -> Int32 {
        if arguments.isEmpty || arguments.contains("--help") {
            print("usage: navreplay-fuzz-\(target) FILE|DIR...  (checks each input; exit 1 if one breaks an invariant)")
            return arguments.isEmpty ? 2 : 0
        }
        var paths: [String] = []
        for argument in arguments { paths += files(at: argument) }
        var failed = 0
        for path in paths {
            guard let bytes = readFile(path) else {
                report(["cannot be read"], input: path)
                failed += 1
                continue
            }
            let violations = bytes.withUnsafeBufferPointer { check($0) }
            if violations.isEmpty {
                print("ok \(path)")
            } else {
                report(violations, input: path)
                failed += 1
            }
        }
        print("navreplay-fuzz-\(target): checked \(paths.count) input(s), \(failed) broke an invariant")
        return failed == 0 ? 0 : 1
    }

    /// Writes the broken invariants to standard error.
    public static func report(_ violations: [String], input: String) {
        var text = "navreplay-fuzz: \(input): \(violations.count) invariant(s) broken\n"
        for violation in violations { text += "  - \(violation)\n" }
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }

    /// The path itself, or the regular files of a directory in name order.
    static func files(at path: String) -> [String] {
        guard let directory = opendir(path) else { return [path] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted().map { path + "/" + $0 }
    }

    /// A file's bytes; `nil` when it cannot be read.
    public static func readFile(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        return ferror(file) == 0 ? bytes : nil
    }
}

#if FUZZING
    /// The check libFuzzer calls: set once, before the driver starts, and only read after.
    nonisolated(unsafe) private var currentCheck: FuzzDriver.Check?

    @_silgen_name("LLVMFuzzerRunDriver")
    private func LLVMFuzzerRunDriver(
        _ argc: UnsafeMutablePointer<Int32>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
    ) -> Int32

    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
        let violations = currentCheck!(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
        if !violations.isEmpty {
            FuzzDriver.report(violations, input: "\(size)-byte input")
            abort()
        }
        return 0
    }
#endif
