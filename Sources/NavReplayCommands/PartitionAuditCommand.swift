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

                  --findings   one line per finding, in `audit`'s order: its sort key, the object `audit --format \
                ndjson` writes, then twelve columns for a table (rule, severity, session_id, seq, event_id, file, \
                line, message, expected, found, after_gap, explanation: texts as hexadecimal UTF-8, expected, found \
                and the --explain members as JSON text, `-` for none), all tab-separated
                  --sessions   one line per session: KEY<TAB>RECORD, its sort key and its record as `sessions \
                --format ndjson` writes it

                A sort key orders the lines of many partitions as `audit` orders its output, compared as bytes: \
                `0`, the file's bytes in hexadecimal, `-` and the line in 20 digits for a finding without a session; \
                `1` and the session id's bytes in hexadecimal for another finding; the session id's bytes in \
                hexadecimal for a session's record (what keys leave equal, a partition's own order settles).
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
            help: ArgumentHelp("Write the findings, with sort keys and table columns, to this file.", valueName: "file")
        )
        var findings: String?

        @Option(help: ArgumentHelp("Write one record per session (NDJSON), with sort keys, to this file.", valueName: "file"))
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
///
/// Each line starts with its sort key and a tab, so that a distributed run orders the lines of
/// every partition without reading their JSON: a finding without a session `0`, its file's
/// bytes in hexadecimal, `-` and its line number in 20 digits; any other finding `1` and its
/// session id's bytes in hexadecimal; a session record its id's bytes in hexadecimal. As bytes,
/// the keys sort as `audit` orders its output (what they leave equal, a partition's own order
/// settles).
final class PartitionOutputStream: StreamingFormatter {
    struct Format: SessionFormat {
        let explain: Bool
        let records: Bool
        func bytes(of audit: SessionAudit, files: [String]) -> [UInt8] {
            let lines = PartitionOutputStream.lines(audit.findings, files: files, explain: explain)
            var bytes: [UInt8] = []
            withUnsafeBytes(of: UInt64(lines.count).littleEndian) { bytes.append(contentsOf: $0) }
            bytes += lines
            if records {
                PartitionOutputStream.appendHex(audit.sessionID, to: &bytes)
                bytes.append(0x09)
                bytes += SessionWriter.ndjsonLine(audit)
            }
            return bytes
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

    /// Each finding as `KEY<TAB>NDJSON<TAB>COLUMNS`: its sort key; its line as `audit --format
    /// ndjson` writes it (JSON holds no raw tab); and a table's twelve columns, tab-separated:
    /// rule, severity, session_id, seq, event_id, file, line, message, expected, found,
    /// after_gap, explanation. Texts are their UTF-8 bytes in hexadecimal (expected, found and
    /// explanation, the --explain members, as JSON text); numbers in decimal; after_gap `1` or
    /// `0`; an absent value `-`. A table reads them without parsing JSON.
    static func lines(_ list: [Finding], files: [String], explain: Bool) -> [UInt8] {
        var output: [UInt8] = []
        var writer = JSONWriter()
        for finding in list {
            writer.removeAll()
            FindingWriter.write(finding, files: files, explain: explain, to: &writer)
            let file = finding.location.flatMap { files.indices.contains(Int($0.file)) ? files[Int($0.file)] : nil }
            if let session = finding.sessionID {
                output.append(UInt8(ascii: "1"))
                appendHex(session, to: &output)
            } else {
                output.append(UInt8(ascii: "0"))
                appendHex(file ?? "", to: &output)
                let number = String(max(0, finding.location?.line ?? 0))
                output.append(UInt8(ascii: "-"))
                output += Array(repeating: UInt8(ascii: "0"), count: max(0, 20 - number.utf8.count)) + Array(number.utf8)
            }
            output.append(0x09)
            output += writer.bytes
            var explanation: String?
            if explain {
                var plain = JSONWriter()
                FindingWriter.write(finding, files: files, explain: false, to: &plain)
                // The members --explain adds: what the explained line holds past the plain one.
                if writer.bytes.count > plain.bytes.count {
                    explanation = "{" + String(decoding: writer.bytes[plain.bytes.count...], as: UTF8.self)
                }
            }
            let columns: [String?] = [
                finding.rule.rawValue, finding.severity.rawValue, finding.sessionID, nil, finding.eventID, file, nil, finding.message,
                finding.expected.map(text), finding.found.map(text), nil, explanation,
            ]
            for (index, column) in columns.enumerated() {
                output.append(0x09)
                switch index {
                case 3: appendNumber(finding.seq, to: &output)
                case 6: appendNumber(finding.location?.line, to: &output)
                case 10: output.append(UInt8(ascii: finding.afterGap ? "1" : "0"))
                default:
                    if let column { appendHex(column, to: &output) } else { output.append(UInt8(ascii: "-")) }
                }
            }
            output.append(0x0A)
        }
        return output
    }

    private static func appendNumber(_ number: Int64?, to output: inout [UInt8]) {
        if let number { output += Array(String(number).utf8) } else { output.append(UInt8(ascii: "-")) }
    }

    private static func text(_ value: JSONValue) -> String {
        var writer = JSONWriter()
        writer.value(value)
        return writer.string
    }

    static func appendHex(_ text: String, to output: inout [UInt8]) {
        let digits = Array("0123456789abcdef".utf8)
        for byte in text.utf8 {
            output.append(digits[Int(byte >> 4)])
            output.append(digits[Int(byte & 15)])
        }
    }
}
