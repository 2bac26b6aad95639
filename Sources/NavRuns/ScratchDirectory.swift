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
///
/// Each name holds its process's id (`navreplay-spill-PID-RANDOM`): the first directory a run
/// makes in a place removes there the directories of processes that are gone (killed with
/// `SIGKILL`, or on a machine that lost power), which no handler could remove.
package enum ScratchDirectory {
    /// The places swept of dead processes' directories by this process.
    private static let swept = SweptPlaces()

    package static func make(in base: String?, files: Int) throws -> (path: String, slot: Int32) {
        let base = base ?? ProcessEnvironment.temporaryDirectory
        if swept.first(base) { removeStale(in: base) }
        // The name is registered for cleanup before the directory exists (not after `mkdtemp`):
        // a Ctrl-C in between would otherwise leave it behind.
        for _ in 0..<64 {
            let candidate = base + "/\(owner)" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
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

    static let prefix = "navreplay-spill-"

    /// `navreplay-spill-HOST-PID-`: the host's name (letters and digits, at most 24) keeps a
    /// sweep off the directories of another machine or container that shares the place.
    private static let host: String = {
        var bytes = [CChar](repeating: 0, count: 256)
        guard gethostname(&bytes, bytes.count - 1) == 0 else { return "host" }
        let name = String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let kept = name.unicodeScalars.filter {
            $0.isASCII && (("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0))
        }
        return kept.isEmpty ? "host" : String(String.UnicodeScalarView(kept.prefix(24)))
    }()

    private static var owner: String { "\(prefix)\(host)-\(getpid())-" }

    /// Removes from `base` the spill directories of this user whose process is gone (its id is
    /// no process's, `kill(pid, 0)` says), with what they hold. A directory of a live process,
    /// of another user, or of a name without a process id is left.
    package static func removeStale(in base: String) {
        guard let directory = opendir(base) else { return }
        var stale: [String] = []
        while let entry = readdir(directory) {
            let name = entryName(entry)
            let hostPrefix = prefix + host + "-"
            guard name.hasPrefix(hostPrefix), let pid = Int32(name.dropFirst(hostPrefix.count).prefix { $0 != "-" }), pid > 0 else {
                continue
            }
            guard pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            var status = stat()
            let path = base + "/" + name
            guard lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR, status.st_uid == getuid() else { continue }
            stale.append(path)
        }
        closedir(directory)
        for path in stale { removeTree(path, depth: 0) }
    }

    /// A directory entry's name, read where it lies: `readdir`'s record holds only as much of
    /// `d_name` as the name needs, so copying the whole field could read past the record.
    private static func entryName(_ entry: UnsafeMutablePointer<dirent>) -> String {
        let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        return String(cString: (UnsafeRawPointer(entry) + offset).assumingMemoryBound(to: CChar.self))
    }

    /// Removes a directory with its files and the directories in it (a few levels at most).
    private static func removeTree(_ path: String, depth: Int) {
        guard depth < 4, let directory = opendir(path) else { return }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = entryName(entry)
            if name != "." && name != ".." { names.append(name) }
        }
        closedir(directory)
        for name in names {
            let child = path + "/" + name
            var status = stat()
            guard lstat(child, &status) == 0 else { continue }
            if (status.st_mode & S_IFMT) == S_IFDIR { removeTree(child, depth: depth + 1) } else { unlink(child) }
        }
        rmdir(path)
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

/// The places a process has swept of stale spill directories, each once.
private final class SweptPlaces: @unchecked Sendable {
    // @unchecked: `places` is touched under `lock` only.
    private let lock = NSLockLike()
    private var places = Set<String>()

    /// Whether `place` is met for the first time (and notes it).
    func first(_ place: String) -> Bool { lock.withLock { places.insert(place).inserted } }
}
