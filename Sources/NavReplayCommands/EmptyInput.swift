#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import ArgumentParser
import NavReport
import NavResults
import NavStore

/// `--allow-empty` of `audit` and `validate`: inputs that hold no line (none at all, or only blank
/// lines) are an error unless it is given, so that a CI gate over logs that UI tests never wrote
/// fails instead of passing on nothing.
struct EmptyInputOption: ParsableArguments {
    @Flag(
        help:
            "Accept inputs that hold no line (empty files, or only blank lines): exit 0. Without it they end with exit status 2, so that a CI gate over logs nothing wrote fails."
    )
    var allowEmpty = false

    /// Ends the command with exit status 2, and says why, when every input was read and none
    /// holds a line that is not blank.
    func refuseEmpty(_ run: AuditRun) throws {
        guard !allowEmpty, run.inputErrors.isEmpty, run.counts.lines == run.counts.blankLines else { return }
        let what =
            run.counts.lines == 0
            ? "no line at all" : "only blank lines (\(run.counts.blankLines))"
        let files =
            run.fileReports.prefix(3).map { $0.path == "-" ? "standard input" : safe($0.path) }.joined(separator: ", ")
            + (run.fileReports.count > 3 ? ", …" : "")
        Terminal.writeError(
            "navreplay: error: the input holds \(what): no event was checked (\(run.counts.files) file(s): \(files)). "
                + "Did the app, or its UI tests, write no event? Give --allow-empty to accept an empty input.\n")
        throw ExitCode(2)
    }
}

/// An `ingest` batch whose files are all empty (no byte): exit status 0, and said so.
struct EmptyBatch {
    var files: Int

    /// `nil` unless the batch read files and each is empty.
    init?(_ report: IngestReport) {
        guard report.batch == nil, !report.files.isEmpty, report.inputErrors.isEmpty,
            report.files.allSatisfy({ Self.isEmptyFile($0.path) })
        else { return nil }
        files = report.files.count
    }

    static func isEmptyFile(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG && status.st_size == 0
    }

    /// The text format's output.
    var text: String { "nothing new: the batch holds no line (\(files) empty file(s))\n" }

    /// For standard error, in place of the files "already ingested".
    func summary(_ report: IngestReport, store: String) -> String {
        var report = report
        report.files.removeAll()
        return "navreplay: the batch holds no line: its \(files) file(s) are empty\n" + IngestWriter.summary(report, store: store)
    }
}
