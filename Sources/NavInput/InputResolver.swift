import Foundation

/// Turns command-line arguments into the files to read, and the model file of each.
///
/// A directory stands for the `*.ndjson` and `*.ndjson.gz` files under it, recursively, in sorted
/// order; `-` is standard input; anything else is a file path, read even if it does not exist
/// (so that a missing file is reported as unreadable, with exit status 2). A file found under a
/// directory argument is audited with the nearest `model.json` between its own folder and that
/// argument, if any: `navreplay audit SampleLogs` audits each app's logs with its own model.
///
/// The walk follows symbolic links, to files and to directories; each directory is walked once
/// (a link back up the tree, or a second link to one directory, is skipped). What it finds by a
/// log's name that is neither a regular file nor a directory (a FIFO, a device, a socket, or a
/// link to one) is skipped and named in `Resolution.skipped`: reading it could block, or never
/// end (`/dev/zero`). Named on the command line, such a file is read as it is.
public enum InputResolver {
    public struct File: Sendable, Hashable {
        public var path: String
        /// The `model.json` that applies, if the file was found under a directory holding one.
        public var modelPath: String?
    }

    /// Something a directory walk found and did not read, and why.
    public struct Skipped: Sendable, Hashable, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "\(path): skipped: \(reason)" }
    }

    public struct Resolution: Sendable {
        public var files: [File] = []
        public var skipped: [Skipped] = []
    }

    public static func resolve(_ arguments: [String]) -> [File] { resolution(arguments).files }

    public static func resolution(_ arguments: [String]) -> Resolution {
        var result = Resolution()
        let manager = FileManager.default
        for argument in arguments {
            var isDirectory: ObjCBool = false
            guard argument != "-", manager.fileExists(atPath: argument, isDirectory: &isDirectory), isDirectory.boolValue else {
                result.files.append(File(path: argument, modelPath: nil))
                continue
            }
            let walk = DirectoryWalk(root: argument)
            // Subdirectories the walk cannot enter are inputs of their own, which fail to read
            // (exit status 2), not lost logs.
            let found = walk.logs + walk.unreadable
            result.skipped += walk.skipped.sorted { $0.relative < $1.relative }.map {
                Skipped(path: walk.path($0.relative), reason: $0.reason)
            }
            // A directory with no logs is still an input: reading it fails, so that a mistyped
            // or empty log folder is reported (exit status 2), not audited as nothing.
            if found.isEmpty { result.files.append(File(path: argument, modelPath: nil)) }
            for relative in found.sorted() {
                result.files.append(File(path: walk.path(relative), modelPath: nearestModel(root: argument, relative: relative)))
            }
        }
        return result
    }

    /// Why a directory cannot be read as a log, for its error message.
    package static func directoryMessage(_ path: String) -> String {
        if access(path, R_OK | X_OK) != 0 { return "is a directory that cannot be read: \(String(cString: strerror(errno)))" }
        if !DirectoryWalk(root: path).logs.isEmpty { return "is a directory" }
        return "is a directory with no *.ndjson or *.ndjson.gz files under it"
    }

    /// The nearest `model.json` from the file's folder up to `root`, inclusive.
    package static func nearestModel(root: String, relative: String) -> String? {
        var components = (relative as NSString).pathComponents.dropLast()
        while true {
            let folder = components.reduce(root) { ($0 as NSString).appendingPathComponent($1) }
            let candidate = (folder as NSString).appendingPathComponent("model.json")
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
            if components.isEmpty { return nil }
            components.removeLast()
        }
    }
}

/// One walk of a directory argument: the paths under it (relative to it) named like logs, the
/// subdirectories it cannot enter, and what it skipped.
struct DirectoryWalk {
    let root: String
    private(set) var logs: [String] = []
    private(set) var unreadable: [String] = []
    private(set) var skipped: [(relative: String, reason: String)] = []

    /// Directories by device and inode: each is walked once, which ends a cycle of links.
    private var walked: Set<[UInt64]> = []
    /// Links to directories, walked after the directories themselves: a directory and a link to
    /// it (`latest -> 2026-11-20`) are read under the directory's own path.
    private var links: [(relative: String, status: stat)] = []

    init(root: String) {
        self.root = root
        var status = stat()
        guard stat(root, &status) == 0 else { return }
        enter("", status)
        while !links.isEmpty {
            let link = links.removeFirst()
            enter(link.relative, link.status)
        }
    }

    func path(_ relative: String) -> String {
        relative.isEmpty ? root : (root as NSString).appendingPathComponent(relative)
    }

    private static func identity(_ status: stat) -> [UInt64] { [UInt64(status.st_dev), UInt64(status.st_ino)] }

    private mutating func enter(_ relative: String, _ status: stat) {
        guard walked.insert(Self.identity(status)).inserted else {
            skipped.append((relative, "a directory that is read already, under another path (a link to it, or a link back up the tree)"))
            return
        }
        let directory = path(relative)
        guard relative.isEmpty || access(directory, R_OK | X_OK) == 0,
            let names = try? FileManager.default.contentsOfDirectory(atPath: directory)
        else {
            if !relative.isEmpty { unreadable.append(relative) }
            return
        }
        for name in names.sorted() {
            let child = relative.isEmpty ? name : relative + "/" + name
            let isLog = name.hasSuffix(".ndjson") || name.hasSuffix(".ndjson.gz")
            var status = stat()
            // A name that cannot be followed (a dangling link, a name that is not UTF-8) is an
            // input that fails to read, as a missing file named on the command line does.
            guard stat(path(child), &status) == 0 else {
                if isLog { logs.append(child) }
                continue
            }
            switch status.st_mode & S_IFMT {
            case S_IFREG:
                if isLog { logs.append(child) }
            case S_IFDIR:
                // A directory named like a log is an input too, which fails to read.
                if isLog { logs.append(child) }
                var link = stat()
                if lstat(path(child), &link) == 0, (link.st_mode & S_IFMT) == S_IFLNK {
                    links.append((child, status))
                } else {
                    enter(child, status)
                }
            default:
                if isLog {
                    skipped.append((child, "\(Self.kind(status.st_mode)), not a regular file (name it on the command line to read it)"))
                }
            }
        }
    }

    private static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: "a FIFO"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        default: "not a file"
        }
    }
}
