#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import NavInput
import SystemPackage

/// A scratch directory of its own (registered for removal on a signal before it exists), and
/// the numbered files in it: `<kind>N` for N below `count`, of the kinds the signal handler
/// knows (`part-`, `out-`, `bad-`, `ids-`, `copy-`), and `bad-reading`. `remove()` (or the
/// value going) removes those of `kinds` and the directory.
package final class ScratchFileSet {
    package let directory: String
    package let count: Int
    /// The kinds of file the set's owner makes: only those are unlinked (an audit may have 4,096
    /// partitions: unlinking names of every kind was 20,000 calls).
    private let kinds: [String]
    private var slot: Int32
    private var removed = false

    package init(in temporaryDirectory: String?, count: Int, kinds: [String]) throws {
        (directory, slot) = try ScratchDirectory.make(in: temporaryDirectory, files: count)
        self.count = count
        self.kinds = kinds
    }

    deinit { remove() }

    package func path(_ kind: String, _ number: Int) -> String { directory + "/" + kind + String(number) }

    /// Removes every file of every kind, then the directory (idempotent).
    package func remove() {
        guard !removed else { return }
        removed = true
        for number in 0..<count {
            for kind in kinds { unlink(path(kind, number)) }
        }
        if kinds.contains("bad-") { unlink(directory + "/bad-reading") }
        ScratchDirectory.remove((directory, slot))
    }
}

/// An append-only set of `count` files of one kind in a scratch directory: bytes appended to a
/// file at its end (where they were written is returned), read back at a place, or a whole file
/// taken back and removed. The files are created with the set.
package final class AppendFiles {
    package let files: ScratchFileSet
    private let kind: String
    private var descriptors: [FileDescriptor] = []
    private var ends: [Int64]

    /// `readable`: the files are read back at a place (`read(_:at:count:what:)`); `what` names
    /// them in an error.
    package init(in temporaryDirectory: String?, kind: String, count: Int, readable: Bool = false, what: String) throws {
        files = try ScratchFileSet(in: temporaryDirectory, count: count, kinds: [kind])
        self.kind = kind
        ends = Array(repeating: 0, count: count)
        do {
            for number in 0..<count {
                descriptors.append(try ScratchDirectory.createFile(files.path(kind, number), readable: readable, what: what))
            }
        } catch {
            remove()
            throw error
        }
    }

    deinit { remove() }

    package var directory: String { files.directory }
    package func path(_ number: Int) -> String { files.path(kind, number) }

    /// Appends `bytes` to file `number`; returns the offset they start at. An error names
    /// `errorPath` (the file's path by default) and `what`.
    @discardableResult
    package func append(_ bytes: UnsafeRawBufferPointer, to number: Int, errorPath: String? = nil, what: String) throws -> Int64 {
        let start = ends[number]
        try descriptors[number].writeAll(bytes, path: errorPath ?? path(number), what: what)
        ends[number] += Int64(bytes.count)
        return start
    }

    /// `count` bytes of file `number` from `offset`.
    package func read(_ number: Int, at offset: Int64, count: Int, what: String) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let read: Int
            do {
                read = try bytes.withUnsafeMutableBytes {
                    try descriptors[number].read(
                        fromAbsoluteOffset: offset + Int64(done), into: UnsafeMutableRawBufferPointer(rebasing: $0[done...]))
                }
            } catch {
                throw InputError(code: .unreadable, path: path(number), message: "cannot read back \(what): \(error)")
            }
            guard read > 0 else {
                throw InputError(code: .unreadable, path: path(number), message: "cannot read back \(what): it ended early")
            }
            done += read
        }
        return bytes
    }

    /// The whole of file `number`, into `bytes`; the file is removed (its pages need never be
    /// written back to the disk).
    package func take(_ number: Int, into bytes: inout [UInt8]) throws {
        try LineReader.readWholeFile(path(number), into: &bytes)
        unlink(path(number))
    }

    /// Closes and removes the files and their directory (idempotent).
    package func remove() {
        for descriptor in descriptors { try? descriptor.close() }
        descriptors = []
        files.remove()
    }
}
