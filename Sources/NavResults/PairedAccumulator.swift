public import NavReplay

/// Two accumulators fed by one run: each fold job adds every session to both.
public final class PairedAccumulator<First: SessionAccumulator, Second: SessionAccumulator>: SessionAccumulator {
    public struct Folder: SessionFolder {
        let first: First.Folder
        let second: Second.Folder

        public func makeLocal() -> (First.Folder.Local, Second.Folder.Local) { (first.makeLocal(), second.makeLocal()) }

        public func add(_ audit: SessionAudit, model: Int, files: [String], to local: inout (First.Folder.Local, Second.Folder.Local)) {
            first.add(audit, model: model, files: files, to: &local.0)
            second.add(audit, model: model, files: files, to: &local.1)
        }

        public func replace(
            _ previous: SessionAudit, with audit: SessionAudit, model: Int, files: [String],
            in local: inout (First.Folder.Local, Second.Folder.Local)
        ) {
            first.replace(previous, with: audit, model: model, files: files, in: &local.0)
            second.replace(previous, with: audit, model: model, files: files, in: &local.1)
        }
    }

    public let first: First
    public let second: Second
    public let folder: Folder

    public init(_ first: First, _ second: Second) {
        self.first = first
        self.second = second
        folder = Folder(first: first.folder, second: second.folder)
    }

    public func begin(invalid: [Finding], files: [String]) throws {
        try first.begin(invalid: invalid, files: files)
        try second.begin(invalid: invalid, files: files)
    }

    public func combine(_ local: consuming (First.Folder.Local, Second.Folder.Local)) {
        let (one, two) = local
        first.combine(one)
        second.combine(two)
    }
}
