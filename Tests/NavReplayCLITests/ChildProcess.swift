#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import NavTestSupport

/// A child process started with `posix_spawn` and reaped with `wait4`, so that a test can kill it
/// at a moment of its choosing and read its peak memory (`ru_maxrss`), which Foundation's
/// `Process` does not expose. Standard output and error go to temporary files (a full pipe can
/// never block the child); standard input is `/dev/null` or a given file (a FIFO included).
final class ChildProcess {
    /// How a child ended.
    struct Outcome {
        /// The exit status, or `nil` when a signal ended it.
        var exitStatus: Int32?
        /// The signal that ended it, if one did.
        var signal: Int32?
        var stdout: [UInt8]
        var stderr: [UInt8]
        /// The child's peak resident set size, in bytes.
        var peakRSSBytes: Int

        var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
        var stderrText: String { String(decoding: stderr, as: UTF8.self) }
    }

    struct SpawnError: Error, CustomStringConvertible {
        var description: String
    }

    let pid: pid_t
    private let stdoutPath: String
    private let stderrPath: String
    private var reaped = false

    /// Starts `executable` with `arguments` (give absolute paths: the child runs in the test's
    /// working directory), with `NO_COLOR=1` added to the environment.
    init(
        _ executable: String, _ arguments: [String], stdinPath: String = "/dev/null",
        environment extra: [String: String] = [:]
    ) throws {
        let token = "\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        let temporary = FileManager.default.temporaryDirectory.path
        stdoutPath = "\(temporary)/navreplay-child-out-\(token)"
        stderrPath = "\(temporary)/navreplay-child-err-\(token)"

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdinPath, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        for (key, value) in extra { environment[key] = value }
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        // A shell's child starts with no signal blocked and default handlers; the test runner's
        // threads may block some, and posix_spawn would pass that mask on.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in SpillCleanupTests.endingSignals + [SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var child = pid_t()
        let status = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        guard status == 0 else {
            throw SpawnError(description: "posix_spawn \(executable): \(String(cString: strerror(status)))")
        }
        pid = child
    }

    deinit {
        if !reaped {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        unlink(stdoutPath)
        unlink(stderrPath)
    }

    /// Sends a signal (SIGKILL by default).
    func send(_ signal: Int32 = SIGKILL) {
        _ = kill(pid, signal)
    }

    /// Waits for the child to end and collects what it wrote.
    ///
    /// The peak memory is the child's own high-water mark (`VmHWM` in `/proc/PID/status`, read
    /// until the child exits; it only grows, so the last reading is the peak). `ru_maxrss` is
    /// only the fallback: Linux carries it across `execve` from the spawning process, so it
    /// would count the test runner's own memory at the moment of the spawn.
    ///
    /// `killingAfter`: a child still running after that many seconds is hung; it is killed
    /// (the outcome then has `signal` 9), so that the test fails instead of waiting for good.
    func wait(killingAfter limit: Double? = nil) -> Outcome {
        var polledPeak = 0
        let start = Date()
        while let highWater = ChildProcess.highWaterBytes(of: pid) {
            polledPeak = max(polledPeak, highWater)
            if let limit, Date().timeIntervalSince(start) > limit { send(SIGKILL) }
            usleep(2000)
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        reaped = true
        let read = { (path: String) -> [UInt8] in
            (FileManager.default.contents(atPath: path)).map { [UInt8]($0) } ?? []
        }
        // WIFEXITED / WTERMSIG, spelled out (the C macros are not imported).
        let signal = status & 0x7F
        return Outcome(
            exitStatus: signal == 0 ? (status >> 8) & 0xFF : nil, signal: signal == 0 ? nil : signal,
            stdout: read(stdoutPath), stderr: read(stderrPath),
            peakRSSBytes: polledPeak > 0 ? polledPeak : Int(usage.ru_maxrss) * 1024)
    }

    /// `VmHWM` of a live process, in bytes; `nil` once it has exited (a zombie has none).
    static func highWaterBytes(of pid: pid_t) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return nil }
        let digits = line.dropFirst("VmHWM:".count).trimmingCharacters(in: .whitespaces).split(separator: " ").first
        return digits.flatMap { Int($0) }.map { $0 * 1024 }
    }

    /// The bytes the child has written to standard output so far.
    func stdoutSoFar() -> [UInt8] {
        FileManager.default.contents(atPath: stdoutPath).map { [UInt8]($0) } ?? []
    }

    /// Runs a command to its end.
    static func run(
        _ executable: String, _ arguments: [String], stdinPath: String = "/dev/null", environment: [String: String] = [:]
    ) throws -> Outcome {
        try ChildProcess(executable, arguments, stdinPath: stdinPath, environment: environment).wait()
    }
}

/// The executables built next to the test bundle.
enum Executables {
    /// The directory of the built `navreplay`.
    static var directory: String? {
        Repository.binary.map { URL(fileURLWithPath: $0).deletingLastPathComponent().path }
    }

    static func named(_ name: String) throws -> String {
        guard let directory else { throw BinaryMissing() }
        let path = "\(directory)/\(name)"
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw ChildProcess.SpawnError(description: "\(name) is not built next to navreplay (run swift build first)")
        }
        return path
    }

    static func navreplay() throws -> String { try named("navreplay") }
    static func writerFixture() throws -> String { try named("navreplay-writer-fixture") }
}

/// Runs the built `navreplay` through `ChildProcess` (for its peak memory, or a FIFO as input).
func navreplayChild(_ arguments: [String], stdinPath: String = "/dev/null") throws -> ChildProcess.Outcome {
    try ChildProcess.run(try Executables.navreplay(), arguments, stdinPath: stdinPath)
}
