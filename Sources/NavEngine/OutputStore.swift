#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import NavInput
import NavRuns
import SystemPackage

/// The formatted output of folded sessions, set aside in a temporary file until it is written
/// in session order.
///
/// Sessions folded again (`Refold`) have their output ready long before it can be written:
/// they come in any order, and output goes in session order (pre-grouped input has the same
/// need, met by `SessionRuns`). Held in memory, that output grew with the findings: a log
/// whose sessions all share event ids (ids from a per-session counter) held every finding of
/// the run. Past `budget` bytes held, outputs go to a file (`out-0` in a scratch directory of
/// its own, removed when the store goes and on Ctrl-C) and only their place is kept. If the
/// temporary directory cannot be used, they stay in memory: the audit goes on.
final class OutputStore: @unchecked Sendable {
    // @unchecked: the variables are touched under `lock` only (fold jobs set aside at once).
    struct Place: Sendable {
        var offset: Int64
        var count: Int
    }

    private let budget: Int
    private let temporaryDirectory: String?
    private let lock = NSLockLike()
    private var held = 0
    private var directory: (path: String, slot: Int32)?
    private var descriptor: FileDescriptor?
    private var end: Int64 = 0
    /// The file could not be made or written: outputs stay in memory from then on.
    private var unusable = false

    init(budget: Int, temporaryDirectory: String?) {
        self.budget = budget
        self.temporaryDirectory = temporaryDirectory
    }

    deinit { remove() }

    private var path: String { (directory?.path ?? "") + "/out-0" }

    /// Moves the session's output to the file once `budget` bytes are held in memory.
    func setAside(_ session: inout FoldedSession) {
        let count = session.output.count
        guard count > 0 else { return }
        lock.withLock {
            if held + count <= budget || unusable || !prepareFile() {
                held += count
                return
            }
            do {
                try session.output.withUnsafeBytes { bytes in
                    try descriptor!.writeAll(bytes, path: path, what: "the output held for session order")
                }
            } catch {
                // A short write leaves the file's end unknown: the file is not used again.
                unusable = true
                held += count
                return
            }
            session.stored = (self, Place(offset: end, count: count))
            end += Int64(count)
            session.output = []
        }
    }

    /// Bytes set aside, read back.
    func read(_ place: Place) throws -> [UInt8] {
        try lock.withLock {
            var bytes = [UInt8](repeating: 0, count: place.count)
            var done = 0
            while done < place.count {
                let count: Int
                do {
                    count = try bytes.withUnsafeMutableBytes {
                        try descriptor!.read(fromAbsoluteOffset: place.offset + Int64(done), into: UnsafeMutableRawBufferPointer(rebasing: $0[done...]))
                    }
                } catch {
                    throw InputError(code: .unreadable, path: path, message: "cannot read back the output held for session order: \(error)")
                }
                guard count > 0 else {
                    throw InputError(code: .unreadable, path: path, message: "cannot read back the output held for session order: it ended early")
                }
                done += count
            }
            return bytes
        }
    }

    /// Opens the file on first use; false if it cannot be (the outputs then stay in memory).
    private func prepareFile() -> Bool {
        if descriptor != nil { return true }
        guard let made = try? ScratchDirectory.make(in: temporaryDirectory, files: 1) else {
            unusable = true
            return false
        }
        guard let opened = try? ScratchDirectory.createFile(made.path + "/out-0", readable: true) else {
            ScratchDirectory.remove(made)
            unusable = true
            return false
        }
        directory = made
        descriptor = opened
        return true
    }

    private func remove() {
        guard let directory else { return }
        try? descriptor?.close()
        unlink(directory.path + "/out-0")
        ScratchDirectory.remove(directory)
        self.directory = nil
        descriptor = nil
    }
}

extension FoldedSession {
    /// The session's output, read back if it was set aside (`OutputStore`).
    func loadedOutput() throws -> [UInt8] {
        guard let (store, place) = stored else { return output }
        return try store.read(place)
    }
}
