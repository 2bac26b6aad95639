#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import NavInput
import NavPartitions
import NavResults
import NavReplay
import NavRuns

extension RunsCheck {
    /// `SpillOutputReader` against `NaiveRecord`: the same records, or an error where the bytes
    /// do not end at a record's end; the records written again are the same bytes (when every
    /// label is UTF-8); a merge of two readers of the file gives every record of both.
    static func checkRunRecords(_ body: [UInt8], parameter: UInt8, in scratch: ScratchSpace) -> [String] {
        let path = scratch.file("input")
        guard scratch.store(body, to: path) else { return ["cannot write the input file"] }
        let expected = NaiveRecord.parse(body)
        var records: [(key: RunKey, payload: [UInt8])] = []
        var failure: (any Error)?
        do {
            // A small buffer, so that records cross its refills.
            let reader = try SpillOutputReader(path: path, bufferBytes: 1 + Int(parameter % 64))
            defer { reader.close() }
            while let record = try reader.next() {
                records.append((record.key, record.output))
                if records.count > body.count / 12 + 1 { return ["the reader gives more records than the bytes hold"] }
            }
        } catch {
            failure = error
        }
        guard let expected else { return failure == nil ? ["a truncated run file was read without an error"] : [] }
        if let failure { return ["an intact run file was refused: \(failure)"] }
        var violations: [String] = []
        let read = records.map {
            NaiveRecord(label: Array($0.key.label.utf8), group: Int32(truncatingIfNeeded: $0.key.group), payload: $0.payload)
        }
        let labelsAreUTF8 = expected.allSatisfy { String(validating: $0.label, as: UTF8.self) != nil }
        if labelsAreUTF8 ? read != expected : read.count != expected.count {
            violations.append("the reader gave other records than the file holds")
        }
        if labelsAreUTF8, NaiveRecord.encode(records) != body { violations.append("the records written again are other bytes") }
        // A merge of two readers of one file: each record twice, and nothing else.
        do {
            let readers = [try SpillOutputReader(path: path, bufferBytes: 64), try SpillOutputReader(path: path, bufferBytes: 4096)]
            defer { for reader in readers { reader.close() } }
            var merged = 0
            try SpillOutputReader.merge(readers) { _, _ in merged += 1 }
            if merged != 2 * expected.count { violations.append("a merge of two readers gave \(merged) records of \(2 * expected.count)") }
        } catch {
            violations.append("a merge of an intact run file failed: \(error)")
        }
        return violations
    }

    /// Pre-grouped sessions' run files (`SortedRunFiles` of `SessionRuns.Record`): a run file
    /// replaced by the input merges into records or ends with an error, and a truncated one
    /// is an error.
    static func checkSessionRuns(_ body: [UInt8], in scratch: ScratchSpace) -> [String] {
        let runs = SortedRunFiles<SessionRuns.Record>(temporaryDirectory: scratch.path)
        defer { runs.remove() }
        let record = SessionRuns.Record(
            key: SessionKey(group: 0, label: "s"), start: LineLocation(file: 0, line: 1), tally: SessionTally(), output: [0x41])
        do {
            try runs.write(sorted: [record])
        } catch {
            return ["cannot write a run: \(error)"]
        }
        guard let directory = runs.directory, scratch.store(body, to: directory + "/part-0") else { return ["cannot replace the run file"] }
        let framed = NaiveRecord.parse(body)
        var merged = 0
        do {
            try runs.merge { _ in merged += 1 }
        } catch {
            return []
        }
        guard let framed else { return ["a truncated run file of sessions was merged without an error"] }
        return merged == framed.count ? [] : ["\(merged) sessions merged from \(framed.count) records"]
    }

    /// The report's label counts (`SpillingCounter`), spilled to a run file replaced by the
    /// input: counts, or an error; a truncated file or a count of other than 8 bytes is an error.
    static func checkCounter(_ body: [UInt8], parameter: UInt8, in scratch: ScratchSpace) -> [String] {
        let base = scratch.file("counter")
        mkdir(base, 0o700)
        let counter = SpillingCounter(budgetBytes: 0, temporaryDirectory: base)
        counter.add("a", group: 0)
        guard let directory = ScratchSpace.onlyDirectory(in: base), scratch.store(body, to: directory + "/part-0") else {
            return ["the counter wrote no run file"]
        }
        let framed = NaiveRecord.parse(body)
        let limits = Dictionary(uniqueKeysWithValues: (0..<4).map { ($0, Int(parameter % 8)) })
        do {
            let top = try counter.top(limits)
            guard let framed, framed.allSatisfy({ $0.payload.count == 8 }) else {
                return ["a counts file that does not decode was merged without an error"]
            }
            for (group, entries) in top where entries.count > limits[group] ?? 0 {
                return ["group \(group) kept \(entries.count) counts past its limit"]
            }
        } catch {
            if let framed, framed.allSatisfy({ $0.payload.count == 8 }) { return ["an intact counts file was refused: \(error)"] }
        }
        return []
    }

    /// Output set aside for session order (`OutputStore`), its file cut short: each place wholly
    /// inside what is left reads back as written, any other is an error.
    static func checkOutputStore(_ body: [UInt8], parameter: UInt8, in scratch: ScratchSpace) -> [String] {
        let base = scratch.file("store")
        mkdir(base, 0o700)
        let store = OutputStore(budget: 0, temporaryDirectory: base)
        // The input cut into outputs of 1 to 16 bytes.
        var sessions: [FoldedSession] = []
        var offset = 0
        while offset < body.count, sessions.count < 64 {
            let count = min(body.count - offset, Int(body[offset] % 16) + 1)
            var session = FoldedSession(
                key: SessionKey(group: 0, label: "s\(sessions.count)"), tally: SessionTally(), audit: nil,
                output: Array(body[offset..<(offset + count)]))
            store.setAside(&session)
            sessions.append(session)
            offset += count
        }
        guard !sessions.isEmpty else { return [] }
        guard let directory = ScratchSpace.onlyDirectory(in: base) else { return ["the store made no file"] }
        let kept = offset * Int(parameter) / 255
        guard truncate(directory + "/out-0", off_t(kept)) == 0 else { return ["cannot cut the store's file"] }
        var violations: [String] = []
        var start = 0
        for session in sessions {
            let count = session.stored?.place.count ?? session.output.count
            let expected = Array(body[start..<(start + count)])
            start += count
            do {
                let output = try session.loadedOutput()
                if output != expected { violations.append("an output read back is not what was set aside") }
                if start > kept { violations.append("an output past the file's end was read without an error") }
            } catch {
                if start <= kept { violations.append("an output inside the file was refused: \(error)") }
            }
        }
        return violations
    }
}
