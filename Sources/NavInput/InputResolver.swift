import Foundation

/// Turns command-line arguments into the files to read, and the model file of each.
///
/// A directory stands for the `*.ndjson` and `*.ndjson.gz` files under it, recursively, in sorted
/// order; `-` is standard input; anything else is a file path, read even if it does not exist
/// (so that a missing file is reported as unreadable, with exit status 2). A file found under a
/// directory argument is audited with the nearest `model.json` between its own folder and that
/// argument, if any: `navreplay audit SampleLogs` audits each app's logs with its own model.
public enum InputResolver {
    public struct File: Sendable, Hashable {
        public var path: String
        /// The `model.json` that applies, if the file was found under a directory holding one.
        public var modelPath: String?
    }

    public static func resolve(_ arguments: [String]) -> [File] {
        var files: [File] = []
        let manager = FileManager.default
        for argument in arguments {
            var isDirectory: ObjCBool = false
            guard argument != "-", manager.fileExists(atPath: argument, isDirectory: &isDirectory), isDirectory.boolValue else {
                files.append(File(path: argument, modelPath: nil))
                continue
            }
            var found: [String] = []
            // Subdirectories the walk cannot enter: the enumerator skips them without a word, so
            // they are inputs of their own, which fail to read (exit status 2), not lost logs.
            var unreadable: [String] = []
            if let enumerator = manager.enumerator(atPath: argument) {
                for case let relative as String in enumerator {
                    if relative.hasSuffix(".ndjson") || relative.hasSuffix(".ndjson.gz") {
                        found.append(relative)
                    } else if (enumerator.fileAttributes?[.type] as? FileAttributeType) == .typeDirectory,
                        access((argument as NSString).appendingPathComponent(relative), R_OK | X_OK) != 0
                    {
                        unreadable.append(relative)
                    }
                }
            }
            found += unreadable
            // A directory with no logs is still an input: reading it fails, so that a mistyped
            // or empty log folder is reported (exit status 2), not audited as nothing.
            if found.isEmpty { files.append(File(path: argument, modelPath: nil)) }
            for relative in found.sorted() {
                files.append(
                    File(path: (argument as NSString).appendingPathComponent(relative),
                         modelPath: nearestModel(root: argument, relative: relative)))
            }
        }
        return files
    }

    /// Why a directory cannot be read as a log, for its error message.
    package static func directoryMessage(_ path: String) -> String {
        if access(path, R_OK | X_OK) != 0 { return "is a directory that cannot be read: \(String(cString: strerror(errno)))" }
        guard let enumerator = FileManager.default.enumerator(atPath: path) else { return "is a directory" }
        for case let relative as String in enumerator where relative.hasSuffix(".ndjson") || relative.hasSuffix(".ndjson.gz") {
            return "is a directory"
        }
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
