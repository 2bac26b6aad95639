import Foundation
import NavEvents
import NavJSON
@testable import NavEngine
import NavInput
import NavRuns
import NavResults
import NavModel
import NavReplay
import NavReport
import NavTestSupport
import Testing
import NavPartitions

/// Spilling to disk and pre-grouped streaming give exactly the in-memory audit's output.
@Suite struct AuditModesTests {
    /// The sample logs copied `copies` times under other session ids, one file per copy.
    static func replicatedLogs(copies: Int, in directory: URL) throws -> [String] {
        let sources = ["SampleLogs/violations/app-2026-11-20-broken.ndjson", "SampleLogs/clean/app-2026-11-20-upload1.ndjson"]
        var paths: [String] = []
        for copy in 0..<copies {
            var text = ""
            for source in sources {
                text += try String(contentsOfFile: Repository.path(source), encoding: .utf8)
                    .replacingOccurrences(of: "\"session_id\":\"s-", with: "\"session_id\":\"c\(copy)-s-")
            }
            let path = directory.appendingPathComponent("copy-\(copy).ndjson").path
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            paths.append(path)
        }
        return paths
    }

    /// A valid event of one of the replicated sessions, to damage in tests.
    static let validEvent =
        #"{"schema_version":1,"event_id":"e-1","event_name":"screen_view","session_id":"c0-s-clean-onboarding","seq":900,"timestamp":"2026-11-20T10:00:00Z","correlation_id":"c","stack":"onboarding","to_route":null}"#

    /// A log of lines every reader must get right, with `maxLineBytes = 2048`: a CRLF line end,
    /// a blank and a whitespace line, an over-long line, an invalid one (a string `seq`), a valid
    /// one, and a torn last line (no line end). Three of them are invalid.
    static func trickyLog(in directory: URL) throws -> String {
        let valid = validEvent
        let lines = [
            valid.replacingOccurrences(of: "e-1", with: "e-crlf") + "\r",
            "",
            "  \t",
            "{\"schema_version\":1,\"session_id\":\"c1-s-x\",\"pad\":\"" + String(repeating: "x", count: 3000) + "\"}",
            valid.replacingOccurrences(of: "\"seq\":900", with: "\"seq\":\"900\""),
            valid.replacingOccurrences(of: "e-1", with: "e-2").replacingOccurrences(of: "900", with: "901"),
            String(valid.dropLast(20)),
        ]
        let path = directory.appendingPathComponent("tricky.ndjson").path
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func run(
        _ paths: [String], configure: (inout AuditConfiguration) -> Void = { _ in }
    ) throws -> (findings: [UInt8], summary: [UInt8], run: AuditRun) {
        var configuration = AuditConfiguration()
        configure(&configuration)
        let run = try AuditEngine(configuration: configuration).run(paths: paths)
        return (FindingWriter.ndjson(run, explain: true), SummaryWriter.json(run), run)
    }

    /// `run(_:configure:)` with a quarantine file in `directory`, whose text it returns too.
    static func runQuarantined(
        _ paths: [String], in directory: URL, configure: (inout AuditConfiguration) -> Void
    ) throws -> (findings: [UInt8], summary: [UInt8], quarantine: String, run: AuditRun) {
        let quarantine = directory.appendingPathComponent("q-\(UUID().uuidString).ndjson").path
        let result = try run(paths) {
            $0.quarantinePath = quarantine
            configure(&$0)
        }
        return (result.findings, result.summary, try String(contentsOfFile: quarantine, encoding: .utf8), result.run)
    }

    /// An empty `spill` directory in `directory`, for `--temp-dir`: a test checks it is empty after.
    static func spillDirectory(in directory: URL) throws -> URL {
        let spill = directory.appendingPathComponent("spill")
        try FileManager.default.createDirectory(at: spill, withIntermediateDirectories: true)
        return spill
    }

    static func scratch() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("navreplay-modes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func spillingGivesTheSameOutputAndRemovesItsFiles() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let spillDirectory = try Self.spillDirectory(in: directory)
        let paths = try Self.replicatedLogs(copies: 40, in: directory)
        let inMemory = try Self.run(paths)
        for jobs in [1, 2] {
            let spilled = try Self.run(paths) {
                $0.memoryLimit = 1 << 20  // about 1,500 held lines: far less than the input
                $0.temporaryDirectory = spillDirectory.path
                $0.jobs = jobs
            }
            #expect(spilled.findings == inMemory.findings, "jobs \(jobs)")
            #expect(spilled.summary == inMemory.summary, "jobs \(jobs)")
            #expect(spilled.run.counts.isBalanced)
        }
        #expect(inMemory.run.counts.sessions == 40 * 10)
        #expect(try FileManager.default.contentsOfDirectory(atPath: spillDirectory.path).isEmpty)
    }

    /// Runs with a stream that writes each session's NDJSON findings as it comes.
    static func streamed(
        _ paths: [String], configure: (inout AuditConfiguration) -> Void = { _ in }
    ) throws -> (findings: [UInt8], summary: [UInt8], run: AuditRun) {
        var configuration = AuditConfiguration()
        configure(&configuration)
        let recorder = RecordingFormatter()
        let run = try AuditEngine(configuration: configuration).run(paths: paths, sink: .streaming(recorder))
        let output = recorder.output
        let invalidCalls = recorder.invalidCalls
        #expect(invalidCalls == 1)
        return (output, SummaryWriter.json(run), run)
    }

    @Test func streamedOutputIsTheCollectedOutputInMemorySpilledAndPreGrouped() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let spillDirectory = try Self.spillDirectory(in: directory)
        var paths = try Self.replicatedLogs(copies: 40, in: directory)
        // An unreadable line too: its finding leads the output.
        let garbage = directory.appendingPathComponent("garbage.ndjson").path
        try Data("{\"schema_version\":1}\nnot json\n".utf8).write(to: URL(fileURLWithPath: garbage))
        paths.append(garbage)
        let collected = try Self.run(paths)
        #expect(collected.run.invalidFindings.filter { collected.run.path(of: $0.location) == garbage }.count == 2)
        let configurations: [(String, (inout AuditConfiguration) -> Void)] = [
            ("in memory", { _ in }),
            (
                "spilled, 1 job",
                {
                    $0.memoryLimit = 1 << 20
                    $0.temporaryDirectory = spillDirectory.path
                    $0.jobs = 1
                }
            ),
            (
                "spilled, 2 jobs",
                {
                    $0.memoryLimit = 1 << 20
                    $0.temporaryDirectory = spillDirectory.path
                    $0.jobs = 2
                }
            ),
        ]
        for (name, configure) in configurations {
            let streamed = try Self.streamed(paths, configure: configure)
            #expect(streamed.findings == collected.findings, "\(name)")
            #expect(streamed.summary == collected.summary, "\(name)")
            #expect(streamed.run.sessions.isEmpty, "\(name): a streamed run keeps no session")
            let written = try #require(streamed.run.streamedFindings, "\(name)")
            #expect(written.values.reduce(0, +) == collected.run.findings.count, "\(name)")
            #expect(written[.error] == collected.run.findings.filter { $0.severity == .error }.count, "\(name)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: spillDirectory.path).isEmpty)
    }

    @Test func routedLinesGiveTheSameInvalidFindingsQuarantineAndTornLines() throws {
        // A large input's lines are routed by session and decoded only when their partition
        // folds: lines invalid in every way (a session_id and a broken field, escapes, no
        // session, broken JSON, a torn last line) must come out exactly as in memory.
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        var paths = try Self.replicatedLogs(copies: 30, in: directory)
        let valid = Self.validEvent
        let bad = [
            valid.replacingOccurrences(of: "\"seq\":900", with: "\"seq\":\"900\""),  // a session_id, a broken field
            valid.replacingOccurrences(of: "\"session_id\":\"c0", with: "\"session\\u005fid\":\"c0"),  // an escaped key
            valid.replacingOccurrences(of: "\"session_id\":\"c0-s", with: "\"session_id\":\"c0\\u002ds"),  // an escaped value
            valid.replacingOccurrences(of: "\"session_id\":\"c0-s-clean-onboarding\",", with: ""),  // no session
            valid.replacingOccurrences(of: "\"session_id\"", with: "\"session_id\",\"session_id\""),  // broken after it
            valid + valid,  // two objects
            "{\"schema_version\":1,\"session_id\":\"c1-s-x\"",  // cut short
            String(valid.dropLast(20)),  // torn, as the last line
        ]
        let damaged = directory.appendingPathComponent("damaged.ndjson").path
        try Data((bad.joined(separator: "\n")).utf8).write(to: URL(fileURLWithPath: damaged))
        paths.append(damaged)
        func audit(
            _ configure: (inout AuditConfiguration) -> Void
        ) throws -> (findings: [UInt8], summary: [UInt8], quarantine: String, run: AuditRun) {
            try Self.runQuarantined(paths, in: directory, configure: configure)
        }
        let inMemory = try audit { _ in }
        let routed = try audit {
            $0.memoryLimit = 1 << 20
            $0.jobs = 2
        }
        #expect(routed.findings == inMemory.findings)
        #expect(routed.summary == inMemory.summary)
        #expect(routed.quarantine == inMemory.quarantine)
        let quarantined = inMemory.quarantine.split(separator: "\n").filter { $0.contains(damaged) }
        #expect(quarantined.count == bad.count - 2, "the escaped key and the escaped value are valid; \(quarantined.count)")
        #expect(String(decoding: inMemory.findings, as: UTF8.self).contains("torn line"))
    }

    @Test func mappedInputsGiveTheSameOutputWhereverTheirPartitionsAre() throws {
        // Plain files that fit the memory limit are mapped and their routed lines referenced;
        // lines the reader assembles (an over-long one, a torn last line) are copied. The
        // partitions of references stay in memory, or leave it for files midway; without
        // mapping, lines are copied to files. Every way gives the in-memory audit's output.
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        var paths = try Self.replicatedLogs(copies: 30, in: directory)
        let trickyPath = try Self.trickyLog(in: directory)
        paths.append(trickyPath)
        func audit(
            _ configure: (inout AuditConfiguration) -> Void
        ) throws -> (findings: [UInt8], summary: [UInt8], quarantine: String, run: AuditRun) {
            try Self.runQuarantined(paths, in: directory) {
                $0.maxLineBytes = 2048
                configure(&$0)
            }
        }
        let reference = try audit { _ in }
        #expect(reference.run.storage == AuditRun.Storage())
        #expect(
            reference.run.invalidFindings.filter { reference.run.path(of: $0.location) == trickyPath }.count == 3,
            "over-long, a string seq, torn")
        var mapped = AuditRun.Storage()
        mapped.mappedInputs = paths.count
        mapped.partitioned = true
        // Routed: every line whose session_id the scanner finds (about all of them); of those,
        // referenced: all but the torn last line, which the reader assembled.
        let routed = try audit { $0.tuning.partitionedInputBytes = 0 }.run.storage.routedLines
        #expect(routed > (reference.run.counts.lines - reference.run.counts.blankLines) * 9 / 10)
        mapped.routedLines = routed
        mapped.referencedLines = routed - 1
        var copied = mapped
        copied.mappedInputs = 0
        copied.referencedLines = 0
        // In shorthand: all but the torn last line (kept as it is, with no line end).
        var shortened = copied
        shortened.shortenedLines = routed - 1
        let variants: [(String, AuditRun.Storage, (inout AuditConfiguration) -> Void)] = [
            (
                "mapped", mapped,
                {
                    $0.tuning.partitionedInputBytes = 0
                    $0.jobs = 2
                }
            ),
            (
                "mapped, one job", mapped,
                {
                    $0.tuning.partitionedInputBytes = 0
                    $0.jobs = 1
                }
            ),
            // Routed in chunks of 4 KiB (one line can be most of one), on 2 jobs and on 1, in
            // and out of memory; and on the reading thread alone.
            (
                "mapped, small chunks", mapped,
                {
                    $0.tuning.partitionedInputBytes = 0
                    $0.tuning.routingChunkBytes = 4096
                    $0.jobs = 2
                }
            ),
            (
                "mapped, small chunks, one job", mapped,
                {
                    $0.tuning.partitionedInputBytes = 0
                    $0.tuning.routingChunkBytes = 4096
                    $0.jobs = 1
                }
            ),
            (
                "mapped, routed serially", mapped,
                {
                    $0.tuning.partitionedInputBytes = 0
                    $0.tuning.routesInParallel = false
                    $0.jobs = 2
                }
            ),
            (
                "copied", copied,
                {
                    $0.tuning.partitionedInputBytes = 0
                    $0.mapsInputs = false
                    $0.tuning.shorthandFromBytes = .max
                    $0.jobs = 2
                }
            ),
            (
                "copied in shorthand", shortened,
                {
                    $0.tuning.partitionedInputBytes = 0
                    $0.mapsInputs = false
                    $0.tuning.shorthandFromBytes = 0
                    $0.jobs = 2
                }
            ),
            (
                "copied in shorthand, one job", shortened,
                {
                    $0.tuning.partitionedInputBytes = 0
                    $0.mapsInputs = false
                    $0.tuning.shorthandFromBytes = 0
                    $0.jobs = 1
                }
            ),
        ]
        for (name, storage, configure) in variants {
            let result = try audit(configure)
            // Compared as Bools: a failing comparison of long byte arrays would be diffed at length.
            let same = (
                findings: result.findings == reference.findings, summary: result.summary == reference.summary,
                quarantine: result.quarantine == reference.quarantine
            )
            #expect(result.run.storage == storage, "\(name)")
            #expect(same.findings, "\(name): findings")
            #expect(same.summary, "\(name): summary")
            #expect(same.quarantine, "\(name): quarantine")
        }
        // Streamed output from mapped partitions too.
        let collected = try Self.run(paths) { $0.maxLineBytes = 2048 }
        let streamed = try Self.streamed(paths) {
            $0.tuning.partitionedInputBytes = 0
            $0.maxLineBytes = 2048
            $0.jobs = 2
        }
        #expect(streamed.run.storage == mapped)
        let sameStreamed = streamed.findings == collected.findings
        #expect(sameStreamed)
    }

    @Test func validationOfMappedFilesInChunksGivesTheSerialOutput() throws {
        // `validate` (lines checked alone, no fold) reads a plain file mapped, in chunks checked
        // on every core; the reader's serial pass over a copy is the reference. Chunks of 4 KiB
        // cut the files everywhere; over-long lines, blank ones, a CRLF line end, an invalid
        // line and a torn last line keep their numbers, findings and quarantine records.
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        var paths = try Self.replicatedLogs(copies: 8, in: directory)
        let trickyPath = try Self.trickyLog(in: directory)
        paths.insert(trickyPath, at: 3)
        func validate(
            _ configure: (inout AuditConfiguration) -> Void
        ) throws -> (findings: [UInt8], summary: [UInt8], quarantine: String, run: AuditRun) {
            try Self.runQuarantined(paths, in: directory) {
                $0.foldSessions = false
                $0.maxLineBytes = 2048
                configure(&$0)
            }
        }
        let serial = try validate {
            $0.mapsInputs = false
            $0.jobs = 2
        }
        #expect(serial.run.storage.mappedInputs == 0)
        #expect(
            serial.run.invalidFindings.filter { serial.run.path(of: $0.location) == trickyPath }.count == 3, "over-long, a string seq, torn"
        )
        #expect(serial.run.counts.events > 0 && serial.run.counts.blankLines >= 2)
        for (name, configure) in [
            ("chunks of 8 MiB", { (c: inout AuditConfiguration) in c.jobs = 2 }),
            (
                "chunks of 4 KiB",
                { (c: inout AuditConfiguration) in
                    c.tuning.routingChunkBytes = 4096
                    c.jobs = 2
                }
            ),
            (
                "chunks of 4 KiB, one job",
                { (c: inout AuditConfiguration) in
                    c.tuning.routingChunkBytes = 4096
                    c.jobs = 1
                }
            ),
        ] as [(String, (inout AuditConfiguration) -> Void)] {
            let chunked = try validate(configure)
            #expect(chunked.run.storage.mappedInputs == paths.count, "\(name)")
            let same = (
                findings: chunked.findings == serial.findings, summary: chunked.summary == serial.summary,
                quarantine: chunked.quarantine == serial.quarantine
            )
            #expect(same.findings, "\(name): findings")
            #expect(same.summary, "\(name): summary")
            #expect(same.quarantine, "\(name): quarantine")
            #expect(chunked.run.counts == serial.run.counts, "\(name)")
        }
    }

    @Test func inputOfUnknownSizeIsPartitionedOnceItIsLarge() throws {
        // A FIFO, like standard input, has no size: its lines are held, decoded, until they
        // reach the partitioning threshold, then spill, and the lines after are routed. Invalid
        // lines before and after the switch keep their order in the findings and quarantine.
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        var text = ""
        for path in try Self.replicatedLogs(copies: 12, in: directory) { text += try String(contentsOfFile: path, encoding: .utf8) }
        text += "not json\n"
        let fifo = directory.appendingPathComponent("input.ndjson").path
        #expect(mkfifo(fifo, 0o600) == 0)
        func audit(
            _ configure: (inout AuditConfiguration) -> Void
        ) throws -> (findings: [UInt8], summary: [UInt8], quarantine: String, run: AuditRun) {
            let bytes = Array(text.utf8)
            let writer = DispatchQueue(label: "fifo writer")
            writer.async {
                let descriptor = open(fifo, O_WRONLY)
                bytes.withUnsafeBytes { buffer in
                    var offset = 0
                    while offset < buffer.count {
                        let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                        if written <= 0 { break }
                        offset += written
                    }
                }
                close(descriptor)
            }
            let quarantine = directory.appendingPathComponent("q-\(UUID().uuidString).ndjson").path
            let result = try Self.run([fifo]) {
                $0.quarantinePath = quarantine
                $0.jobs = 2
                configure(&$0)
            }
            writer.sync {}
            return (result.findings, result.summary, try String(contentsOfFile: quarantine, encoding: .utf8), result.run)
        }
        let held = try audit { _ in }
        #expect(held.run.storage == AuditRun.Storage())
        let switched = try audit {
            $0.tuning.partitionedInputBytes = 64 << 10
            $0.tuning.batchBytes = 16 << 10
        }
        #expect(switched.run.storage.partitioned && switched.run.storage.mappedInputs == 0)
        // Input of unknown size is copied to its partitions in shorthand.
        #expect(switched.run.storage.shortenedLines == switched.run.storage.routedLines)
        // Lines from the batch after the one that spilled are routed: most of them.
        let lines = Int64(text.split(separator: "\n").count)
        #expect(
            switched.run.storage.routedLines > lines / 2 && switched.run.storage.routedLines < lines,
            "\(switched.run.storage.routedLines) of \(lines)")
        let same = (
            findings: switched.findings == held.findings, summary: switched.summary == held.summary,
            quarantine: switched.quarantine == held.quarantine
        )
        #expect(same.findings)
        #expect(same.summary)
        #expect(same.quarantine)
        #expect(held.quarantine.split(separator: "\n").count == 12 * 4 + 1, "the sample's invalid lines and the last one")
    }

    @Test func spillOutputFilesMergeInSessionOrder() throws {
        // Many partitions, sessions whose ids sort differently from their hashes: the merge
        // must restore session order exactly.
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let paths = try Self.replicatedLogs(copies: 120, in: directory)
        let collected = try Self.run(paths)
        let streamed = try Self.streamed(paths) {
            $0.memoryLimit = 1 << 20
            $0.jobs = 2
        }
        #expect(streamed.findings == collected.findings)
        let sessionOrder = collected.run.findings.compactMap(\.sessionID)
        #expect(sessionOrder == sessionOrder.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
    }

    @Test func theSameSessionIDUnderTwoModelsStaysTwoSessionsWhenPartitioned() throws {
        // A partition groups its records by a tag from the session id's hash before decoding;
        // the same id under two models has one tag, and so do colliding ids. The groups must
        // still split into their sessions, folded apart, with invalid lines of both reported
        // and quarantined in line order.
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let paths = try Self.replicatedLogs(copies: 12, in: directory)
        let damaged = directory.appendingPathComponent("damaged.ndjson").path
        let broken = Self.validEvent.replacingOccurrences(of: "\"seq\":900", with: "\"seq\":\"900\"")
        try Data(([broken, Self.validEvent, broken].joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: damaged))
        // The same lines again, in files of the second model.
        var inputs: [AuditInput] = []
        for path in paths + [damaged] {
            let copy = path.replacingOccurrences(of: ".ndjson", with: "-m1.ndjson")
            try FileManager.default.copyItem(atPath: path, toPath: copy)
            inputs += [AuditInput(path: path, model: 0), AuditInput(path: copy, model: 1)]
        }
        let model = AuditConfiguration().model
        func audit(_ configure: (inout AuditConfiguration) -> Void) throws -> (findings: [UInt8], quarantine: String, run: AuditRun) {
            var configuration = AuditConfiguration()
            let quarantine = directory.appendingPathComponent("q-\(UUID().uuidString).ndjson").path
            configuration.quarantinePath = quarantine
            configure(&configuration)
            let run = try AuditEngine(configuration: configuration).run(inputs: inputs, models: [model, model])
            return (FindingWriter.ndjson(run, explain: true), try String(contentsOfFile: quarantine, encoding: .utf8), run)
        }
        let inMemory = try audit { _ in }
        #expect(inMemory.run.counts.sessions == 2 * 12 * 10, "each session twice, once a model")
        for (name, configure) in [
            (
                "mapped",
                { (c: inout AuditConfiguration) in
                    c.tuning.partitionedInputBytes = 0
                    c.jobs = 2
                }
            ),
            (
                "copied",
                { (c: inout AuditConfiguration) in
                    c.tuning.partitionedInputBytes = 0
                    c.mapsInputs = false
                    c.jobs = 1
                }
            ),
            (
                "held, then spilled",
                { (c: inout AuditConfiguration) in
                    c.memoryLimit = 1 << 20
                    c.jobs = 2
                }
            ),
        ] as [(String, (inout AuditConfiguration) -> Void)] {
            let partitioned = try audit(configure)
            #expect(partitioned.run.storage.partitioned, "\(name)")
            #expect(partitioned.run.counts.sessions == inMemory.run.counts.sessions, "\(name)")
            let same = (findings: partitioned.findings == inMemory.findings, quarantine: partitioned.quarantine == inMemory.quarantine)
            #expect(same.findings, "\(name): findings")
            #expect(same.quarantine, "\(name): quarantine")
        }
        #expect(
            inMemory.quarantine.split(separator: "\n").filter { $0.contains("damaged") }.count == 4,
            "two broken lines, read under each model")
    }

    @Test func idsThatDifferOnlyInNormalisationAreTwoSessionsOnEveryPath() throws {
        // "café" with a precomposed é and with e and a combining accent: equal as Swift
        // `String`s, two different ids to the contract (scalars) and to every byte hash.
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        var paths = try Self.replicatedLogs(copies: 3, in: directory)
        var lines: [String] = []
        for (number, id) in ["caf\u{E9}", "cafe\u{301}"].enumerated() {
            for seq in 0..<2 {
                lines.append(
                    Self.validEvent.replacingOccurrences(of: "c0-s-clean-onboarding", with: id)
                        .replacingOccurrences(of: "\"seq\":900", with: "\"seq\":\(seq)")
                        .replacingOccurrences(of: "e-1", with: "e-\(number)-\(seq)")
                        .replacingOccurrences(of: "screen_view", with: seq == 0 ? "session_start" : "screen_view"))
            }
        }
        let path = directory.appendingPathComponent("normalisation.ndjson").path
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
        paths.append(path)
        let inMemory = try Self.run(paths)
        #expect(inMemory.run.counts.sessions == 3 * 10 + 2)
        let cafe = inMemory.run.findings.filter { $0.sessionID?.hasPrefix("caf") == true }
        #expect(!cafe.contains { $0.rule == .seqDuplicate || $0.rule == .eventIDConflict }, "\(cafe.map(\.rule))")
        for (name, configure) in [
            (
                "partitioned",
                { (c: inout AuditConfiguration) in
                    c.tuning.partitionedInputBytes = 0
                    c.jobs = 2
                }
            ),
            (
                "held, then spilled",
                { (c: inout AuditConfiguration) in
                    c.memoryLimit = 1 << 20
                    c.jobs = 1
                }
            ),
        ] as [(String, (inout AuditConfiguration) -> Void)] {
            let other = try Self.run(paths, configure: configure)
            #expect(other.run.counts.sessions == inMemory.run.counts.sessions, "\(name)")
            let same = other.findings == inMemory.findings
            #expect(same, "\(name)")
        }
        // Pre-grouped, the two sessions one after the other.
        let alone = try Self.run([path])
        let grouped = try Self.run([path]) { $0.preGrouped = true }
        #expect(alone.run.counts.sessions == 2)
        #expect(grouped.run.counts.sessions == 2)
        #expect(grouped.findings == alone.findings)
    }

    @Test func tagGroupsKeepEachGroupsRecordsInOrder() {
        // Tags that collide in the table's slots, a table that grows many times, and groups
        // whose records are spread over the whole partition.
        var random = SeededRandom(seed: 7)
        var distinct: [UInt32] = []
        for value in 0..<UInt32(3000) {
            // Many share their low bits (the table's slot), some differ only in the top bit.
            let spread: UInt32 = value % 7 == 0 ? value << 20 : value * 1024
            distinct.append(spread | UInt32(truncatingIfNeeded: random.next() % 2) << 31)
        }
        var tags: [UInt32] = []
        for _ in 0..<40_000 { tags.append(distinct[Int(random.next() % UInt64(distinct.count))]) }
        let groups = SessionTagGroups(tags)
        var expected: [UInt32: [Int32]] = [:]
        var firstSeen: [UInt32] = []
        for (index, tag) in tags.enumerated() {
            if expected[tag] == nil { firstSeen.append(tag) }
            expected[tag, default: []].append(Int32(index))
        }
        #expect(groups.count == firstSeen.count)
        for (group, tag) in firstSeen.enumerated() {
            #expect(Array(groups.members(of: group)) == expected[tag]!, "group \(group)")
        }
        #expect(SessionTagGroups([]).count == 0)
    }

    @Test func progressCoversReadingAndTheFoldOfEveryPartition() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let paths = try Self.replicatedLogs(copies: 40, in: directory)
        var configuration = AuditConfiguration()
        configuration.memoryLimit = 1 << 20
        configuration.jobs = 2
        nonisolated(unsafe) var snapshots: [ProgressSnapshot] = []
        let lock = NSLock()
        let run = try AuditEngine(configuration: configuration).run(paths: paths) { snapshot in
            lock.lock()
            snapshots.append(snapshot)
            lock.unlock()
        }
        let reading = snapshots.filter { $0.fold == nil }
        let folding = snapshots.compactMap(\.fold)
        #expect(reading.count == paths.count + 1, "one snapshot after each file, one when reading is done")
        #expect(reading.last?.lines == run.counts.lines)
        // Sessions are counted while reading, by the session_id of each line routed to a
        // partition: a line found invalid later may name a session that never folds.
        let seen = try #require(reading.last?.sessions)
        #expect(seen >= run.counts.sessions && seen <= run.counts.sessions + Int(run.counts.invalidLines), "\(seen)")
        let partitions = try #require(folding.first?.partitions)
        #expect(partitions >= 8)
        #expect(folding.filter { $0.sessionsFoldedAgain == 0 }.map(\.partitionsFolded) == Array(1...partitions))
        // The copies share their event ids: every session is folded again, once all are.
        #expect(folding.last?.sessionsFoldedAgain == run.counts.sessions)
        #expect(folding.last?.findings == run.counts.findings - run.invalidFindings.count)
    }

    @Test func preGroupedInputStreamsToTheSameOutput() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let paths = try Self.replicatedLogs(copies: 3, in: directory)
        // Group by session, order by seq, as Spark would deliver the lines.
        var lines: [(String, Int64, String)] = []
        for path in paths {
            for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false) {
                if case .success(let decoded) = EventDecoder().decode(String(line)) {
                    lines.append((decoded.event.sessionID, decoded.event.seq, String(line)))
                }
            }
        }
        lines.sort { ($0.0, $0.1) < ($1.0, $1.1) }
        let grouped = directory.appendingPathComponent("grouped.ndjson").path
        try Data(lines.map { $0.2 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: grouped))
        let normal = try Self.run([grouped])
        let streamed = try Self.run([grouped]) { $0.preGrouped = true }
        #expect(streamed.findings == normal.findings)
        #expect(streamed.summary == normal.summary)
        #expect(streamed.run.inputErrors.isEmpty)
        let written = try Self.streamed([grouped]) { $0.preGrouped = true }
        #expect(written.findings == normal.findings)
        #expect(written.summary == normal.summary)
    }

    @Test func preGroupedInputThatIsNotGroupedIsAnError() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let event = { (session: String, seq: Int) in
            #"{"schema_version":1,"event_id":"\#(session)-\#(seq)","event_name":"screen_view","session_id":"\#(session)","seq":\#(seq),"timestamp":"2026-11-20T10:00:0\#(seq)Z","correlation_id":"c\#(seq)","stack":"onboarding","to_route":null}"#
        }
        let path = directory.appendingPathComponent("mixed.ndjson").path
        try Data([event("a", 0), event("b", 0), event("a", 1)].joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: path))
        let spill = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: spill) }
        // Kept audits, streamed output held in memory, and streamed output in run files (a
        // session met twice is found when the runs are merged back into session order).
        for (streamed, budget) in [(false, nil), (true, nil), (true, 0)] as [(Bool, Int?)] {
            let configure = { (c: inout AuditConfiguration) in
                c.preGrouped = true
                c.tuning.outputBudget = budget
                c.temporaryDirectory = spill.path
            }
            let result = streamed ? try Self.streamed([path], configure: configure) : try Self.run([path], configure: configure)
            #expect(result.run.inputErrors.map(\.code) == [.notGrouped])
            #expect(result.run.inputErrors.first?.message.contains("\"a\" appears again at line 3") == true)
            #expect(result.run.counts.isBalanced)
            #expect(try FileManager.default.contentsOfDirectory(atPath: spill.path).isEmpty, "run files removed")
        }
    }

    /// Every session's events of `logs`, grouped by session and ordered by seq (as Spark
    /// delivers them), in reverse session order: a pre-grouped input in no particular order.
    static func grouped(_ paths: [String], reversed: Bool = false) throws -> String {
        var lines: [(String, Int64, String)] = []
        for path in paths {
            for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") {
                if case .success(let decoded) = EventDecoder().decode(String(line)) {
                    lines.append((decoded.event.sessionID, decoded.event.seq, String(line)))
                }
            }
        }
        lines.sort { reversed ? ($0.0, $1.1) > ($1.0, $0.1) : ($0.0, $0.1) < ($1.0, $1.1) }
        return lines.map { $0.2 + "\n" }.joined()
    }

    @Test func eventIDsSharedAcrossSessionsAreConflictsOnEveryPath() throws {
        // The copies of the sample logs keep their event ids under new session ids: every event
        // of a copy after the first (in session order, c0 first) reuses an id of c0's.
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let spill = try Self.spillDirectory(in: directory)
        let paths = try Self.replicatedLogs(copies: 12, in: directory)
        let inMemory = try Self.run(paths)
        let conflicts = inMemory.run.findings.filter { $0.rule == .eventIDConflict }
        let bySession = Dictionary(grouping: conflicts) { $0.sessionID ?? "" }
        #expect(
            !conflicts.contains { $0.sessionID?.hasPrefix("c0-") == true && $0.message.contains("in session") },
            "the first copy owns every id")
        #expect(bySession.keys.contains { $0.hasPrefix("c11-") })
        let events = inMemory.run.sessions.filter { $0.sessionID.hasPrefix("c1-") }.reduce(0) { $0 + $1.events + $1.duplicates }
        #expect(bySession.filter { $0.key.hasPrefix("c1-") }.values.reduce(0) { $0 + $1.count } >= events, "every event of c1")
        let witness = try #require(bySession.first { $0.key.hasPrefix("c1-") }?.value.first?.message)
        #expect(witness.contains("first seen in session \"c0-"), "\(witness)")

        let grouped = directory.appendingPathComponent("grouped.ndjson").path
        try Data(try Self.grouped(paths, reversed: true).utf8).write(to: URL(fileURLWithPath: grouped))
        let groupedInMemory = try Self.run([grouped])
        for (name, inputs, configure) in [
            (
                "partitioned, mapped", paths,
                { (c: inout AuditConfiguration) in
                    c.tuning.partitionedInputBytes = 0
                    c.jobs = 2
                }
            ),
            (
                "partitioned, copied in shorthand", paths,
                { (c: inout AuditConfiguration) in
                    c.tuning.partitionedInputBytes = 0
                    c.mapsInputs = false
                    c.tuning.shorthandFromBytes = 0
                    c.jobs = 1
                }
            ),
            (
                "held, then spilled, ledger in files", paths,
                { (c: inout AuditConfiguration) in
                    c.memoryLimit = 1 << 20
                    c.jobs = 2
                    c.temporaryDirectory = spill.path
                }
            ),
            ("pre-grouped, in reverse session order", [grouped], { (c: inout AuditConfiguration) in c.preGrouped = true }),
            (
                "partitioned, outputs set aside in a file", paths,
                { (c: inout AuditConfiguration) in
                    c.tuning.partitionedInputBytes = 0
                    c.jobs = 2
                    c.tuning.outputBudget = 0
                    c.temporaryDirectory = spill.path
                }
            ),
            (
                "pre-grouped, outputs set aside in a file", [grouped],
                { (c: inout AuditConfiguration) in
                    c.preGrouped = true
                    c.tuning.outputBudget = 0
                    c.temporaryDirectory = spill.path
                }
            ),
        ] as [(String, [String], (inout AuditConfiguration) -> Void)] {
            let expected = inputs == paths ? inMemory : groupedInMemory
            for streamed in [false, true] {
                let other = streamed ? try Self.streamed(inputs, configure: configure) : try Self.run(inputs, configure: configure)
                let same = (findings: other.findings == expected.findings, summary: other.summary == expected.summary)
                #expect(same.findings, "\(name), streamed \(streamed): findings")
                #expect(same.summary, "\(name), streamed \(streamed): summary")
                #expect(other.run.counts.isBalanced)
            }
        }
        #expect(groupedInMemory.run.findings.filter { $0.rule == .eventIDConflict }.count == conflicts.count)
        #expect(try FileManager.default.contentsOfDirectory(atPath: spill.path).isEmpty, "ledger files removed")
    }

    @Test func onlyTheSessionsThatShareAnIDAreFoldedAgain() throws {
        // Copies with event ids of their own, but for one id that two sessions share.
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        var paths: [String] = []
        for (index, path) in try Self.replicatedLogs(copies: 6, in: directory).enumerated() {
            let text = try String(contentsOfFile: path, encoding: .utf8)
                .replacingOccurrences(of: "\"event_id\":\"", with: "\"event_id\":\"c\(index)-")
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            paths.append(path)
        }
        let shared = directory.appendingPathComponent("shared.ndjson").path
        try Data(
            [
                Self.validEvent.replacingOccurrences(of: "c0-s-clean-onboarding", with: "x-1").replacingOccurrences(
                    of: "e-1", with: "same"),
                Self.validEvent.replacingOccurrences(of: "c0-s-clean-onboarding", with: "x-2").replacingOccurrences(
                    of: "e-1", with: "same"),
            ].joined(separator: "\n").utf8
        ).write(to: URL(fileURLWithPath: shared))
        paths.append(shared)
        let inMemory = try Self.run(paths)
        #expect(inMemory.run.findings.filter { $0.message.contains("first seen in session") }.map(\.sessionID) == ["x-2"])
        for (name, configure) in [
            (
                "mapped",
                { (c: inout AuditConfiguration) in
                    c.tuning.partitionedInputBytes = 0
                    c.jobs = 2
                }
            ),
            ("pre-grouped", { (c: inout AuditConfiguration) in c.preGrouped = true }),
        ] as [(String, (inout AuditConfiguration) -> Void)] {
            var configuration = AuditConfiguration()
            configure(&configuration)
            nonisolated(unsafe) var again = 0
            let run = try AuditEngine(configuration: configuration).run(paths: paths) { snapshot in
                again = max(again, snapshot.fold?.sessionsFoldedAgain ?? 0)
            }
            #expect(FindingWriter.ndjson(run, explain: true) == inMemory.findings, "\(name)")
            if name == "mapped" { #expect(again == 2, "\(name): only x-1 and x-2 are folded again") }
        }
    }

    @Test func aRefoldReadsWhatTheFirstReadingRead() throws {
        // Two sessions share an id, so they are read twice. Between the readings, the log is
        // appended to (a live log): the refold reads only the lines read the first time. Had it
        // been rewritten shorter, the run ends with an error naming it.
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let event = { (session: String, seq: Int, id: String) in
            Self.validEvent.replacingOccurrences(of: "c0-s-clean-onboarding", with: session)
                .replacingOccurrences(of: "e-1", with: id).replacingOccurrences(of: "\"seq\":900", with: "\"seq\":\(seq)")
        }
        let original = [event("x-1", 0, "same"), event("x-2", 0, "same"), event("x-2", 1, "x-2-1")].joined(separator: "\n") + "\n"
        let path = directory.appendingPathComponent("live.ndjson").path
        let expected = try { () throws -> (findings: [UInt8], summary: [UInt8], run: AuditRun) in
            try Data(original.utf8).write(to: URL(fileURLWithPath: path))
            return try Self.run([path])
        }()
        #expect(expected.run.findings.map(\.rule).contains(.eventIDConflict))

        func auditChanging(to changed: String, _ configure: (inout AuditConfiguration) -> Void) throws -> AuditRun {
            try Data(original.utf8).write(to: URL(fileURLWithPath: path))
            var configuration = AuditConfiguration()
            configuration.tuning.partitionedInputBytes = 0  // the sessions fold apart, so a refold reads them again
            configure(&configuration)
            nonisolated(unsafe) var changedOnce = false
            return try AuditEngine(configuration: configuration).run(paths: [path]) { snapshot in
                // The first reading is over when every byte is read; the refold comes after.
                guard !changedOnce, snapshot.bytes >= Int64(original.utf8.count) else { return }
                changedOnce = true
                try? Data(changed.utf8).write(to: URL(fileURLWithPath: path))
            }
        }
        let appended = original + event("x-2", 2, "late") + "\n" + event("x-1", 1, "same") + "\n"
        for (name, configure) in [
            ("mapped", { (c: inout AuditConfiguration) in c.jobs = 2 }),
            (
                "copied",
                { (c: inout AuditConfiguration) in
                    c.mapsInputs = false
                    c.jobs = 1
                }
            ),
        ] as [(String, (inout AuditConfiguration) -> Void)] {
            let run = try auditChanging(to: appended, configure)
            #expect(FindingWriter.ndjson(run, explain: true) == expected.findings, "\(name)")
            #expect(SummaryWriter.json(run) == expected.summary, "\(name)")
            #expect(run.counts.isBalanced, "\(name)")
        }
        // Rewritten: as many lines, other bytes; and fewer lines. (Not mapped: a mapped file
        // that shrinks ends the run in its own way, `MappedInput`.)
        let rewritten = [event("x-1", 0, "same"), event("x-2", 0, "same"), event("x-2", 1, "x-2-10")].joined(separator: "\n") + "\n"
        for changed in [rewritten, event("x-1", 0, "same") + "\n"] {
            #expect {
                _ = try auditChanging(to: changed) { $0.mapsInputs = false }
            } throws: { error in
                guard let error = error as? InputError else { return false }
                return error.path == path && error.message.hasPrefix("changed while it was audited")
            }
        }
    }

    @Test func outputsWaitingForSessionOrderAreSetAsidePastTheBudget() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let spill = try Self.spillDirectory(in: directory)
        let key = SessionKey(model: 0, id: "s")
        func session(_ text: String) -> FoldedSession {
            FoldedSession(key: key, tally: SessionTally(), audit: nil, output: Array(text.utf8))
        }
        var store: OutputStore? = OutputStore(budget: 10, temporaryDirectory: spill.path)
        var first = session("0123456789")  // within the budget: held
        var second = session("second session's findings")
        var third = session("third")
        var empty = session("")
        store?.setAside(&first)
        store?.setAside(&second)
        store?.setAside(&third)
        store?.setAside(&empty)
        #expect(first.stored == nil && first.output.count == 10)
        #expect(second.stored != nil && second.output.isEmpty && third.stored != nil && empty.stored == nil)
        #expect(try second.loadedOutput() == Array("second session's findings".utf8))
        #expect(try third.loadedOutput() == Array("third".utf8))
        #expect(try first.loadedOutput() == Array("0123456789".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: spill.path).count == 1, "one scratch directory")
        (first, second, third, empty, store) = (session(""), session(""), session(""), session(""), nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: spill.path).isEmpty, "removed with the store")

        // A temporary directory that cannot be used: the outputs stay in memory.
        let unusable = OutputStore(budget: 0, temporaryDirectory: directory.appendingPathComponent("missing").path)
        var kept = session("kept")
        unusable.setAside(&kept)
        #expect(kept.stored == nil && kept.output == Array("kept".utf8))
    }

    @Test func inputsThatCannotBeReadTwiceAreCopiedForTheRefold() throws {
        // A FIFO (as standard input) is read once; its sessions that share event ids are read
        // again from a copy, then the copy is removed.
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let spill = try Self.spillDirectory(in: directory)
        let paths = try Self.replicatedLogs(copies: 4, in: directory)
        let text = try Self.grouped(paths)
        let file = directory.appendingPathComponent("grouped.ndjson").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        let fifo = directory.appendingPathComponent("fifo.ndjson").path
        #expect(mkfifo(fifo, 0o600) == 0)
        func throughFIFO(_ configure: @escaping (inout AuditConfiguration) -> Void) throws -> [UInt8] {
            let bytes = Array(text.utf8)
            let writer = DispatchQueue(label: "fifo writer")
            writer.async {
                let descriptor = open(fifo, O_WRONLY)
                _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress!, $0.count) }
                close(descriptor)
            }
            defer { writer.sync {} }
            return try Self.run([fifo]) {
                $0.temporaryDirectory = spill.path
                configure(&$0)
            }.findings
        }
        let expected = try Self.run([file]).findings
        let rename = { (bytes: [UInt8]) in
            String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "fifo.ndjson", with: "grouped.ndjson")
        }
        #expect(String(decoding: expected, as: UTF8.self).contains("event_id.conflict"))
        for (name, configure) in [
            ("pre-grouped", { (c: inout AuditConfiguration) in c.preGrouped = true }),
            (
                "partitioned",
                { (c: inout AuditConfiguration) in
                    c.tuning.partitionedInputBytes = 16 << 10
                    c.tuning.batchBytes = 4 << 10
                }
            ),
        ] as [(String, (inout AuditConfiguration) -> Void)] {
            let same = rename(try throughFIFO(configure)) == String(decoding: expected, as: UTF8.self)
            #expect(same, "\(name)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: spill.path).isEmpty, "the copy is removed")
    }

    @Test func theLedgerFindsSharedIDsInMemoryAndInFiles() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        for budget in [0, 1 << 30] {
            let ledger = EventIDLedger(memoryBudget: budget, temporaryDirectory: directory.path)
            // 20,000 ids, one session each, and id 7 (then id 0, stored as 1) in a second session.
            for id in 0..<UInt64(20_000) { ledger.record(eventIDHash: StableHash.mix(id), session: id % 100) }
            ledger.record(eventIDHash: StableHash.mix(7), session: 1_000)
            ledger.record(eventIDHash: 0, session: 2_000)
            ledger.record(eventIDHash: 0, session: 2_001)
            ledger.record(eventIDHash: 0, session: 2_001)  // twice in one session: that one only
            let sharing = try ledger.sharing(jobs: 2)
            #expect(sharing.sessions == [7, 1_000, 2_000, 2_001], "budget \(budget)")
            #expect(sharing.ids == [StableHash.mix(7), 0], "budget \(budget)")
            ledger.remove()
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        let entry = { (id: UInt64, session: UInt64) in EventIDLedger.Entry(id: id, session: session) }
        #expect(EventIDLedger.sharing([entry(5, 1), entry(5, 1), entry(6, 2)]).isEmpty)
        #expect(EventIDLedger.sharing([entry(5, 1), entry(5, 2), entry(6, 3)]) == EventIDLedger.Sharing(sessions: [1, 2], ids: [5]))
    }
}

/// Streams NDJSON findings with explanations into memory, checking that the unreadable lines
/// come first and once.
final class RecordingFormatter: StreamingFormatter {
    struct Format: SessionFormat {
        func bytes(of audit: SessionAudit, files: [String]) -> [UInt8] { FindingWriter.ndjson(audit.findings, files: files, explain: true) }
    }

    let sessionFormat: any SessionFormat = Format()
    private(set) var output: [UInt8] = []
    private(set) var invalidCalls = 0

    func begin(invalid: [Finding], files: [String]) {
        invalidCalls += 1
        #expect(output.isEmpty, "unreadable lines come first")
        output += FindingWriter.ndjson(invalid, files: files, explain: true)
    }

    func write(_ bytes: [UInt8]) { output += bytes }
}
