public import NavReplay

/// Every session's findings, for a document format (JSON, JUnit, SARIF, GitHub) or a baseline,
/// which needs them all before it writes and nothing else of a session: a clean session leaves
/// nothing behind. The findings stay as they are, in memory, from the fold to the document.
public final class FindingsAccumulator: SessionAccumulator {
    /// One session's findings, or those of a session folded again, which replace its first.
    public struct Entry: Sendable {
        let key: SessionKey
        let findings: [Finding]
        let replaces: Bool
    }

    public struct Folder: SessionFolder {
        public func makeLocal() -> [Entry] { [] }

        public func add(_ audit: SessionAudit, model: Int, files: [String], to local: inout [Entry]) {
            guard !audit.findings.isEmpty else { return }
            local.append(Entry(key: SessionKey(model: model, id: audit.sessionID), findings: audit.findings, replaces: false))
        }

        public func replace(_ previous: SessionAudit, with audit: SessionAudit, model: Int, files: [String], in local: inout [Entry]) {
            local.append(Entry(key: SessionKey(model: model, id: audit.sessionID), findings: audit.findings, replaces: true))
        }
    }

    public let folder = Folder()
    private var entries: [Entry] = []

    public init() {}

    public func begin(invalid: [Finding], files: [String]) {}

    public func combine(_ local: consuming [Entry]) {
        entries.append(contentsOf: local)
    }

    /// The sessions with findings, in session order, each as an audit of its findings only.
    /// Sessions of one key (input said to be grouped that was not) keep the order they folded in.
    public func finalize() -> [SessionAudit] {
        let replaced = Set(entries.lazy.filter(\.replaces).map(\.key))
        let kept = entries.indices.filter { entries[$0].replaces || !replaced.contains(entries[$0].key) }
            .sorted { entries[$0].key < entries[$1].key || entries[$0].key == entries[$1].key && $0 < $1 }
        defer { entries = [] }
        return kept.compactMap { index in
            let findings = entries[index].findings
            return findings.isEmpty ? nil : SessionAudit(sessionID: findings.first?.sessionID ?? "", findings: findings)
        }
    }
}
