public import NavReplay
public import NavResults

/// `audit --format text` as the sessions fold: one group of findings per session, the
/// unreadable lines' first, a blank line between groups.
public final class TextFindingsStream: StreamingFormatter {
    struct Format: SessionFormat {
        let style: TextStyle
        func bytes(of audit: SessionAudit, files: [String]) -> [UInt8] {
            Array(TextWriter.group(audit.findings, files: files, style: style).utf8)
        }
    }

    public let sessionFormat: any SessionFormat
    private let style: TextStyle
    private let output: any OrderedOutput
    private var wroteGroup = false

    public init(style: TextStyle, to output: any OrderedOutput) {
        sessionFormat = Format(style: style)
        self.style = style
        self.output = output
    }

    public func begin(invalid: [Finding], files: [String]) throws {
        try write(Array(TextWriter.group(invalid, files: files, style: style).utf8))
    }

    public func write(_ bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { return }
        if wroteGroup { try output.write([0x0A]) }
        wroteGroup = true
        try output.write(bytes)
    }

    /// Once the run is done: says so when nothing was found.
    public func finish() throws {
        if !wroteGroup { try output.write(Array(TextWriter.noFindings.utf8)) }
    }
}

/// `audit --format ndjson` as the sessions fold: one finding a line.
public final class NDJSONFindingsStream: StreamingFormatter {
    struct Format: SessionFormat {
        let explain: Bool
        func bytes(of audit: SessionAudit, files: [String]) -> [UInt8] {
            FindingWriter.ndjson(audit.findings, files: files, explain: explain)
        }
    }

    public let sessionFormat: any SessionFormat
    private let explain: Bool
    private let output: any OrderedOutput

    public init(explain: Bool, to output: any OrderedOutput) {
        sessionFormat = Format(explain: explain)
        self.explain = explain
        self.output = output
    }

    public func begin(invalid: [Finding], files: [String]) throws {
        try output.write(FindingWriter.ndjson(invalid, files: files, explain: explain))
    }

    public func write(_ bytes: [UInt8]) throws { try output.write(bytes) }
}

/// `sessions` as the sessions fold: one record per session, in NDJSON, CSV (after its header),
/// text, or one JSON array around the records.
public final class SessionRecordStream: StreamingFormatter {
    public enum Kind: Sendable { case ndjson, json, csv, text }

    struct Format: SessionFormat {
        let kind: Kind
        let style: TextStyle
        func bytes(of audit: SessionAudit, files: [String]) -> [UInt8] {
            switch kind {
            case .csv: SessionWriter.csvRow(audit)
            case .json: SessionWriter.jsonRecord(audit)
            case .text: Array(SessionWriter.textLines(audit, style: style).utf8)
            case .ndjson: SessionWriter.ndjsonLine(audit)
            }
        }
    }

    public let sessionFormat: any SessionFormat
    private let kind: Kind
    private let output: any OrderedOutput
    private var written = 0

    /// Writes the CSV header at once.
    public init(_ kind: Kind, style: TextStyle, to output: any OrderedOutput) throws {
        sessionFormat = Format(kind: kind, style: style)
        self.kind = kind
        self.output = output
        if kind == .csv { try output.write(SessionWriter.csvHeader) }
    }

    public func begin(invalid: [Finding], files: [String]) {}

    public func write(_ bytes: [UInt8]) throws {
        if kind == .json { try output.write(written == 0 ? [UInt8(ascii: "[")] : [UInt8(ascii: ",")]) }
        try output.write(bytes)
        written += 1
    }

    /// Once the run is done: closes the JSON array; text with no session is one empty line.
    public func finish() throws {
        if kind == .json { try output.write(Array((written == 0 ? "[]\n" : "]\n").utf8)) }
        if kind == .text && written == 0 { try output.write([0x0A]) }
    }
}
