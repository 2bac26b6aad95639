#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import NavEvents
import NavJSON
import NavModel
import NavReplay
import NavResults
import NavRuns
import NavInput
import NavPartitions

/// One session too large to hold in memory, audited from disk with what a held session's audit
/// finds (`SessionAuditor`), in memory that does not grow with its events.
///
/// Its lines are sorted on disk into the audit's content order (`SortedRecords`). One pass over
/// them in that order finds what a held session finds with tables of every line: a redelivery is
/// the line before it again (identical lines sort together), a `seq.duplicate` comes after the
/// line that won its seq; it numbers the lines left, keeps them in a file in that order, and sorts
/// each one's event id, and each folded one's correlation id, on disk. A pass over each sorted
/// text finds the `event_id.conflict`s (every occurrence after an id's first) and the last event
/// of each correlation group; both are sorted back into content order. The fold then reads the
/// three files side by side, one line at a time (`SessionFolding`).
///
/// With `recordSteps`, the audit keeps no step: its `stepWalk` folds the files again and hands
/// each step on as it folds (`forEachStep`); the files stay until the last copy of the audit goes.
/// They live in a scratch directory of the session's own, removed on a signal as every spill is.
final class LongSession: LongSessionLines {
    let key: SessionKey
    private let model: NavigationModel
    private let files: ScratchFileSet
    private let budget: Int
    private var contents: SortedRecords?
    private let strings = StringCache()

    // The files a fold reads, side by side.
    private static let orderedFile = 0
    private static let marksFile = 1
    /// The numbers of each sorter's runs (its kept runs and a spare).
    private static let runsPerSorter = SortedRecords.keptRuns + 1
    private static func runs(_ sorter: Int) -> Range<Int> { (2 + runsPerSorter * sorter)..<(2 + runsPerSorter * (sorter + 1)) }

    /// `budget`: the bytes its sorters may hold in memory.
    init(key: SessionKey, model: NavigationModel, budget: Int, temporaryDirectory: String?) throws {
        self.key = key
        self.model = model
        self.budget = max(1, budget)
        files = try ScratchFileSet(in: temporaryDirectory, count: 2 + Self.runsPerSorter * 4, kinds: ["part-"])
        contents = SortedRecords(files: files, numbers: Self.runs(0), budget: self.budget, precedes: LongSessionRecords.Content.precedes)
    }

    /// How many lines were added.
    private(set) var lineCount = 0

    /// Takes one line of the session, in any order.
    func add(_ line: SessionLine) throws {
        guard let contents else { preconditionFailure("a long session's lines are all added before it is audited") }
        try contents.append { LongSessionRecords.Content.encode(line, into: $0) }
        lineCount += 1
    }

    /// What the first pass counts.
    private struct Counts {
        var redeliveries = 0
        var duplicates = 0
        var lines: Int64 = 0
        /// The content position of the last line folded (not a duplicate), if any.
        var lastFolded: Int64?
    }

    private var counts = Counts()
    private var prepared = false

    /// Sorts the lines and makes the files the fold reads (once).
    private func prepare() throws {
        guard !prepared, let contents else { return }
        prepared = true
        self.contents = nil
        let ids = sorter(1, budget / 4, LongSessionRecords.Occurrence.precedes)
        let groups = sorter(2, budget / 4, LongSessionRecords.Occurrence.precedes)
        let ordered = try SpillFileWriter(path: files.path("part-", Self.orderedFile), bufferBytes: 1 << 16)
        defer { ordered.discard() }
        var previousIdentity: UInt64?
        var winnerSeq: Int64?
        try contents.drain { record in
            let (identity, encoded) = try LongSessionRecords.Content.parts(record)
            // Identical lines sort together: a redelivery is the line before it again.
            if identity == previousIdentity {
                counts.redeliveries += 1
                return
            }
            previousIdentity = identity
            let line = try LongSessionRecords.decodeLine(encoded, strings: strings)
            let event = line.decoded.event
            let position = counts.lines
            counts.lines += 1
            try ids.append {
                LongSessionRecords.Occurrence.encode(
                    hash: line.decoded.eventIDHash, text: event.eventID, position: position,
                    witness: EventReference(event, at: line.location), into: $0)
            }
            let duplicate = winnerSeq == event.seq
            if duplicate {
                counts.duplicates += 1
            } else {
                winnerSeq = event.seq
                counts.lastFolded = position
                try groups.append {
                    LongSessionRecords.Occurrence.encode(
                        hash: line.decoded.correlationIDHash, text: event.correlationID, position: position, witness: nil, into: $0)
                }
            }
            let buffer = ordered.buffer
            buffer.append(UInt32(encoded.count + 1))
            buffer.append(UInt8(duplicate ? 1 : 0))
            buffer.append(UnsafeRawBufferPointer(encoded))
            try ordered.flushIfFull()
        }
        try ordered.close()
        let marks = sorter(3, budget / 2, LongSessionRecords.Mark.precedes)
        // Every occurrence of an event id after its first is a conflict, the first's line its
        // witness; the first is marked, for the audits that know earlier sessions' ids.
        var first: LongSessionRecords.Occurrence?
        try ids.drain { record in
            let position = record.int64(at: 8)
            if let owner = first, owner.sameText(as: record) {
                try marks.append { LongSessionRecords.Mark.encode(position: position, kind: .conflict, witness: owner.witness, into: $0) }
                return
            }
            first = try LongSessionRecords.Occurrence.decode(record)
            try marks.append { LongSessionRecords.Mark.encode(position: position, kind: .firstOfItsID, witness: nil, into: $0) }
        }
        // The last folded event of each correlation group ends it.
        var last: LongSessionRecords.Occurrence?
        func endGroup(_ occurrence: LongSessionRecords.Occurrence?) throws {
            guard let occurrence else { return }
            try marks.append { LongSessionRecords.Mark.encode(position: occurrence.position, kind: .endsGroup, witness: nil, into: $0) }
        }
        try groups.drain { record in
            if let previous = last, previous.sameText(as: record) {
                last?.position = record.int64(at: 8)
                return
            }
            try endGroup(last)
            last = try LongSessionRecords.Occurrence.decode(record)
        }
        try endGroup(last)
        let writer = try SpillFileWriter(path: files.path("part-", Self.marksFile), bufferBytes: 1 << 16)
        defer { writer.discard() }
        try marks.drain { record in
            writer.buffer.append(UInt32(record.count))
            writer.buffer.append(UnsafeRawBufferPointer(record))
            try writer.flushIfFull()
        }
        try writer.close()
    }

    private func sorter(_ number: Int, _ budget: Int, _ precedes: @escaping SortedRecords.Precedes) -> SortedRecords {
        SortedRecords(files: files, numbers: Self.runs(number), budget: max(1, budget), precedes: precedes)
    }

    /// The session's audit (a refold asks for two: without the owners of shared event ids, and
    /// with them).
    func audit(options: SessionAuditOptions) throws -> SessionAudit {
        try prepare()
        var foldOptions = options
        foldOptions.recordSteps = false
        var folding = SessionFolding(sessionID: key.id, model: model, options: foldOptions)
        var pastUntil = 0
        try fold(options: options) { line, early, endsGroup in
            folding.add(contentsOf: early)
            guard let line else { return }
            if let until = options.untilSeq, line.decoded.event.seq > until {
                pastUntil += 1
                return
            }
            folding.fold(line.decoded.event, at: line.location, contentIdentity: line.decoded.contentIdentity, endsGroup: endsGroup)
        }
        var audit = folding.finish(redeliveries: counts.redeliveries, duplicates: counts.duplicates, eventsPastUntil: pastUntil)
        if options.recordSteps { audit.stepWalk = Walk(session: self, options: options) }
        return audit
    }

    /// Reads the files side by side: each line in content order with the findings found before
    /// the fold (its conflict, and its `seq.duplicate`: then `line` is nil, the line set aside,
    /// handed to `unfolded`) and whether it ends its correlation group.
    private func fold(
        options: SessionAuditOptions, unfolded: ((UnfoldedLine) throws -> Void)? = nil,
        _ body: (_ line: SessionLine?, _ early: [Finding], _ endsGroup: Bool) throws -> Void
    ) throws {
        let ordered = try FramedRecordReader(path: files.path("part-", Self.orderedFile), bufferBytes: 1 << 16)
        let marks = try FramedRecordReader(path: files.path("part-", Self.marksFile), bufferBytes: 1 << 16)
        defer {
            ordered.close()
            marks.close()
        }
        var mark = try marks.next(LongSessionRecords.Mark.decode)
        var winner: EventReference?
        var position: Int64 = 0
        let strings = StringCache()
        let open = options.openSessions.contains(key.id)
        while let entry = try ordered.next({ bytes -> (duplicate: Bool, line: SessionLine) in
            guard let form = bytes.first, form <= 1 else { throw FieldReader.corruptRecord }
            return (form == 1, try LongSessionRecords.decodeLine(UnsafeBufferPointer(rebasing: bytes.dropFirst()), strings: strings))
        }) {
            let (duplicate, line) = entry
            var early: [Finding] = []
            var endsGroup = false
            while let current = mark, current.position == position {
                switch current.kind {
                case .conflict:
                    guard let witness = current.witness else { throw FieldReader.corruptRecord }
                    early.append(SessionAuditor.conflict(line, sessionID: key.id, first: witness))
                case .firstOfItsID:
                    if let finding = SessionAuditor.conflictWithEarlierSession(line, sessionID: key.id, options: options) {
                        early.append(finding)
                    }
                case .endsGroup: endsGroup = !(open && position == counts.lastFolded)
                }
                mark = try marks.next(LongSessionRecords.Mark.decode)
            }
            if let current = mark, current.position < position { throw FieldReader.corruptRecord }
            position += 1
            if duplicate {
                guard let winner else { throw FieldReader.corruptRecord }
                early.append(SessionAuditor.seqDuplicate(line, sessionID: key.id, winner: winner))
                try body(nil, early, false)
                if let unfolded, options.untilSeq.map({ line.decoded.event.seq <= $0 }) ?? true {
                    try unfolded(UnfoldedLine(event: line.decoded.event, location: line.location, findings: early))
                }
                continue
            }
            winner = EventReference(line.decoded.event, at: line.location)
            try body(line, early, endsGroup)
        }
        guard position == counts.lines, mark == nil else { throw FieldReader.corruptRecord }
    }

    /// The steps of the session, folded again from its files.
    private final class Walk: StepWalk, @unchecked Sendable {
        // @unchecked: a walk reads its session's files only (one walk at a time per audit copy's
        // user; the files are never written after `prepare`).
        let session: LongSession
        let options: SessionAuditOptions

        init(session: LongSession, options: SessionAuditOptions) {
            self.session = session
            self.options = options
        }

        func walk(
            _ step: (ReplayStep, StepStates.Cursor) throws -> Void, unfolded: ((UnfoldedLine) throws -> Void)?
        ) throws {
            var foldOptions = options
            foldOptions.recordSteps = false
            var folding = SessionFolding(sessionID: session.key.id, model: session.model, options: foldOptions, rollingSteps: true)
            try session.fold(options: options, unfolded: unfolded) { line, early, endsGroup in
                folding.add(contentsOf: early)
                guard let line, options.untilSeq.map({ line.decoded.event.seq <= $0 }) ?? true else { return }
                let folded = folding.fold(
                    line.decoded.event, at: line.location, contentIdentity: line.decoded.contentIdentity, endsGroup: endsGroup,
                    earlyFindings: early)
                if let folded { try step(folded, folding.lastStep) }
            }
        }
    }

    deinit { files.remove() }
}
