#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import CNavProcess

/// What a signal does to this process: the libraries register their spill directories and
/// mapped inputs (`CNavSupport`'s registries) and never install a handler; the executable does,
/// here, before anything runs.
enum SignalHandlers {
    /// Every signal whose default action ends the process without a core dump and that can be
    /// caught: each removes the spill directories, then the process exits with 128 + the signal.
    static var ending: [Int32] {
        var signals = [SIGINT, SIGTERM, SIGPIPE, SIGHUP, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGXCPU, SIGXFSZ, SIGPROF]
        #if os(Linux)
            signals += [SIGIO, SIGPWR, SIGSTKFLT]
        #endif
        return signals
    }

    /// Installs them all, and the SIGBUS handler that reports a mapped input that shrank.
    static func install() {
        for signal in ending { _ = navreplay_install_ending(signal) }
        _ = navreplay_install_bus(
            "navreplay: ", ": the file shrank while it was being audited, so the audit stopped (run it again, or with --no-mmap)\n")
    }
}
