import Dispatch
import NavJSON
import NavEvents
public import NavModel
public import NavReplay

/// Writes an audit's output while it runs, so that no session is kept (CONTRACT §7's output
/// order: unreadable lines first, then sessions in `session_id` order).
public struct AuditStream {
    /// Formats one session's output (on a fold job: in any order, concurrently); `files` are
    /// the run's input paths, which a `LineLocation` indexes.
    public var format: @Sendable (_ audit: SessionAudit, _ files: [String]) -> [UInt8]
    /// Called once, before any session, with the unreadable lines' findings.
    public var writeInvalid: (_ findings: [Finding], _ files: [String]) throws -> Void
    /// Called with each session's output, in session order (not for empty output).
    public var write: (_ output: [UInt8]) throws -> Void
    /// Formats a session folded a second time, once the event ids it shares with other
    /// sessions were resolved (CONTRACT §7), replacing its first output; `previous` is the
    /// audit `format` was given first (the same events, fewer findings). `nil`: `format` of
    /// the new audit. A `format` with side effects (gathering a report) takes back `previous`.
    public var reformat: (@Sendable (_ previous: SessionAudit, _ audit: SessionAudit, _ files: [String]) -> [UInt8])?

    public init(
        format: @escaping @Sendable (_ audit: SessionAudit, _ files: [String]) -> [UInt8],
        writeInvalid: @escaping (_ findings: [Finding], _ files: [String]) throws -> Void,
        write: @escaping (_ output: [UInt8]) throws -> Void,
        reformat: (@Sendable (_ previous: SessionAudit, _ audit: SessionAudit, _ files: [String]) -> [UInt8])? = nil
    ) {
        self.format = format
        self.writeInvalid = writeInvalid
        self.write = write
        self.reformat = reformat
    }
}
