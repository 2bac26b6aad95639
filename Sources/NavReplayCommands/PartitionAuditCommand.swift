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

                  --findings   one line per finding, in `audit`'s order: the object `audit --format ndjson` \
                writes, with one member more, last: "_json", an object of "expected", "found" and "explanation" (the \
                --explain members) as JSON text, where the finding has them
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

        @Option(
            help: ArgumentHelp("Write the findings, as NDJSON with their JSON values as text (\"_json\"), to this file.", valueName: "file")
        )
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
            let stream = PartitionOutputStream(explain: explain, findings: findingsFile, sessions: sessions == nil ? nil : sessionsFile)
            // Screens appear in session records only.
            let options = SessionAuditOptions(maxFindings: maxFindingsPerSession, keepStates: explain, recordScreens: sessions != nil)
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
/// findings' lines, then its record (when asked for), with the findings' length before them.
final class PartitionOutputStream: StreamingFormatter {
    struct Format: SessionFormat {
        let explain: Bool
        let records: Bool
        func bytes(of audit: SessionAudit, files: [String]) -> [UInt8] {
            let lines = PartitionOutputStream.lines(audit.findings, files: files, explain: explain)
            var bytes: [UInt8] = []
            withUnsafeBytes(of: UInt64(lines.count).littleEndian) { bytes.append(contentsOf: $0) }
            return bytes + lines + (records ? SessionWriter.ndjsonLine(audit) : [])
        }
    }

    let sessionFormat: any SessionFormat
    private let explain: Bool
    private let findings: any OrderedOutput
    private let sessions: (any OrderedOutput)?

    init(explain: Bool, findings: any OrderedOutput, sessions: (any OrderedOutput)?) {
        sessionFormat = Format(explain: explain, records: sessions != nil)
        self.explain = explain
        self.findings = findings
        self.sessions = sessions
    }

    func begin(invalid: [Finding], files: [String]) throws {
        try findings.write(Self.lines(invalid, files: files, explain: explain))
    }

    func write(_ bytes: [UInt8]) throws {
        let length = bytes.withUnsafeBytes { Int(UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self))) }
        if length > 0 { try findings.write(Array(bytes[8..<(8 + length)])) }
        if let sessions { try sessions.write(Array(bytes[(8 + length)...])) }
    }

    /// Each finding's NDJSON object with a last member, "_json": its JSON values as text (a
    /// table's columns), so that the line as `audit` writes it is what precedes `,"_json":`.
    static func lines(_ list: [Finding], files: [String], explain: Bool) -> [UInt8] {
        var output: [UInt8] = []
        var writer = JSONWriter()
        for finding in list {
            writer.removeAll()
            FindingWriter.write(finding, files: files, explain: explain, to: &writer)
            var line = writer.bytes
            let plainLength = line.count
            line.removeLast()  // the closing brace
            var texts = JSONWriter()
            texts.beginObject()
            if let expected = finding.expected { texts.member("expected", text(expected)) }
            if let found = finding.found { texts.member("found", text(found)) }
            if explain {
                var plain = JSONWriter()
                FindingWriter.write(finding, files: files, explain: false, to: &plain)
                // The members --explain adds: what the explained line holds past the plain one.
                if plainLength > plain.bytes.count {
                    texts.member("explanation", "{" + String(decoding: writer.bytes[plain.bytes.count...], as: UTF8.self))
                }
            }
            texts.endObject()
            output += line
            output += Array(#","_json":"#.utf8)
            output += texts.bytes
            output += [UInt8(ascii: "}"), 0x0A]
        }
        return output
    }

    private static func text(_ value: JSONValue) -> String {
        var writer = JSONWriter()
        writer.value(value)
        return writer.string
    }
}
