#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import CNavSupport
import NavInput

/// The registry of spill directories that a signal handler removes (`shim.h`; the handler is
/// the executable's to install, not a library's). Directories are registered before they exist,
/// and files are created behind a gate that the handler closes, so nothing appears after it has
/// removed what it knows.
package enum SpillCleanup {
    private static let lock = NSLockLike()

    /// Makes a spill directory with `mkdir` (which returns 0 when it made it), registered for
    /// removal before it exists, so that no signal can come in between; returns the result and
    /// the registration (-1 when the registry is full: that run's partitions then survive an
    /// interrupt, as a `kill -9` leaves them).
    package static func makeDirectory(_ path: String, partitions: Int, _ mkdir: () -> Int32) -> (result: Int32, slot: Int32) {
        lock.withLock {
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
        lock.withLock {
            _ = creating {
                navreplay_spill_unregister(slot)
                return 0
            }
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
