#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
public import NavModel
import NavEvents
import NavJSON
import NavReplay
import NavReport
import NavEngine
import NavInput
public import NavResults

/// Runs one input through everything `navreplay` does with a log and checks the invariants that
/// must hold for any bytes at all: the libFuzzer target (`navreplay-fuzz`) calls it for every
/// generated input, and the tests call it on every test log and every fuzz reproducer.
///
/// One check:
/// 1. writes the bytes to a temporary file (read by magic number: plain or gzip);
/// 2. streams it through `LineReader` with a small chunk size and compares every line with
///    `NaiveLine.split` (numbers, bytes, line ends, over-long lengths);
/// 3. audits it with `AuditEngine` (decoder, grouping, `SessionAuditor` fold) with one job, with
///    two, partitioned as a large input is (with a quarantine), and as `validate` (no fold):
///    they must agree on the lines, the findings and the quarantine;
/// 4. checks the identity `lines = blank + invalid + redeliveries + duplicates +
///    events`, and (for plain input) each count against the naive split and an independent
///    decode of each line;
/// 5. writes every output format (`Output.all`) and parses each with an independent parser
///    (Foundation's JSON and XML parsers, an RFC 4180 reader, a control-character scan for text).
///
/// - Complexity: O(n) in the input's size, times a small constant (five audits).
public struct FuzzHarness: Sendable {
    /// Small enough for fuzz inputs to reach the over-long path, large enough for real events.
    public var maxLineBytes: Int
    /// The chunk size of the reader check: small, so that lines cross chunk boundaries.
    public var chunkSize: Int
    public var model: NavigationModel
    /// The formats written and checked (all of them, unless a test narrows it).
    public var outputs: [Output]

    public init(maxLineBytes: Int = 2048, chunkSize: Int = 4096, model: NavigationModel = .poc, outputs: [Output] = Output.all) {
        self.maxLineBytes = maxLineBytes
        self.chunkSize = chunkSize
        self.model = model
        self.outputs = outputs
    }

    /// What one check found.
    public struct Report: Sendable {
        /// Every invariant that did not hold, in words; empty when all held.
        public var violations: [String] = []
        public var counts = AuditCounts()
        /// The number of bytes each output format wrote.
        public var outputBytes: [String: Int] = [:]
    }

    /// Checks one input; see the type's documentation.
    public func check(_ input: [UInt8]) -> Report {
        var report = Report()
        let path = temporaryPath()
        defer { unlink(path) }
        guard writeFile(path, input) else {
            report.violations.append("could not write the temporary file \(path)")
            return report
        }
        let isGzip = looksLikeGzip(input)
        let naive = isGzip ? nil : NaiveLine.split(input)

        if let naive { checkReader(path: path, naive: naive, into: &report) }

        // The audit as `navreplay audit` runs it, with steps recorded for the replay writers.
        var configuration = AuditConfiguration(model: model, maxLineBytes: maxLineBytes, jobs: 1)
        configuration.sessionOptions = SessionAuditOptions(recordSteps: true, maxFindings: 50)
        let run: AuditRun
        do {
            run = try AuditEngine(configuration: configuration).run(paths: [path])
        } catch {
            report.violations.append("the audit threw: \(error)")
            return report
        }
        report.counts = run.counts
        checkCounts(run, naive: naive, isGzip: isGzip, into: &report)

        // Two jobs: the parallel fold must give the same findings, byte for byte.
        var parallel = configuration
        parallel.jobs = 2
        if let other = try? AuditEngine(configuration: parallel).run(paths: [path]) {
            if FindingWriter.ndjson(other, explain: true) != FindingWriter.ndjson(run, explain: true) {
                report.violations.append("the findings differ between --jobs 1 and --jobs 2")
            }
            if other.counts != run.counts { report.violations.append("the counts differ between --jobs 1 and --jobs 2") }
        } else {
            report.violations.append("the audit with two jobs threw")
        }

        // Partitioned as a large input is (lines routed by their session_id, decoded when
        // their partition folds; a plain file mapped and its lines referenced, routed in chunks
        // on every core, or copied): the same findings, counts and quarantine, byte for byte.
        let quarantines = (temporaryPath(), temporaryPath())
        defer {
            unlink(quarantines.0)
            unlink(quarantines.1)
        }
        var quarantined = configuration
        quarantined.quarantinePath = quarantines.0
        let inMemory = try? AuditEngine(configuration: quarantined).run(paths: [path])
        let inMemoryQuarantine = readAll(quarantines.0)
        for mapped in [true, false] {
            var partitioned = parallel
            partitioned.tuning.partitionedInputBytes = 0
            partitioned.mapsInputs = mapped
            // Copied lines in shorthand (`LineShorthand`); a mapped input's stay references.
            partitioned.tuning.shorthandFromBytes = 0
            // A mapped input routed on every core, cut into chunks of a few lines.
            partitioned.tuning.routingChunkBytes = 512
            partitioned.quarantinePath = quarantines.1
            let how = mapped ? "a partitioned audit (mapped)" : "a partitioned audit (copied)"
            if let inMemory, let routed = try? AuditEngine(configuration: partitioned).run(paths: [path]) {
                if FindingWriter.ndjson(routed, explain: true) != FindingWriter.ndjson(inMemory, explain: true) {
                    report.violations.append("the findings differ between an in-memory audit and \(how)")
                }
                if routed.counts != inMemory.counts { report.violations.append("the counts differ between an in-memory audit and \(how)") }
                if readAll(quarantines.1) != inMemoryQuarantine {
                    report.violations.append("the quarantine differs between an in-memory audit and \(how)")
                }
            } else {
                report.violations.append("the quarantined or \(how) threw")
            }
        }

        // `validate`: the same lines are invalid, and every valid line counts as an event.
        var lineOnly = configuration
        lineOnly.foldSessions = false
        if let validated = try? AuditEngine(configuration: lineOnly).run(paths: [path]) {
            let counts = validated.counts
            if !counts.isBalanced { report.violations.append("validate: the counts do not balance: \(describe(counts))") }
            if counts.invalidLines != run.counts.invalidLines || counts.blankLines != run.counts.blankLines
                || counts.lines != run.counts.lines
            {
                report.violations.append("validate and audit disagree: \(describe(counts)) vs \(describe(run.counts))")
            }
            if counts.events != run.counts.events + run.counts.redeliveries + run.counts.duplicates {
                report.violations.append(
                    "validate counts \(counts.events) valid lines, audit \(run.counts.events + run.counts.redeliveries + run.counts.duplicates)"
                )
            }
        } else {
            report.violations.append("validate threw")
        }

        for output in outputs {
            let bytes = output.write(run)
            report.outputBytes[output.name] = bytes.count
            if let problem = output.check(bytes, run) { report.violations.append("\(output.name): \(problem)") }
        }
        return report
    }

    // MARK: The reader against the naive split

    func checkReader(path: String, naive: [NaiveLine], into report: inout Report) {
        let reader = LineReader(maxLineBytes: maxLineBytes, chunkSize: chunkSize)
        var index = 0
        var problems: [String] = []
        do {
            let count = try reader.readLines(of: path) { line in
                guard problems.count < 5 else { return }
                guard index < naive.count else {
                    problems.append("the reader gave an extra line \(line.number)")
                    return
                }
                let expected = naive[index]
                index += 1
                if line.number != expected.number { problems.append("line \(expected.number) was numbered \(line.number)") }
                if (line.ending == .newline) != expected.endedByNewline {
                    problems.append("line \(expected.number): wrong line end \(line.ending)")
                }
                if expected.isOverlong(limit: maxLineBytes) {
                    if line.overlongLength != expected.bytes.count {
                        problems.append(
                            "line \(expected.number): over-long length \(String(describing: line.overlongLength)), expected \(expected.bytes.count)"
                        )
                    }
                    if Array(line.bytes) != Array(expected.bytes.prefix(maxLineBytes)) {
                        problems.append("line \(expected.number): the kept prefix of the over-long line differs")
                    }
                } else {
                    if line.overlongLength != nil { problems.append("line \(expected.number) was taken as over-long") }
                    if Array(line.bytes) != expected.bytes { problems.append("line \(expected.number): the bytes differ") }
                }
                if (line.overlongLength == nil && line.isBlank) != expected.isBlank(limit: maxLineBytes) {
                    problems.append("line \(expected.number): blank or not")
                }
            }
            if count != Int64(naive.count) { problems.append("the reader counted \(count) lines, expected \(naive.count)") }
            if index != naive.count { problems.append("the reader gave \(index) lines, expected \(naive.count)") }
        } catch {
            problems.append("the reader threw on plain input: \(error)")
        }
        report.violations += problems.map { "reader (chunk \(chunkSize)): \($0)" }
    }

    // MARK: Counts

    func checkCounts(_ run: AuditRun, naive: [NaiveLine]?, isGzip: Bool, into report: inout Report) {
        let counts = run.counts
        if !counts.isBalanced { report.violations.append("the counts do not balance: \(describe(counts))") }
        if counts.files != 1 { report.violations.append("files is \(counts.files), expected 1") }
        if counts.invalidLines != Int64(run.invalidFindings.count) {
            report.violations.append("\(counts.invalidLines) invalid lines but \(run.invalidFindings.count) schema.invalid findings")
        }
        if counts.sessions != run.sessions.count { report.violations.append("sessions count differs from the sessions") }
        let kept = run.findings.count
        if counts.findings < kept { report.violations.append("findings \(counts.findings) < kept findings \(kept)") }
        let byRule = counts.findingsByRule.values.reduce(0, +)
        if byRule != counts.findings { report.violations.append("findings_by_rule adds up to \(byRule), findings is \(counts.findings)") }
        for finding in run.findings {
            guard let location = finding.location else { continue }
            if location.file != 0 || location.line < 1 || location.line > counts.lines {
                report.violations.append(
                    "a \(finding.rule.rawValue) finding points at \(location.file):\(location.line), outside the input")
                break
            }
        }
        if !isGzip, !run.inputErrors.isEmpty {
            report.violations.append("plain input reported an input error: \(run.inputErrors)")
        }
        guard let naive else { return }
        // Independent counts: split naively, decode each line on its own.
        var blank: Int64 = 0
        var invalid: Int64 = 0
        var valid: Int64 = 0
        var invalidLines: Set<Int64> = []
        let decoder = EventDecoder()
        for line in naive {
            if line.isBlank(limit: maxLineBytes) {
                blank += 1
            } else if line.isOverlong(limit: maxLineBytes) {
                invalid += 1
                invalidLines.insert(line.number)
            } else if case .success = decoder.decode(line.bytes) {
                valid += 1
            } else {
                invalid += 1
                invalidLines.insert(line.number)
            }
        }
        if counts.lines != Int64(naive.count) { report.violations.append("lines is \(counts.lines), the input has \(naive.count)") }
        if counts.blankLines != blank { report.violations.append("blank_lines is \(counts.blankLines), expected \(blank)") }
        if counts.invalidLines != invalid { report.violations.append("invalid_lines is \(counts.invalidLines), expected \(invalid)") }
        if counts.redeliveries + counts.duplicates + counts.events != valid {
            report.violations.append(
                "valid lines: \(counts.redeliveries + counts.duplicates + counts.events) accounted for, expected \(valid)")
        }
        let reported = Set(run.invalidFindings.compactMap { $0.location?.line })
        if reported != invalidLines {
            report.violations.append(
                "schema.invalid findings on lines \(reported.sorted().prefix(10)), expected \(invalidLines.sorted().prefix(10))")
        }
    }

    // MARK: Files

    private func readAll(_ path: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        guard (try? LineReader.readWholeFile(path, into: &bytes)) != nil else { return nil }
        return bytes
    }

    private func temporaryPath() -> String {
        let directory = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        return "\(directory)/navreplay-fuzz-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).ndjson"
    }

    private func writeFile(_ path: String, _ bytes: [UInt8]) -> Bool {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return write(descriptor, base + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }
}

func describe(_ counts: AuditCounts) -> String {
    "lines \(counts.lines) = blank \(counts.blankLines) + invalid \(counts.invalidLines) + redeliveries \(counts.redeliveries) "
        + "+ duplicates \(counts.duplicates) + events \(counts.events)"
}
