public import NavReplay

/// Where an audit's sessions go as they fold, instead of into `AuditRun.sessions`: the last
/// stage of the engine's pipeline. Either kind sees the order: the unreadable lines
/// first (`begin`), then the sessions.
///
/// Both kinds split their work as a push-based engine's sink does: what runs on the fold jobs is
/// a `Sendable` value, copied to every job (`SessionFormat`, `SessionFolder`); what the run
/// gathers lives on the run's thread, called one at a time (`write`, `combine`).
public enum AuditSink {
    /// Bytes per session, made on the fold jobs and written in session order.
    case streaming(any StreamingFormatter)
    /// State per fold job, combined into the run's once each job is done; the caller finalizes
    /// it when the run returns.
    case accumulating(any SessionAccumulator)
}

/// A streaming formatter: each session's bytes are made on its fold job and written in session
/// order, so that no session is kept; past a budget they wait on disk for their turn.
public protocol StreamingFormatter: AnyObject {
    /// Makes a session's bytes, on its fold job.
    var sessionFormat: any SessionFormat { get }
    /// Called once, before any session, with the unreadable lines' findings.
    func begin(invalid: [Finding], files: [String]) throws
    /// Each session's bytes, in session order (never empty ones).
    func write(_ bytes: [UInt8]) throws
    /// A session whose bytes are made here, in session order, rather than on its fold job: one
    /// audited from disk whose steps are walked from there (`SessionAudit.forEachStep`), so that
    /// a format that writes a row a step never holds them all. By default, `sessionFormat`'s bytes.
    func write(session audit: SessionAudit, files: [String]) throws
}

extension StreamingFormatter {
    public func write(session audit: SessionAudit, files: [String]) throws {
        let bytes = sessionFormat.bytes(of: audit, files: files)
        if !bytes.isEmpty { try write(bytes) }
    }
}

/// A session's bytes in one streamed format. `files` are the run's input paths, which a
/// `LineLocation` indexes.
public protocol SessionFormat: Sendable {
    func bytes(of audit: SessionAudit, files: [String]) -> [UInt8]
}

/// An accumulator: a document, a report or a database that needs every session before it is
/// written. Each fold job adds its sessions to a local state of its own (`SessionFolder`); the
/// run combines each job's state into the accumulator's, in no particular order, and the
/// caller finalizes it. A session folded again (its event ids shared with other sessions
/// resolved, docs/events-and-rules.md) replaces its first audit, which was added before.
public protocol SessionAccumulator: AnyObject {
    associatedtype Folder: SessionFolder
    /// What every fold job runs.
    var folder: Folder { get }
    /// Called once, before any job is combined, with the unreadable lines' findings.
    func begin(invalid: [Finding], files: [String]) throws
    /// One job's state, into the accumulator's: on the run's thread, once the job is done.
    func combine(_ local: consuming Folder.Local)
}

/// An accumulator's work on a fold job.
public protocol SessionFolder: Sendable {
    associatedtype Local
    func makeLocal() -> Local
    /// One session, folded on this job; `model` is its app's index among the run's models
    /// (sessions order by id, then by model).
    func add(_ audit: SessionAudit, model: Int, files: [String], to local: inout Local)
    /// A session folded again replaces `previous`, which an earlier job added.
    func replace(_ previous: SessionAudit, with audit: SessionAudit, model: Int, files: [String], in local: inout Local)
}

/// Where a streaming formatter's bytes go, in order.
public protocol OrderedOutput: AnyObject {
    func write(_ bytes: [UInt8]) throws
}
