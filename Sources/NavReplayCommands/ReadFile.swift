import Foundation

/// The bytes of a file the command needs whole (a model, a baseline, a paths list), or a
/// failure that says which file, what it is for, and the system's reason ("No such file or
/// directory", "Permission denied", "Is a directory").
func readWholeFile(_ path: String, as what: String) throws -> [UInt8] {
    func failure() -> CommandFailure {
        CommandFailure("The \(what) \(path) cannot be read: \(String(cString: strerror(errno))).")
    }
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw failure() }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { continue }
            throw failure()
        }
        if count == 0 { return bytes }
        bytes += chunk[0..<count]
    }
}
