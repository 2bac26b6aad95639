import Foundation
import NavEngine
import NavInput
import NavReport
import NavResults
import SystemPackage

/// Writes bytes to a file, or to standard output, as `OutputFile` does: a regular file appears
/// whole, a device or a FIFO is written through. (Foundation's `createFile` writes aside and
/// renames, which replaced `/dev/null` with a regular file.)
func emit(_ bytes: [UInt8], to path: String?) throws {
    let file = try OutputFile(path: path)
    try file.write(bytes)
    try file.commit()
}

/// Output written as it is made: to standard output, or to a regular file that appears (by
/// rename) only when the output is complete, so a failed run leaves no half-written report.
/// Anything else (`/dev/null`, a FIFO, a symbolic link) is written in place: renaming over it
/// would replace the device or the link.
final class OutputFile: OrderedOutput {
    private let path: String?
    private let temporaryPath: String?
    private let descriptor: Int32
    private var buffer: [UInt8] = []

    init(path: String?) throws {
        self.path = path
        guard let path else {
            descriptor = STDOUT_FILENO
            temporaryPath = nil
            return
        }
        var status = stat()
        let exists = lstat(path, &status) == 0
        if exists && (status.st_mode & S_IFMT) != S_IFREG {
            // Standard output or error by another name (`/dev/stdout`, `/dev/fd/2`): written
            // through a copy of that descriptor, at its offset. Opened anew, with `O_TRUNC`, it
            // would empty a file the shell redirected to, and what was written before would go.
            if let standard = OutputFile.standardStream(sameAs: path) {
                let descriptor = dup(standard)
                guard descriptor >= 0 else { throw CommandFailure("Cannot write \(path): \(String(cString: strerror(errno))).") }
                self.descriptor = descriptor
                temporaryPath = nil
                return
            }
            // A device, a FIFO or a symbolic link: written through, never replaced.
            let descriptor = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
            guard descriptor >= 0 else { throw CommandFailure("Cannot write \(path): \(String(cString: strerror(errno))).") }
            self.descriptor = descriptor
            temporaryPath = nil
            return
        }
        let temporary = path + ".navreplay-partial"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw CommandFailure("Cannot write \(path): \(String(cString: strerror(errno))).") }
        self.descriptor = descriptor
        temporaryPath = temporary
        buffer.reserveCapacity(1 << 16)
    }

    /// Standard output's or standard error's descriptor, if `path` names the same file.
    static func standardStream(sameAs path: String) -> Int32? {
        var target = stat()
        guard stat(path, &target) == 0 else { return nil }
        for standard in [STDOUT_FILENO, STDERR_FILENO] {
            var status = stat()
            if fstat(standard, &status) == 0, status.st_dev == target.st_dev, status.st_ino == target.st_ino { return standard }
        }
        return nil
    }

    deinit {
        if path != nil { close(descriptor) }
        // Not committed (an error came first): the partial file goes.
        if let temporaryPath, !committed { unlink(temporaryPath) }
    }

    private var committed = false

    func write(_ bytes: [UInt8]) throws {
        buffer += bytes
        if buffer.count >= 1 << 16 { try flush() }
    }

    private func flush() throws {
        do {
            _ = try FileDescriptor(rawValue: descriptor).writeAll(buffer)
        } catch {
            throw CommandFailure("Cannot write \(path ?? "standard output"): \(error).")
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes what is buffered and, for a file, moves it into place.
    func commit() throws {
        try flush()
        guard let path, let temporaryPath else { return }
        guard rename(temporaryPath, path) == 0 else {
            throw CommandFailure("Cannot write \(path): \(String(cString: strerror(errno))).")
        }
        committed = true
    }
}
