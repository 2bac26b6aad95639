#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import CNavSupport
import NavInput

/// Removes spill partitions when the process is interrupted (Ctrl-C, SIGTERM) or its output
/// pipe closes (SIGPIPE). The handler and the registry it reads are in C (`shim.h`): a handler
/// may not allocate nor enter Swift's runtime, since the thread it interrupts may hold a lock.
package enum SpillCleanup {
    private static let lock = NSLockLike()
    nonisolated(unsafe) private static var installed = false

    /// Makes a spill directory with `mkdir` (which returns 0 when it made it), registered for
    /// removal before it exists, so that no signal can come in between; returns the result and
    /// the registration (-1 when the registry is full: that run's partitions then survive an
    /// interrupt, as a `kill -9` leaves them).
    package static func makeDirectory(_ path: String, partitions: Int, _ mkdir: () -> Int32) -> (result: Int32, slot: Int32) {
        lock.withLock {
            installHandlers()
            var slot: Int32 = -1
            let result = creating {
                slot = navreplay_spill_register(path, partitions)
                let result = mkdir()
                if result != 0 {
                    navreplay_spill_unregister(slot)
                    slot = -1
                }
                return result
            }
            return (result, slot)
        }
    }

    package static func unregister(_ slot: Int32) {
        lock.withLock { _ = creating { navreplay_spill_unregister(slot); return 0 } }
    }

    private static func installHandlers() {
        guard !installed else { return }
        installed = true
        signal(SIGINT, navreplay_spill_on_signal)
        signal(SIGTERM, navreplay_spill_on_signal)
        // Output is streamed while partitions exist: a reader that goes away (`| head`) ends
        // the run, and the partitions go with it. An ignored SIGPIPE stays ignored (then the
        // write fails and the run unwinds normally).
        let previous = signal(SIGPIPE, navreplay_spill_on_signal)
        if let previous, unsafeBitCast(previous, to: UnsafeRawPointer.self) == unsafeBitCast(SIG_IGN, to: UnsafeRawPointer.self) {
            signal(SIGPIPE, SIG_IGN)
        }
    }

    /// Creates a spill file or directory, unless the process is exiting: then the calling
    /// thread waits for the exit instead, so that nothing appears after the handler's unlinks.
    package static func creating(_ create: () -> Int32) -> Int32 {
        guard navreplay_spill_enter() != 0 else {
            while true { pause() }
        }
        defer { navreplay_spill_leave() }
        return create()
    }
}
