import NavEvents
import NavJSON

/// The first occurrence of an event id in an earlier session. docs/events-and-rules.md (Identity) orders an
/// id's occurrences by (`session_id`, `seq`): every occurrence after the first is an
/// `event_id.conflict`, so every occurrence of that id in a later session is one (its
/// `session_id` differs, so its content does).
public struct EarlierOccurrence: Sendable, Hashable {
    public var eventID: String
    public var sessionID: String
    /// The occurrence: the witness of the later sessions' findings.
    public var reference: EventReference

    public init(eventID: String, sessionID: String, reference: EventReference) {
        self.eventID = eventID
        self.sessionID = sessionID
        self.reference = reference
    }

    /// For whole sessions of one app, in any order: the owner of every event id that two of them
    /// share (its first occurrence, in the first session that has it), as
    /// `SessionAuditOptions.earlierOccurrences` wants it. Empty when they share none. Ids are
    /// compared as bytes.
    public static func resolve(_ sessions: [[SessionLine]]) -> [UInt64: [EarlierOccurrence]] {
        // First, which id hashes occur in two sessions at least: usually none, and then
        // nothing more is done.
        var firstSession: [PrehashedKey: Int] = [:]
        var shared = Set<UInt64>()
        for (position, session) in sessions.enumerated() {
            // Read in place: a line copied is a dozen references retained and released.
            for index in session.indices {
                let hash = session[index].decoded.eventIDHash
                if let first = firstSession[PrehashedKey(hash)] {
                    if first != position { shared.insert(hash) }
                } else {
                    firstSession[PrehashedKey(hash)] = position
                }
            }
        }
        guard !shared.isEmpty else { return [:] }

        // Then each session's first occurrence of each shared id is offered; the first session
        // (by its id's bytes) to have an id owns it. An id met in one session only is left out.
        var owners = Owners()
        for session in sessions {
            for first in firstOccurrences(in: session, of: shared) { owners.offer(first) }
        }
        return owners.shared
    }

    /// The owners of one app's event ids, gathered from lines met in any order: for each id,
    /// its first occurrence, in the first session (by the id's bytes) that has it.
    public struct Owners: Sendable {
        private var byHash: [UInt64: [(occurrence: SessionLine, sharedBySessions: Bool)]] = [:]

        public init() {}

        /// Offers a line: it owns its id if its session comes first, then if it comes first in
        /// its session's content order.
        public mutating func offer(_ line: SessionLine) {
            let hash = line.decoded.eventIDHash
            let id = line.event.eventID
            guard let position = byHash[hash]?.firstIndex(where: { $0.occurrence.event.eventID.utf8Equals(id) }) else {
                byHash[hash, default: []].append((line, false))
                return
            }
            let current = byHash[hash]![position].occurrence
            let session = line.event.sessionID
            let currentSession = current.event.sessionID
            if session.utf8Equals(currentSession) {
                if SessionAuditor.precedes(line, current) { byHash[hash]![position].occurrence = line }
            } else {
                byHash[hash]![position].sharedBySessions = true
                if session.utf8Precedes(currentSession) { byHash[hash]![position].occurrence = line }
            }
        }

        /// The owners of the ids offered from two sessions or more.
        public var shared: [UInt64: [EarlierOccurrence]] {
            var result: [UInt64: [EarlierOccurrence]] = [:]
            for (hash, entries) in byHash {
                for entry in entries where entry.sharedBySessions {
                    let first = entry.occurrence
                    result[hash, default: []].append(
                        EarlierOccurrence(
                            eventID: first.event.eventID, sessionID: first.event.sessionID,
                            reference: EventReference(first.event, at: first.location)))
                }
            }
            return result
        }
    }

    /// The first line (in the audit's content order) of each distinct event id whose hash is in
    /// `hashes`.
    static func firstOccurrences(in lines: [SessionLine], of hashes: Set<UInt64>) -> [SessionLine] {
        var firsts: [SessionLine] = []
        var byHash: [UInt64: [Int]] = [:]  // positions in `firsts`
        for index in lines.indices where hashes.contains(lines[index].decoded.eventIDHash) {
            let line = lines[index]
            let hash = line.decoded.eventIDHash
            if let position = byHash[hash]?.first(where: { firsts[$0].event.eventID.utf8Equals(line.event.eventID) }) {
                if SessionAuditor.precedes(line, firsts[position]) { firsts[position] = line }
            } else {
                byHash[hash, default: []].append(firsts.count)
                firsts.append(line)
            }
        }
        return firsts
    }
}
