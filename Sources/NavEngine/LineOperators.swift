import NavEvents
import NavJSON
import NavModel
import NavReplay
import NavInput
import NavResults
import NavPartitions

/// `validate`: lines are checked only; every valid one is counted as it is read.
final class CheckOnly: LineOperator {
    var checksOnly: Bool { true }
    func countsAsRead(_ event: DecodedEvent, model: Int) -> Bool { true }
    func take(_ task: DecodeTask, _ outcomes: ParallelResults<LineOutcome>) throws {}
}

/// Groups every valid line by session: decoded lines go to the collector (held, partitioned, or
/// streamed for pre-grouped input), routed ones to their partition as they are (a mapped line by
/// reference, a copied one in shorthand or whole). For a refold, only the sessions it reads.
final class GroupLines: LineOperator {
    private let collector: any SessionCollector
    private let spilling: SpillingCollector?
    private let refolding: RefoldRequest?

    init(collector: any SessionCollector, refolding: RefoldRequest? = nil) {
        self.collector = collector
        spilling = collector as? SpillingCollector
        self.refolding = refolding
    }

    func countsAsRead(_ event: DecodedEvent, model: Int) -> Bool { false }

    func take(_ task: DecodeTask, _ outcomes: ParallelResults<LineOutcome>) throws {
        let batch = task.batch
        let model = task.modelID
        for (index, pending) in batch.lines.enumerated() {
            let location = LineLocation(file: pending.fileID, line: pending.number)
            switch outcomes[index] ?? .overlong {
            case .routed(let sessionHash) where pending.isMapped && SpillPartitions.canReference(length: pending.count):
                try spilling?.addReference(
                    model: model, sessionHash: sessionHash, location: location, offset: pending.start, length: pending.count)
            case .shortened(let sessionHash, let length):
                guard let shorthand = task.shorthand else { continue }
                try spilling?.addShortened(
                    model: model, sessionHash: sessionHash, location: location,
                    short: UnsafeBufferPointer(start: shorthand.bytes + pending.start, count: Int(length)))
            case .routed(let sessionHash):
                try batch.withBytes(of: pending) { raw in
                    try spilling?.addUndecoded(
                        model: model, sessionHash: sessionHash, location: location, unterminated: pending.unterminated, raw: raw)
                }
            case .decoded(.success(let event)):
                if let refolding, !refolding.reads(sessionID: event.event.sessionID, model: model) { continue }
                try batch.withBytes(of: pending) { raw in
                    try collector.add(
                        SessionKey(model: model, id: event.event.sessionID), SessionLine(decoded: event, location: location), raw: raw)
                }
            default: break
            }
        }
    }
}

/// `replay` and `repro`: only one session's lines are held and folded; of the others, only the
/// event ids are kept (`othersLedger`), to find those the session shares.
final class OneSessionLines: LineOperator {
    private let sessionID: String
    private let collector: any SessionCollector
    private let othersLedger: EventIDLedger?

    init(sessionID: String, collector: any SessionCollector, othersLedger: EventIDLedger?) {
        self.sessionID = sessionID
        self.collector = collector
        self.othersLedger = othersLedger
    }

    func countsAsRead(_ event: DecodedEvent, model: Int) -> Bool { !event.event.sessionID.utf8Equals(sessionID) }

    func take(_ task: DecodeTask, _ outcomes: ParallelResults<LineOutcome>) throws {
        let batch = task.batch
        let model = task.modelID
        for (index, pending) in batch.lines.enumerated() {
            guard case .decoded(.success(let event)) = outcomes[index] ?? .overlong else { continue }
            let key = SessionKey(model: model, id: event.event.sessionID)
            if event.event.sessionID.utf8Equals(sessionID) {
                let line = SessionLine(decoded: event, location: LineLocation(file: pending.fileID, line: pending.number))
                try batch.withBytes(of: pending) { raw in try collector.add(key, line, raw: raw) }
            } else {
                othersLedger?.record(eventIDHash: EventIDLedger.idHash(event.eventIDHash, model: model), session: EventIDLedger.hash(key))
            }
        }
    }
}

/// A refold's first pass: the lines of the sessions it reads that may own a shared event id.
final class GatherOwners: LineOperator {
    private let refolding: RefoldRequest

    init(refolding: RefoldRequest) { self.refolding = refolding }

    func countsAsRead(_ event: DecodedEvent, model: Int) -> Bool { false }

    func take(_ task: DecodeTask, _ outcomes: ParallelResults<LineOutcome>) throws {
        let model = task.modelID
        for (index, pending) in task.batch.lines.enumerated() {
            guard case .decoded(.success(let event)) = outcomes[index] ?? .overlong,
                refolding.reads(sessionID: event.event.sessionID, model: model)
            else { continue }
            refolding.gather(SessionLine(decoded: event, location: LineLocation(file: pending.fileID, line: pending.number)), model: model)
        }
    }
}
