import Foundation
import NavInput
import NavStore

extension InputOptions {
    /// Refuses to run when a file it would write (`--output`, `--summary`, `--quarantine`,
    /// `--write-baseline`) is one it reads (an input, standard input when it is a file, a model,
    /// a baseline, the located-input paths file), or when two of its outputs are one file: that
    /// file would be emptied or replaced while, or after, it is read (`--quarantine log.ndjson
    /// log.ndjson` emptied the log and reported it clean), or one output would replace the
    /// other. Compared by device and inode (an output not there yet: by its directory's and its
    /// name), so another path to the same file is caught too. Call it before anything is opened
    /// for writing.
    ///
    /// With `store` (`audit`, `sessions` or `report --store`), the store and its `-wal` and
    /// `-shm` files are files the run reads too.
    func refuseOverwritingInputs(
        _ output: OutputOptions, also extra: [(option: String, path: String?)] = [],
        reading extraReads: [(option: String, path: String?)] = [], store: String? = nil
    ) throws {
        var reads = RunReads()
        for file in InputResolver.resolve(inputs) {
            reads.add("an input or a model", file.path)
            reads.add("an input or a model", file.modelPath)
        }
        reads.add("an input or a model", model)
        if inputs.contains("-"), let standardInput = FileIdentity(descriptor: STDIN_FILENO) {
            reads.read.append(("standard input", standardInput))
        }
        for (option, path) in [("--located-input", locatedInput)] + extraReads { reads.add("the \(option) file", path) }
        if let store { reads.addStore(store) }
        try reads.refuse(writes: [("--output", output.output), ("--summary", output.summary)] + extra)
    }
}

/// The files one run reads, by identity, for `refuseOverwritingInputs` and `ingest`'s check.
struct RunReads {
    var read: [(what: String, identity: FileIdentity)] = []

    mutating func add(_ what: String, _ path: String?) {
        if let path, let identity = FileIdentity(existing: path) { read.append((what, identity)) }
    }

    /// A store (`--store`), and the `-wal` and `-shm` files SQLite keeps beside it: a store not
    /// made yet is named by its directory and name, so an output of that name is caught too.
    mutating func addStore(_ store: String) {
        if let identity = FileIdentity(written: store) { read.append(("the store, --store", identity)) }
        for suffix in ["-wal", "-shm"] { add("the store's \(suffix) file, --store", store + suffix) }
    }

    /// Throws when an output (`writes`, by option) is a file the run reads, or two outputs
    /// are one file.
    func refuse(writes given: [(option: String, path: String?)]) throws {
        let writes = given.compactMap { write in write.path.map { (option: write.option, path: $0) } }
        let written = writes.map { (option: $0.option, path: $0.path, identity: FileIdentity(written: $0.path)) }
        for (option, path, identity) in written {
            guard let identity, let what = read.first(where: { $0.identity == identity })?.what else { continue }
            throw CommandFailure(
                "\(option) \(path) is a file this run reads (\(what)): it would be overwritten. Please choose another path.")
        }
        for (index, first) in written.enumerated() {
            guard let identity = first.identity else { continue }
            // Standard output by two names (`/dev/stdout`) is written through, in order.
            func isStandard(_ path: String) -> Bool { OutputFile.standardStream(sameAs: path) != nil }
            if let second = written[(index + 1)...].first(where: {
                $0.identity == identity && !(isStandard(first.path) && isStandard($0.path))
            }) {
                throw CommandFailure(
                    "\(first.option) \(first.path) and \(second.option) \(second.path) are one file: one output would replace the other. Please choose two paths."
                )
            }
        }
    }
}

/// What a path names, for telling whether two paths are one file.
struct FileIdentity: Hashable {
    var device: UInt64
    var inode: UInt64
    /// For a file not there yet: its name in the directory (`device`, `inode`).
    var name: String?

    /// A regular file that exists (devices and FIFOs are never replaced: writing `/dev/null`
    /// destroys nothing).
    init?(existing path: String) {
        var status = stat()
        guard path != "-", stat(path, &status) == 0 else { return nil }
        self.init(status)
    }

    init?(descriptor: Int32) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        self.init(status)
    }

    private init?(_ status: stat) {
        guard (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }

    /// A file an output would write: the regular file there, or, when nothing is there yet, the
    /// name in its directory.
    init?(written path: String) {
        if let existing = FileIdentity(existing: path) {
            self = existing
            return
        }
        var status = stat()
        guard lstat(path, &status) != 0, !path.hasSuffix("/") else { return nil }
        let directory = (path as NSString).deletingLastPathComponent
        guard stat(directory.isEmpty ? "." : directory, &status) == 0 else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        name = (path as NSString).lastPathComponent
    }
}

extension NavReplayCommand.Ingest {
    /// Refuses a batch that would read the store as a log (`ingest --store s.db s.db`), or
    /// write over the store, its `-wal` or `-shm` file, an input, the model, or a log an
    /// earlier batch ingested (`--output`, `--summary`, `--quarantine`): exit status 2, before
    /// the store is opened for writing.
    func refuseOverwritingStore(_ files: [InputResolver.File]) throws {
        var storeReads = RunReads()
        storeReads.addStore(store)
        for file in files {
            guard let identity = FileIdentity(existing: file.path), storeReads.read.contains(where: { $0.identity == identity })
            else { continue }
            throw CommandFailure(
                "\(file.path) is the store (--store \(store)), given as a log to ingest: a store is never read as a log. "
                    + "Please give the batch's log files, and the store with --store only.")
        }
        var reads = storeReads
        for file in files {
            reads.add("an input or a model", file.path)
            reads.add("an input or a model", file.modelPath)
        }
        reads.add("an input or a model", model)
        for path in EventStore.ingestedPaths(of: store, toolVersion: NavReplayCommand.version) {
            reads.add("a log the store has ingested", path)
        }
        try reads.refuse(writes: [("--output", output.output), ("--summary", output.summary), ("--quarantine", quarantine)])
    }
}
