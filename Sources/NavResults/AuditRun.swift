import Dispatch
import NavJSON
import NavEvents
import NavModel
public import NavReplay
public import NavInput

/// What happened to one input file.
public struct InputFileReport: Sendable {
    public var path: String
    public var lines: Int64 = 0
    public var bytes: Int64 = 0
    public var error: InputError?

    public init(path: String, lines: Int64 = 0, bytes: Int64 = 0, error: InputError? = nil) {
        self.path = path
        self.lines = lines
        self.bytes = bytes
        self.error = error
    }
}

/// The counts of the summary: `lines = blank_lines + invalid_lines + redeliveries +
/// duplicates + events`, always.
public struct AuditCounts: Sendable, Equatable {
    public var files = 0
    public var unreadableFiles = 0
    public var lines: Int64 = 0
    public var blankLines: Int64 = 0
    public var invalidLines: Int64 = 0
    public var redeliveries: Int64 = 0
    public var duplicates: Int64 = 0
    public var events: Int64 = 0
    public var sessions = 0
    public var findings = 0
    public var findingsByRule: [Rule: Int] = [:]

    public init() {}

    /// Whether every line is accounted for.
    public var isBalanced: Bool {
        lines == blankLines + invalidLines + redeliveries + duplicates + events
    }
}

/// The result of an audit: per-file reports, unreadable lines, and every session's audit.
public struct AuditRun: Sendable {
    /// Input paths in sorted order; a `LineLocation.file` indexes this list.
    public var files: [String]
    public var fileReports: [InputFileReport]
    /// `schema.invalid` findings, in file and line order.
    public var invalidFindings: [Finding]
    /// Sessions in `session_id` order.
    public var sessions: [SessionAudit]
    public var counts: AuditCounts
    /// With a stream, the sessions were written and not kept: the findings written (kept ones,
    /// not those dropped past `maxFindings`), by severity. `nil` when the sessions were kept.
    public var streamedFindings: [Severity: Int]?
    /// How the run held its lines: for diagnostics and tests.
    public var storage = Storage()
    /// Whether sessions were grouped and folded; `false` for `validate`, which checks lines only
    /// (its `events` are then the valid lines).
    public var foldedSessions = true

    public struct Storage: Sendable, Equatable {
        /// Inputs read through a memory mapping (their routed lines were references; a validation
        /// checked their lines in place).
        public var mappedInputs = 0
        /// Whether sessions were partitioned.
        public var partitioned = false
        /// Lines routed to their partition by their session alone (decoded when it folded),
        /// those of them routed as references to a mapped input, and those copied in
        /// shorthand (`LineShorthand`).
        public var routedLines: Int64 = 0
        public var referencedLines: Int64 = 0
        public var shortenedLines: Int64 = 0
        public init() {}
    }

    public init(files: [String], fileReports: [InputFileReport], invalidFindings: [Finding], sessions: [SessionAudit], counts: AuditCounts)
    {
        self.files = files
        self.fileReports = fileReports
        self.invalidFindings = invalidFindings
        self.sessions = sessions
        self.counts = counts
    }

    /// Every finding in output order (docs/events-and-rules.md): unreadable lines first, then by session.
    public var findings: [Finding] {
        invalidFindings + sessions.flatMap(\.findings)
    }

    public var inputErrors: [InputError] { fileReports.compactMap(\.error) }

    public func path(of location: LineLocation?) -> String? {
        guard let location, location.file >= 0, Int(location.file) < files.count else { return nil }
        return files[Int(location.file)]
    }
}
