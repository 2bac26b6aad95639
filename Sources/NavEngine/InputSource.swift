import Dispatch
import NavEvents
import NavJSON
import NavModel
import NavReplay
import NavInput
import NavResults
import NavPartitions

/// What a run reads, fixed before it starts: the inputs in sorted path order (so locations and
/// output never depend on argument order), the files that locations name (with located input,
/// the original files, numbered in sorted order), and each input's model.
struct RunPlan {
    let configuration: AuditConfiguration
    let inputs: [AuditInput]
    let models: [NavigationModel]
    let modelOfPath: [String: Int]
    /// The inputs read, in sorted order.
    let physical: [String]
    /// The files a `LineLocation` indexes.
    let files: [String]
    /// With located input: a line's given file index, as an index into `files`.
    let locatedIndex: [Int32]
    /// With located input: each input read in place (`AuditConfiguration.inputWindows`), by
    /// its index in `physical`: its window and its index in `files`.
    let windows: [(window: InputWindow, file: Int32)?]
    var isLocated: Bool { configuration.locatedPaths != nil }

    init(configuration: AuditConfiguration, inputs: [AuditInput], models: [NavigationModel]) {
        self.configuration = configuration
        self.inputs = inputs
        self.models = models
        var modelOfPath: [String: Int] = [:]
        for input in inputs where modelOfPath[input.path] == nil { modelOfPath[input.path] = input.model }
        self.modelOfPath = modelOfPath
        physical = modelOfPath.keys.sorted { $0.utf8Precedes($1) }
        guard let given = configuration.locatedPaths else {
            files = physical
            locatedIndex = []
            windows = physical.map { _ in nil }
            return
        }
        let sorted = given.sorted { $0.utf8Precedes($1) }
        let position = Dictionary(sorted.enumerated().map { ($1, Int32($0)) }, uniquingKeysWith: { first, _ in first })
        files = sorted
        locatedIndex = given.map { position[$0] ?? 0 }
        windows = physical.map { path in
            guard let window = configuration.inputWindows[path], let file = position[path] else { return nil }
            return (window, file)
        }
    }
}

/// The pipeline's source: reads the inputs in sorted path order and pushes their lines to the
/// decode stage, counting every line once; a mapped file may be read on every core instead, a
/// chunk at a time (`readInParallel`).
final class InputSource {
    let plan: RunPlan
    let totals: RunTotals
    let decode: DecodeStage
    let routing: Routing
    let checks: CheckStage
    /// Sessions met so far, for the progress line.
    let sessions: () -> Int
    /// Copies of the inputs that cannot be read twice, made as they are read, for a refold.
    let inputCopies: InputCopies?
    /// Whether lines checked alone (validate) are read from mapped files on every core.
    let validatesInParallel: Bool
    private(set) var validatedMapped = 0
    private let reader: LineReader
    /// Reads the inputs read in place, whose lines carry no prefix.
    private let windowReader: LineReader
    /// With located input, the current input's answers from the collector (`Adoptions`).
    private var adoptions = Adoptions()

    init(
        plan: RunPlan, totals: RunTotals, decode: DecodeStage, routing: Routing, checks: CheckStage, inputCopies: InputCopies?,
        validatesInParallel: Bool, sessions: @escaping () -> Int
    ) {
        self.plan = plan
        self.totals = totals
        self.decode = decode
        self.routing = routing
        self.checks = checks
        self.inputCopies = inputCopies
        self.validatesInParallel = validatesInParallel
        self.sessions = sessions
        // Located lines carry a prefix of at most 41 bytes on top of the original line.
        reader = LineReader(maxLineBytes: plan.configuration.maxLineBytes + (plan.isLocated ? 64 : 0))
        windowReader = LineReader(maxLineBytes: plan.configuration.maxLineBytes)
        // An input read in place counts its window's bytes where it is mapped (else its size).
        totals.tracker.totalBytes = plan.physical.indices.reduce(0) { total, index in
            guard plan.windows[index] != nil, let mapped = routing.mapped[index] else {
                return total + InputSize.estimate([plan.physical[index]])
            }
            return total + Int64(mapped.bytes.count)
        }
    }

    /// Reads every input, and hands on every line.
    func readAll() throws {
        do {
            for (index, path) in plan.physical.enumerated() { try read(index, path) }
            try decode.drain()
        } catch {
            // The partition writer's jobs in flight hold the partitions: waited for, so that
            // the partitions go with their collector as the error ends the run (an input that
            // changed under a refold left them behind).
            try? routing.writer?.drain()
            throw error
        }
        try routing.writer?.drain()
        totals.tracker.sessions = sessions()  // with the last batch, which was in flight
        totals.progress?(totals.tracker)
    }

    private func read(_ index: Int, _ path: String) throws {
        var report = InputFileReport(path: path)
        let fileID = Int32(index)
        let modelID = plan.modelOfPath[path] ?? 0
        decode.startFile(mapped: routing.mapped[index])
        adoptions = Adoptions()
        let pinned = plan.configuration.firstReads.flatMap { $0.indices.contains(index) ? $0[index] : nil }
        let window = plan.windows[index]
        do {
            do {
                try readLines(index, path, modelID: modelID, report: &report) { line, report in
                    if let pinned, report.lines >= pinned.lines { throw ReadAsFarAsBefore() }
                    try self.take(line, path: path, fileID: fileID, window: window, modelID: modelID, report: &report)
                }
            } catch is ReadAsFarAsBefore {}
            try decode.flush(modelID: modelID)
        } catch let error as InputError where pinned != nil && pinned?.error == nil {
            throw InputError.changedUnderAudit(path, secondReading: "failed: " + error.message)
        } catch let error as InputError {
            // Lines read before the error are still audited.
            try decode.flush(modelID: modelID)
            try decode.drain()
            report.error = error
            totals.counts.unreadableFiles += 1
        }
        if let pinned, pinned.error == nil, report.lines != pinned.lines || report.bytes != pinned.bytes {
            throw InputError.changedUnderAudit(
                path,
                secondReading: "found \(report.lines) lines (\(report.bytes) bytes) where the first found "
                    + "\(pinned.lines) lines (\(pinned.bytes) bytes)")
        }
        totals.reports.append(report)
        totals.tracker.sessions = routing.writer?.sessions ?? sessions()
        totals.progress?(totals.tracker)
    }

    /// Reads one input the way it allows: a mapped file on every core or in place, standard
    /// input copied as it is read, else by path.
    private func readLines(
        _ index: Int, _ path: String, modelID: Int, report: inout InputFileReport,
        _ take: (RawLine, inout InputFileReport) throws -> Void
    ) throws {
        let fileID = Int32(index)
        if validatesInParallel, let input = MappedInput(path: path) {
            validatedMapped += 1
            try readInParallel(input, fileID: fileID, modelID: modelID, report: &report)
        } else if let input = routing.mapped[index], routing.isOn, plan.configuration.tuning.routesInParallel {
            try readInParallel(input, fileID: fileID, modelID: modelID, report: &report)
        } else if let input = routing.mapped[index] {
            _ = try (plan.windows[index] == nil ? reader : windowReader).readLines(of: input) { try take($0, &report) }
        } else if let (window, _) = plan.windows[index] {
            _ = try windowReader.readLines(of: path, window: window) { try take($0, &report) }
        } else if let copy = inputCopies?.descriptor(for: path) {
            _ = try reader.readLines(of: path, copyingTo: copy) { try take($0, &report) }
        } else {
            _ = try reader.readLines(of: plan.configuration.readPaths[path] ?? path) { try take($0, &report) }
        }
    }

    /// One line read: counted (as read, so a file that fails later keeps its count), placed in
    /// its original file with located input (`window` for an input read in place, looked up
    /// once per input), and batched unless it is blank.
    private func take(
        _ physicalLine: RawLine, path: String, fileID physicalID: Int32, window: (window: InputWindow, file: Int32)?, modelID: Int,
        report: inout InputFileReport
    ) throws {
        report.lines += 1
        var line = physicalLine
        var fileID = physicalID
        var referable = true
        if plan.isLocated {
            if let (window, file) = window {
                line.number += window.linesBefore
                fileID = file
                totals.locatedReports[Int(fileID)].lines += 1
                totals.locatedReports[Int(fileID)].bytes += line.inputBytes
            } else {
                fileID = try locate(&line, path: path)
            }
            if let input = routing.mapped[Int(physicalID)], let spilling = routing.spilling {
                referable = adoptions.allows(line, of: fileID) { spilling.adopt(file: $0, from: input) }
            } else {
                referable = false
            }
        }
        totals.counts.lines += 1
        report.bytes += line.inputBytes
        totals.tracker.bytes += line.inputBytes
        totals.tracker.lines += 1
        if totals.tracker.lines % 65_536 == 0 { totals.report(sessions: routing.writer?.sessions ?? sessions()) }
        if line.overlongLength == nil && line.isBlank {
            totals.counts.blankLines += 1
            return
        }
        try decode.append(line, fileID: fileID, modelID: modelID, referable: referable)
    }

    /// Strips a located line's prefix; returns the index of the original file it names.
    private func locate(_ line: inout RawLine, path: String) throws -> Int32 {
        let number = line.number
        let files = plan.locatedIndex.count
        switch LocatedLine.split(&line, files: files, maxLineBytes: plan.configuration.maxLineBytes) {
        case .success(let place):
            if let offsets = plan.configuration.locatedLineOffsets { line.number += offsets[place.file] }
            let fileID = plan.locatedIndex[place.file]
            totals.locatedReports[Int(fileID)].lines += 1
            totals.locatedReports[Int(fileID)].bytes += line.inputBytes
            return fileID
        case .failure(let malformed):
            throw InputError(
                code: .unreadable, path: path,
                message: "line \(number) is not located input (FILE_INDEX<TAB>LINE<TAB>line): "
                    + malformed.describe(files: files) + "; the rest of the file is not read")
        }
    }
}

/// Ends a refold's reading of an input where the first reading ended (`firstReads`).
struct ReadAsFarAsBefore: Error {}

extension InputError {
    /// An input that a refold (`firstReads`) could not read as the first reading did: the
    /// audit's results would mix two versions of it, so it ends the run.
    static func changedUnderAudit(_ path: String, secondReading: String) -> InputError {
        InputError(
            code: .unreadable, path: path,
            message: "changed while it was audited: sessions that share event ids are read twice, and the second reading "
                + secondReading)
    }
}
