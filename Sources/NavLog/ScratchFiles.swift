#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A private directory for temporary files, registered before it exists for removal on Ctrl-C
/// (`SpillCleanup`: the signal handler removes the files it knows by name, `part-N`, `out-N`,
/// `bad-N`, `ids-N`, `copy-N` for N below `files`, and `bad-reading`, then the directory).
enum ScratchDirectory {
    static func make(in base: String?, files: Int) throws -> (path: String, slot: Int32) {
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
                throw InputError(code: .unreadable, path: base, message: "cannot create a spill directory: \(String(cString: strerror(failure)))")
            }
        }
        throw InputError(code: .unreadable, path: base, message: "cannot create a spill directory: every name tried exists")
    }

    /// Removes the (emptied) directory and its registration.
    static func remove(_ directory: (path: String, slot: Int32)) {
        rmdir(directory.path)
        SpillCleanup.unregister(directory.slot)
    }

    /// Creates (or empties) a file of a scratch directory, behind the Ctrl-C gate
    /// (`SpillCleanup.creating`: no file appears after the handler's unlinks).
    static func createFile(_ path: String, readable: Bool = false, what: String = "a temporary file") throws -> Int32 {
        let descriptor = SpillCleanup.creating {
            open(path, (readable ? O_RDWR : O_WRONLY) | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        }
        guard descriptor >= 0 else {
            throw InputError(code: .unreadable, path: path, message: "cannot create \(what): \(String(cString: strerror(errno)))")
        }
        return descriptor
    }

    /// Writes every byte (a `write` may take fewer, or be interrupted); an error names `what`.
    static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, path: String, what: String = "a temporary file") throws {
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw InputError(code: .unreadable, path: path, message: "cannot write \(what): \(String(cString: strerror(errno)))")
            }
            offset += written
        }
    }
}

/// Copies of the inputs that cannot be read twice (standard input, a pipe, a FIFO, a device),
/// written as they are read, so that a refold (`Refold`) reads the same lines again.
final class InputCopies {
    private let directory: (path: String, slot: Int32)
    private var descriptors: [String: Int32] = [:]
    /// The file each copied input is in, by input name.
    private(set) var paths: [String: String] = [:]

    /// The inputs among `inputs` that are not regular files (`-` is standard input).
    static func unrepeatable(_ inputs: [String]) -> [String] {
        inputs.filter { path in
            guard path != "-" else { return true }
            var status = stat()
            return stat(path, &status) == 0 && (status.st_mode & S_IFMT) != S_IFREG && (status.st_mode & S_IFMT) != S_IFDIR
        }
    }

    init(of inputs: [String], in temporaryDirectory: String?) throws {
        directory = try ScratchDirectory.make(in: temporaryDirectory, files: inputs.count)
        for (index, input) in inputs.enumerated() {
            let path = directory.path + "/copy-" + String(index)
            let descriptor: Int32
            do {
                descriptor = try ScratchDirectory.createFile(path, what: "a copy of \(input)")
            } catch {
                remove()
                throw error
            }
            descriptors[input] = descriptor
            paths[input] = path
        }
    }

    deinit { remove() }

    func descriptor(for input: String) -> Int32? { descriptors[input] }

    private func remove() {
        for descriptor in descriptors.values { close(descriptor) }
        descriptors = [:]
        for path in paths.values { unlink(path) }
        paths = [:]
        ScratchDirectory.remove(directory)
    }
}
