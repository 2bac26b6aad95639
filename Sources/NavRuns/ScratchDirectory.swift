#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import NavInput
package import SystemPackage

/// A private directory for temporary files, registered before it exists for removal on Ctrl-C
/// (`SpillCleanup`: the signal handler removes the files it knows by name, `part-N`, `out-N`,
/// `bad-N`, `ids-N`, `copy-N` for N below `files`, and `bad-reading`, then the directory).
package enum ScratchDirectory {
    package static func make(in base: String?, files: Int) throws -> (path: String, slot: Int32) {
        let base = base ?? ProcessEnvironment.temporaryDirectory
        // The name is registered for cleanup before the directory exists (not after `mkdtemp`):
        // a Ctrl-C in between would otherwise leave it behind.
        for _ in 0..<64 {
            let candidate = base + "/navreplay-spill-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
            var failure: Int32 = 0
            let (result, slot) = SpillCleanup.makeDirectory(candidate, partitions: files) {
                let result = mkdir(candidate, 0o700)
                failure = errno
                return result
            }
            if result == 0 { return (candidate, slot) }
            if failure != EEXIST {
                throw InputError(code: .unreadable, path: base, message: "cannot create a spill directory: \(Errno(rawValue: failure))")
            }
        }
        throw InputError(code: .unreadable, path: base, message: "cannot create a spill directory: every name tried exists")
    }

    /// Removes the (emptied) directory and its registration.
    package static func remove(_ directory: (path: String, slot: Int32)) {
        rmdir(directory.path)
        SpillCleanup.unregister(directory.slot)
    }

    /// Creates (or empties) a file of a scratch directory, behind the Ctrl-C gate
    /// (`SpillCleanup.creating`: no file appears after the handler's unlinks).
    package static func createFile(_ path: String, readable: Bool = false, what: String = "a temporary file") throws -> FileDescriptor {
        var failure: Int32 = 0
        let descriptor = SpillCleanup.creating {
            let result = open(path, (readable ? O_RDWR : O_WRONLY) | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            failure = errno
            return result
        }
        guard descriptor >= 0 else {
            throw InputError(code: .unreadable, path: path, message: "cannot create \(what): \(Errno(rawValue: failure))")
        }
        return FileDescriptor(rawValue: descriptor)
    }
}
