import NavEvents
import NavJSON
import NavModel
import NavReplay
import NavInput
import NavResults
import NavPartitions

/// The sink's end on one fold job (its local state): what each session folded there becomes.
protocol FoldJob: AnyObject {
    func folded(_ key: SessionKey, _ audit: SessionAudit) -> FoldedSession
    /// A session folded again (`Refold`), from its first audit and its new one.
    func refolded(_ key: SessionKey, previous: SessionAudit, _ audit: SessionAudit) -> FoldedSession
}

/// How fold jobs reach the sink: `make` runs on each job, `combine` on the run's thread once
/// the job is done, one job at a time.
struct FoldJobs {
    let make: @Sendable () -> any FoldJob
    let combine: (any FoldJob) -> Void
}

/// Keeps each whole audit (`AuditRun.sessions`).
private final class KeepingJob: FoldJob {
    func folded(_ key: SessionKey, _ audit: SessionAudit) -> FoldedSession {
        FoldedSession(key: key, tally: SessionTally(audit), audit: audit, output: [])
    }

    func refolded(_ key: SessionKey, previous: SessionAudit, _ audit: SessionAudit) -> FoldedSession {
        FoldedSession(key: key, tally: SessionTally(audit), audit: audit, output: [], previous: SessionTally(previous))
    }
}

/// A streaming formatter's job: each session's bytes, for the ordered merge.
private final class FormattingJob: FoldJob {
    let format: any SessionFormat
    let files: [String]

    init(format: any SessionFormat, files: [String]) {
        self.format = format
        self.files = files
    }

    /// A session audited from disk is formatted when it is written (`StreamingFormatter.write(session:files:)`):
    /// its steps are walked from there, and a format that writes a row a step never holds them.
    func folded(_ key: SessionKey, _ audit: SessionAudit) -> FoldedSession {
        if audit.stepWalk != nil { return FoldedSession(deferring: audit, key: key, tally: SessionTally(audit)) }
        return FoldedSession(key: key, tally: SessionTally(audit), audit: nil, output: format.bytes(of: audit, files: files))
    }

    func refolded(_ key: SessionKey, previous: SessionAudit, _ audit: SessionAudit) -> FoldedSession {
        if audit.stepWalk != nil {
            return FoldedSession(deferring: audit, key: key, tally: SessionTally(audit), previous: SessionTally(previous))
        }
        return FoldedSession(
            key: key, tally: SessionTally(audit), audit: nil, output: format.bytes(of: audit, files: files),
            previous: SessionTally(previous))
    }
}

/// An accumulator's job: its sessions go into the job's local state; only counts go on.
private final class AccumulatingJob<Folder: SessionFolder>: FoldJob {
    let folder: Folder
    let files: [String]
    var local: Folder.Local

    init(folder: Folder, files: [String]) {
        self.folder = folder
        self.files = files
        local = folder.makeLocal()
    }

    func folded(_ key: SessionKey, _ audit: SessionAudit) -> FoldedSession {
        folder.add(audit, model: key.model, files: files, to: &local)
        return FoldedSession(key: key, tally: SessionTally(audit), audit: nil, output: [])
    }

    func refolded(_ key: SessionKey, previous: SessionAudit, _ audit: SessionAudit) -> FoldedSession {
        folder.replace(previous, with: audit, model: key.model, files: files, in: &local)
        return FoldedSession(key: key, tally: SessionTally(audit), audit: nil, output: [], previous: SessionTally(previous))
    }
}

/// The ordered end of a run's pipeline: receives the folded sessions in session order, sums
/// their counts, and keeps their audits (no sink), writes their bytes (a streaming formatter),
/// or leaves them to an accumulator, which its fold jobs fed.
final class SessionResults {
    let jobs: FoldJobs
    private let begin: (_ invalid: [Finding]) throws -> Void
    private let write: (([UInt8]) throws -> Void)?
    /// Formats and writes a deferred session (`FoldedSession.isDeferred`).
    private let writeSession: ((SessionAudit) throws -> Void)?
    /// Whether the audits are kept; else they went to the sink as they folded.
    let keepsAudits: Bool
    private(set) var audits: [SessionAudit] = []
    private(set) var tally = SessionTally()
    var isStreaming: Bool { !keepsAudits }

    init(sink: AuditSink?, files: [String]) {
        switch sink {
        case nil:
            jobs = FoldJobs(make: { KeepingJob() }, combine: { _ in })
            begin = { _ in }
            write = nil
            writeSession = nil
            keepsAudits = true
        case .streaming(let formatter):
            let format = formatter.sessionFormat
            jobs = FoldJobs(make: { FormattingJob(format: format, files: files) }, combine: { _ in })
            begin = { try formatter.begin(invalid: $0, files: files) }
            write = formatter.write
            writeSession = { try formatter.write(session: $0, files: files) }
            keepsAudits = false
        case .accumulating(let accumulator):
            jobs = Self.jobs(of: accumulator, files: files)
            begin = { try accumulator.begin(invalid: $0, files: files) }
            write = nil
            writeSession = nil
            keepsAudits = false
        }
    }

    private static func jobs<Accumulator: SessionAccumulator>(of accumulator: Accumulator, files: [String]) -> FoldJobs {
        let folder = accumulator.folder
        return FoldJobs(
            make: { AccumulatingJob(folder: folder, files: files) },
            combine: { job in
                guard let job = job as? AccumulatingJob<Accumulator.Folder> else { return }
                accumulator.combine(job.local)
            })
    }

    /// Once, before the first session: the unreadable lines' findings.
    func begin(invalid: [Finding]) throws { try begin(invalid) }

    func deliver(_ folded: FoldedSession) throws {
        tally.add(folded.tally)
        try deliverOutput(of: folded)
    }

    /// A folded session's output (or audit), its counts added already.
    func deliverOutput(of folded: FoldedSession) throws {
        if folded.isDeferred, let audit = folded.audit, let writeSession {
            try writeSession(audit)
            return
        }
        try deliver(key: folded.key, audit: folded.audit, output: folded.loadedOutput())
    }

    /// For output merged back from disk, whose counts were added with `add(_:)`.
    func deliver(key: SessionKey, audit: SessionAudit?, output: [UInt8]) throws {
        if let audit { audits.append(audit) }
        if let write, !output.isEmpty { try write(output) }
    }

    func add(_ partial: SessionTally) { tally.add(partial) }

    /// A session folded again, whose first tally was added already.
    func replace(_ previous: SessionTally, with tally: SessionTally) {
        self.tally.subtract(previous)
        self.tally.add(tally)
    }
}
