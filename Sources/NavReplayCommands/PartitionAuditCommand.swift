import ArgumentParser
import NavJSON
import NavReplay
import NavReport
import NavEngine
import NavResults

extension NavReplayCommand.Partition {
    struct PartitionAudit: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "audit",
            abstract: "Audit one partition of a distributed run: its findings, sessions, quarantine and summary, in one pass.",
            discussion: """
                Reads located input (--located-input), groups the sessions within --memory-limit as `audit` does, folds \
                them once, and writes what a distributed run merges:

                  --findings   one JSON object per finding, in `audit`'s order: "ndjson" (the finding's line, as \
                `audit --format ndjson` writes it), its fields (rule, severity, session_id, seq, event_id, file, line, \
                message, after_gap), and "expected", "found" and "explanation" (the --explain members) as JSON text
                  --sessions   one record per session, as `sessions --format ndjson` writes it
                  --quarantine, --summary   as `audit` writes them

                --line-offsets gives a number per line of the paths file, added to the LINE of the lines that name it \
                (lines numbered within a split of their file). The exit status is 0 whatever the findings; 2 when an \
                input could not be read completely.

                Example:
                  navreplay partition audit --located-input paths.txt --line-offsets offsets.txt \\
                      --findings findings.ndjson --sessions sessions.ndjson --summary summary.json partition/
                """)

        @OptionGroup var input: InputOptions

        @Option(help: ArgumentHelp("A number per line of the paths file, added to the LINE of its lines.", valueName: "file"))
        var lineOffsets: String?

        @Option(help: ArgumentHelp("Write the findings, one JSON object each with its NDJSON line, to this file.", valueName: "file"))
        var findings: String?

        @Option(help: ArgumentHelp("Write one record per session (NDJSON) to this file.", valueName: "file"))
        var sessions: String?

        @Option(help: ArgumentHelp("Write every invalid line to this file, as NDJSON with its source and raw bytes.", valueName: "file"))
        var quarantine: String?

        @Option(help: ArgumentHelp("Write the summary as JSON to this file.", valueName: "file"))
        var summary: String?

        @Flag(help: "Add the witness event and the state before and after to each finding.")
        var explain = false

        @Option(help: "Keep at most this many findings per session (the rest are counted in the summary).")
        var maxFindingsPerSession: Int = 10_000

        func validate() throws {
            if input.locatedInput == nil { throw ValidationError("Please give --located-input: a partition's lines are located input.") }
            if maxFindingsPerSession < 0 { throw ValidationError("Please give --max-findings-per-session a number of 0 or more.") }
        }

        func run() throws {
            let outputs = OutputOptions.parseOrExit([])
            try input.refuseOverwritingInputs(
                outputs, also: [("--findings", findings), ("--sessions", sessions), ("--quarantine", quarantine), ("--summary", summary)],
                reading: [("--line-offsets", lineOffsets)])
            let offsets = try lineOffsets.map(Self.offsets)
            let findingsFile = try OutputFile(path: findings ?? "/dev/null")
            let sessionsFile = try OutputFile(path: sessions ?? "/dev/null")
            let stream = PartitionOutputStream(explain: explain, findings: findingsFile, sessions: sessionsFile)
            let options = SessionAuditOptions(maxFindings: maxFindingsPerSession, keepStates: explain, recordScreens: true)
            let run = try runAudit(input, quarantine: quarantine, sessionOptions: options, sink: .streaming(stream)) { configuration in
                guard let offsets else { return }
                let listed = configuration.locatedPaths?.count ?? 0
                guard offsets.count == listed else {
                    throw CommandFailure(
                        "The --line-offsets file \(lineOffsets ?? "") has \(offsets.count) numbers; the paths file has \(listed) lines.")
                }
                configuration.locatedLineOffsets = offsets
            }
            try findingsFile.commit()
            try sessionsFile.commit()
            if let summary { try emit(SummaryWriter.json(run), to: summary) }
            if !input.quiet { Terminal.writeError("navreplay: " + SummaryWriter.text(run) + "\n") }
            if !run.inputErrors.isEmpty { throw ExitCode(2) }
        }

        /// The numbers of a --line-offsets file, one a line.
        static func offsets(_ path: String) throws -> [Int64] {
            let text = String(decoding: try readWholeFile(path, as: "--line-offsets file"), as: UTF8.self)
            var numbers: [Int64] = []
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
                guard let number = Int64(line), number >= 0 else {
                    throw CommandFailure("The --line-offsets file \(path), line \(index + 1), is not a number of 0 or more.")
                }
                numbers.append(number)
            }
            return numbers
        }
    }
}

/// A partition's findings and session records, made in one fold: each session's bytes are its
/// findings' rows, then its record, with the rows' length before them.
final class PartitionOutputStream: StreamingFormatter {
    struct Format: SessionFormat {
        let explain: Bool
        func bytes(of audit: SessionAudit, files: [String]) -> [UInt8] {
            let rows = PartitionOutputStream.rows(audit.findings, files: files, explain: explain)
            var bytes: [UInt8] = []
            withUnsafeBytes(of: UInt64(rows.count).littleEndian) { bytes.append(contentsOf: $0) }
            return bytes + rows + SessionWriter.ndjsonLine(audit)
        }
    }

    let sessionFormat: any SessionFormat
    private let explain: Bool
    private let findings: any OrderedOutput
    private let sessions: any OrderedOutput

    init(explain: Bool, findings: any OrderedOutput, sessions: any OrderedOutput) {
        sessionFormat = Format(explain: explain)
        self.explain = explain
        self.findings = findings
        self.sessions = sessions
    }

    func begin(invalid: [Finding], files: [String]) throws {
        try findings.write(Self.rows(invalid, files: files, explain: explain))
    }

    func write(_ bytes: [UInt8]) throws {
        let length = bytes.withUnsafeBytes { Int(UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self))) }
        if length > 0 { try findings.write(Array(bytes[8..<(8 + length)])) }
        try sessions.write(Array(bytes[(8 + length)...]))
    }

    /// One row per finding: its NDJSON line, its fields, and its JSON values as text.
    static func rows(_ list: [Finding], files: [String], explain: Bool) -> [UInt8] {
        var output: [UInt8] = []
        for finding in list {
            var line = JSONWriter()
            FindingWriter.write(finding, files: files, explain: explain, to: &line)
            var row = JSONWriter()
            row.beginObject()
            row.member("ndjson", line.string)
            row.member("rule", finding.rule.rawValue)
            row.member("severity", finding.severity.rawValue)
            row.member("session_id", finding.sessionID)
            row.key("seq")
            if let seq = finding.seq { row.int(seq) } else { row.null() }
            row.member("event_id", finding.eventID)
            row.member("file", finding.location.flatMap { files.indices.contains(Int($0.file)) ? files[Int($0.file)] : nil })
            row.key("line")
            if let number = finding.location?.line { row.int(number) } else { row.null() }
            row.member("message", finding.message)
            row.member("expected", finding.expected.map(Self.text))
            row.member("found", finding.found.map(Self.text))
            row.member("after_gap", finding.afterGap)
            row.member("explanation", explain ? explanation(finding, line: line.bytes, files: files) : nil)
            row.endObject()
            output += row.bytes
            output.append(0x0A)
        }
        return output
    }

    private static func text(_ value: JSONValue) -> String {
        var writer = JSONWriter()
        writer.value(value)
        return writer.string
    }

    /// The members `--explain` adds, as a JSON object: what the explained line holds past the
    /// line without them.
    private static func explanation(_ finding: Finding, line: [UInt8], files: [String]) -> String? {
        var plain = JSONWriter()
        FindingWriter.write(finding, files: files, explain: false, to: &plain)
        guard line.count > plain.bytes.count else { return nil }
        return "{" + String(decoding: line[plain.bytes.count...], as: UTF8.self)
    }
}
