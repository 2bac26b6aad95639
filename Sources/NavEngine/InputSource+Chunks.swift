import Dispatch
import NavEvents
import NavJSON
import NavReplay
import NavInput
import NavResults
import NavPartitions

extension InputSource {
    /// A mapped file read on every core (`ChunkRouter`): with routing on, its chunks are
    /// routed; when validating, their lines are checked. The chunks are handed on here in
    /// file order: their references, their valid lines' count, then their other lines as a
    /// batch's. At most one chunk per core and one more are in flight.
    func readInParallel(_ input: MappedInput, fileID: Int32, modelID: Int, report: inout InputFileReport) throws {
        // Every line before this file is handed on first, and the partitions are made.
        try decode.drain()
        var partitions = 0
        let routes = routing.isOn
        if routes {
            guard let spilling = routing.spilling, let writer = routing.writer else { return }
            try writer.drain()
            partitions = try spilling.routingPartitions()
        }
        input.willRead()
        let target =
            plan.configuration.tuning.routingChunkBytes
            ?? (routes ? ChunkRouter.target(forFileOf: input.bytes.count) : ChunkRouter.validationTarget)
        let ranges = ChunkRouter.chunks(of: input.bytes, target: target)
        if !routes { input.releaseAll() }  // the pages at the chunks' ends, read to find them
        let slots = ranges.map { _ in ChunkSlot() }
        let inFlight = DispatchSemaphore(value: decode.workers + 1)
        let maxLineBytes = plan.configuration.maxLineBytes
        let chunkPartitions = partitions
        // An input read in place is its listed file's: its references go to it if it is the
        // first input met with that file's lines (`adopt`), as located input's do.
        let window = plan.windows[Int(fileID)]
        let inPlace: InPlaceRouting? =
            window == nil ? nil : routing.spilling.map { spilling in InPlaceRouting { spilling.adopt(file: $0, from: input) } }
        let routedFile = window?.file ?? fileID
        let located: LocatedRouting? =
            plan.isLocated && window == nil
            ? routing.spilling.map { spilling in
                LocatedRouting(
                    files: plan.locatedIndex.count, index: plan.locatedIndex, lineOffsets: plan.configuration.locatedLineOffsets,
                    maxLineBytes: maxLineBytes, adopt: { spilling.adopt(file: $0, from: input) })
            } : nil
        DispatchQueue.global().async {
            for (index, range) in ranges.enumerated() {
                inFlight.wait()
                DispatchQueue.global().async {
                    let isLast = index == ranges.count - 1
                    slots[index].fill(
                        routes
                            ? ChunkRouter.route(
                                input, range, isLast: isLast, fileID: routedFile, model: modelID, partitions: chunkPartitions,
                                maxLineBytes: maxLineBytes, located: located, inPlace: inPlace)
                            : ChunkRouter.validate(input, range, isLast: isLast, fileID: fileID, maxLineBytes: maxLineBytes))
                }
            }
        }
        var taken = 0
        defer {
            // After an error, the chunks still in flight are taken, so every worker and
            // the thread handing out chunks finish.
            while taken < slots.count {
                _ = slots[taken].take()
                taken += 1
                inFlight.signal()
            }
        }
        var linesBefore = window?.window.linesBefore ?? 0
        for (index, slot) in slots.enumerated() {
            var chunk = slot.take()
            taken += 1
            inFlight.signal()
            if located == nil { chunk.renumber(after: linesBefore) }
            linesBefore += located == nil ? chunk.lines : chunk.physicalLines
            try handOn(chunk, modelID: modelID, routes: routes, windowFile: window?.file, report: &report)
            if let (line, problem) = chunk.malformed {
                throw InputError(
                    code: .unreadable, path: input.path,
                    message: "line \(linesBefore - chunk.physicalLines + line) is not located input (FILE_INDEX<TAB>LINE<TAB>line): "
                        + problem.describe(files: plan.locatedIndex.count) + "; the rest of the file is not read")
            }
            // Checked and handed on: nothing refers to these pages any more.
            if !routes { input.release(before: ranges[index].upperBound) }
            totals.report(sessions: routing.writer?.sessions ?? 0)
        }
    }

    /// One chunk, in file order: its counts, its references to the partition writer's queue,
    /// and its other lines to the checks, as a decoded batch.
    private func handOn(_ chunk: RoutedChunk, modelID: Int, routes: Bool, windowFile: Int32?, report: inout InputFileReport) throws {
        report.lines += plan.isLocated && windowFile == nil ? chunk.physicalLines : chunk.lines
        if let windowFile {
            totals.locatedReports[Int(windowFile)].lines += chunk.lines
            totals.locatedReports[Int(windowFile)].bytes += chunk.bytes
        }
        for (file, counts) in chunk.locatedCounts {
            totals.locatedReports[Int(file)].lines += counts.lines
            totals.locatedReports[Int(file)].bytes += counts.bytes
        }
        report.bytes += chunk.bytes
        totals.counts.lines += chunk.lines
        totals.counts.blankLines += chunk.blankLines
        totals.counts.events += chunk.validEvents
        totals.tracker.lines += chunk.lines
        totals.tracker.bytes += chunk.bytes
        if routes, let spilling = routing.spilling, let writer = routing.writer {
            writer.submit {
                try spilling.addReferences(chunk)
                return spilling.sessionCount
            }
        }
        if !chunk.outcomes.isEmpty {
            try checks.consume(DecodeTask(batch: chunk.others, modelID: modelID, decoded: chunk.otherOutcomes()))
        }
    }
}
