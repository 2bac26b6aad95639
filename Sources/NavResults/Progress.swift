/// What a long run has done so far, for a progress line.
public struct ProgressSnapshot: Sendable {
    public var bytes: Int64 = 0
    /// The inputs' size (gzip counted as 6x its file), for a percentage and an ETA; 0 if unknown.
    public var totalBytes: Int64 = 0
    public var lines: Int64 = 0
    public var sessions = 0
    /// Invalid lines so far (the other findings come when sessions fold, at the end).
    public var findings = 0
    /// Once reading is done and spilled partitions fold: how many are done, and their findings.
    public var fold: FoldProgress?

    public init() {}
}

/// How far the fold of spilled partitions has come.
public struct FoldProgress: Sendable {
    public var partitionsFolded: Int
    public var partitions: Int
    public var findings: Int
    /// Sessions folded again, after every partition, for the event ids they share with other
    /// sessions (0 until then).
    public var sessionsFoldedAgain = 0

    public init(partitionsFolded: Int, partitions: Int, findings: Int, sessionsFoldedAgain: Int = 0) {
        self.partitionsFolded = partitionsFolded
        self.partitions = partitions
        self.findings = findings
        self.sessionsFoldedAgain = sessionsFoldedAgain
    }
}
