package import NavReplay
import NavRuns

extension SpillFileWriter {
    /// A record keyed by its place, in the output files' format, so that the same merge
    /// orders it: the key is the location as fixed-width digits (file, then line), which sort
    /// as the location does.
    package func appendLocated(_ record: [UInt8], at location: LineLocation) throws {
        RunRecord.append(key: RunKey(group: 0, label: SpillFileWriter.sortKey(location)), payload: record, to: buffer)
        try flushIfFull()
    }

    package static func sortKey(_ location: LineLocation) -> String {
        func digits(_ value: Int64, _ width: Int) -> String {
            let text = String(max(0, value))
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return digits(Int64(location.file), 10) + ":" + digits(location.line, 19)
    }
}
