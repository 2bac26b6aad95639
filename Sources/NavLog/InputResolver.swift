import Foundation

/// Turns command-line arguments into the files to read.
///
/// A directory stands for the `*.ndjson` and `*.ndjson.gz` files under it, recursively, in sorted
/// order; `-` is standard input; anything else is a file path, read even if it does not exist
/// yet (so that a missing file is reported as unreadable, with exit status 2).
public enum InputResolver {
    public struct Resolved: Sendable {
        public var files: [String]
        /// `model.json` files found directly inside directory arguments.
        public var directoryModels: [String]
    }

    public static func resolve(_ arguments: [String]) -> Resolved {
        var files: [String] = []
        var models: [String] = []
        let manager = FileManager.default
        for argument in arguments {
            var isDirectory: ObjCBool = false
            guard argument != "-", manager.fileExists(atPath: argument, isDirectory: &isDirectory), isDirectory.boolValue else {
                files.append(argument)
                continue
            }
            let model = (argument as NSString).appendingPathComponent("model.json")
            if manager.fileExists(atPath: model) { models.append(model) }
            var found: [String] = []
            if let enumerator = manager.enumerator(atPath: argument) {
                for case let relative as String in enumerator
                where relative.hasSuffix(".ndjson") || relative.hasSuffix(".ndjson.gz") {
                    found.append((argument as NSString).appendingPathComponent(relative))
                }
            }
            files += found.sorted()
        }
        return Resolved(files: files, directoryModels: models)
    }
}
