import Dispatch
import NavJSON
import NavEvents
public import NavModel
public import NavReplay
public import NavInput
import NavResults
import NavPartitions

/// What an audit reads and how.
public struct AuditConfiguration: Sendable {
    public var model: NavigationModel
    public var maxLineBytes: Int
    /// Where to write each invalid line (NDJSON), if anywhere.
    public var quarantinePath: String?
    /// How many sessions fold at once; 0 means one per core.
    public var jobs: Int
    public var sessionOptions: SessionAuditOptions
    /// Fold only this session (`replay --session`).
    public var onlySession: String?
    /// Group and fold sessions; `false` checks lines only (`validate`).
    public var foldSessions = true
    /// The input is already grouped by session and ordered by seq (as a distributed engine
    /// delivers it): fold each session as soon as the next begins, holding one at a time.
    public var preGrouped = false
    /// Roughly how many bytes of decoded events to hold before spilling them to temporary
    /// partition files on disk (`--memory-limit`).
    public var memoryLimit: Int = AuditConfiguration.defaultMemoryLimit
    /// Where spill partitions go (`--temp-dir`); `nil` is `$TMPDIR` or `/tmp`.
    public var temporaryDirectory: String?
    /// Map plain input files into memory when they fit the memory limit, for a partitioned
    /// audit (`--no-mmap` turns it off: a mapped file that shrinks while it is audited ends
    /// the run).
    public var mapsInputs = true
    /// Located input (`--located-input`, for distributed runs): every input line is
    /// `FILE_INDEX<TAB>LINE<TAB>original line`, naming its place in the original files, listed
    /// here; findings then carry the original file and line.
    public var locatedPaths: [String]?
    /// With located input, a number per line of the paths file, added to the `LINE` of the lines
    /// that name it: lines numbered within a split of their file, and the split's place.
    public var locatedLineOffsets: [Int64]?
    /// With located input: plain inputs read in place, by path, each the new lines of the
    /// listed file of the same path (`InputWindow`), numbered on from its lines before.
    package var inputWindows: [String: InputWindow] = [:]
    /// Set for a run that folds sessions again for another run (sessions that share event ids,
    /// `Refold`): only those sessions are read, held and folded, and nothing is written.
    var refolding: RefoldRequest?
    /// Where to read an input from instead of its name (standard input, kept in a file).
    var readPaths: [String: String] = [:]
    /// How the engine sizes its batches, chunks and budgets (tests and the fuzzer lower them).
    package var tuning = AuditTuning()
    var heldOutputBudget: Int { tuning.outputBudget ?? memoryLimit / 8 }
    /// For a refold: what the first run read of each input (in the run's sorted input order).
    /// A refold reads the same lines: an input appended to since is read only as far, and one
    /// that now holds fewer lines or other bytes there is an error (it changed under the audit).
    var firstReads: [InputFileReport]?

    /// A quarter of the machine's memory, at least 256 MiB.
    public static var defaultMemoryLimit: Int {
        max(256 << 20, Int(System.physicalMemory / 4))
    }

    public init(
        model: NavigationModel = .poc, maxLineBytes: Int = LineReader.defaultMaxLineBytes, quarantinePath: String? = nil,
        jobs: Int = 0, sessionOptions: SessionAuditOptions = .init(), onlySession: String? = nil
    ) {
        self.model = model
        self.maxLineBytes = maxLineBytes
        self.quarantinePath = quarantinePath
        self.jobs = jobs
        self.sessionOptions = sessionOptions
        self.onlySession = onlySession
    }
}

/// The engine's sizes and thresholds: each has a default measured on large logs, and tests and
/// the fuzzer lower them to take the paths of a large input on a small one. Not a user's setting.
package struct AuditTuning: Sendable {
    /// Inputs of this many bytes or more are partitioned (lines routed by session, decoded when
    /// their partition folds): from the first line when their size is known, else (standard
    /// input) once that much is held. 0: every input.
    package var partitionedInputBytes: Int64 = 32 << 20
    /// Bytes of lines read before they are handed to other cores to decode, one batch while
    /// the next is read: large enough to amortise the hand-off.
    package var batchBytes = AuditTuning.defaultBatchBytes
    package static let defaultBatchBytes = 4 << 20
    /// Route a mapped input's lines on every core, a chunk of the file each (`ChunkRouter`);
    /// `false` reads it on one thread, as other inputs are read.
    package var routesInParallel = true
    /// The size of those chunks; `nil` is about a 64th of the file, at least 4 MiB.
    package var routingChunkBytes: Int?
    /// Lines copied to partitions are put in `LineShorthand` (about 60% fewer bytes, for some
    /// CPU time) when the inputs are at least this large, or of unknown size (standard input);
    /// `nil` is the kernel's dirty-page threshold (`System.dirtyBackgroundBytes`): below it the
    /// copies stay in the page cache and shorthand costs more than it saves, past it they are
    /// written back to the disk as well.
    package var shorthandFromBytes: Int64?
    /// How many bytes of formatted output pre-grouped input and a refold hold in memory, waiting
    /// for session order, before the rest waits in a temporary file (`OutputStore`); `nil` is
    /// an eighth of the memory limit.
    package var outputBudget: Int?

    package init() {}

    /// The environment variable that turns the engine's mechanisms off one by one, so that
    /// `scripts/bench --mechanisms` can measure what each earns in the same run. Not a user's
    /// setting: an audit's outputs do not depend on it.
    package static let environmentVariable = "NAVREPLAY_TUNING"

    /// Applies `key=value` pairs, comma-separated: `shorthand=always|never`,
    /// `routing=serial|parallel`.
    package mutating func apply(overrides text: String) throws(TuningError) {
        for pair in text.split(separator: ",") where !pair.isEmpty {
            switch pair {
            case "shorthand=always": shorthandFromBytes = 0
            case "shorthand=never": shorthandFromBytes = .max
            case "routing=serial": routesInParallel = false
            case "routing=parallel": routesInParallel = true
            default: throw TuningError(pair: String(pair))
            }
        }
    }
}

/// A pair of `NAVREPLAY_TUNING` the engine does not know.
package struct TuningError: Error, CustomStringConvertible {
    package var pair: String
    package var description: String {
        "\(AuditTuning.environmentVariable): '\(pair)' is not one of shorthand=always|never, routing=serial|parallel"
    }
}

/// One file to audit and the model (an index into the run's models) its sessions fold with.
public struct AuditInput: Sendable, Hashable {
    public var path: String
    public var model: Int

    public init(path: String, model: Int = 0) {
        self.path = path
        self.model = model
    }
}
