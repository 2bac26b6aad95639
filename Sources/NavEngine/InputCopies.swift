#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import NavRuns
import SystemPackage

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
                descriptor = try ScratchDirectory.createFile(path, what: "a copy of \(input)").rawValue
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
