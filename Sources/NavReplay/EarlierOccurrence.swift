public import NavEvents
import NavJSON

/// The first occurrence of an event id in an earlier session. CONTRACT §7 (Identity) orders an
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

    /// For whole sessions, given in output order (`session_id` order): for each session that
    /// shares an event id with a session before it, the first occurrence of each such id, keyed
    /// by the id's hash as `SessionAuditOptions.earlierOccurrences` wants it. Sessions that
    /// share nothing are left out. Ids are compared as bytes.
    public static func resolve<Key: Hashable>(_ sessions: [(key: Key, lines: [SessionLine])]) -> [Key: [UInt64: [EarlierOccurrence]]] {
        // First, which id hashes occur in two sessions at least: usually none, and then
        // nothing more is done.
        var firstSession: [PrehashedKey: Int] = [:]
        var shared = Set<UInt64>()
        for (position, session) in sessions.enumerated() {
            // Read in place: a line copied is a dozen references retained and released.
            for index in session.lines.indices {
                let hash = session.lines[index].decoded.eventIDHash
                if let first = firstSession[PrehashedKey(hash)] {
                    if first != position { shared.insert(hash) }
                } else {
                    firstSession[PrehashedKey(hash)] = position
                }
            }
        }
        guard !shared.isEmpty else { return [:] }

        // Then, session by session in order, each shared id's first occurrence in it; the first
        // session to have an id owns it.
        var owners: [UInt64: [EarlierOccurrence]] = [:]
        var result: [Key: [UInt64: [EarlierOccurrence]]] = [:]
        for session in sessions {
            for first in firstOccurrences(in: session.lines, of: shared) {
                let hash = first.decoded.eventIDHash
                let id = first.event.eventID
                if let owner = owners[hash]?.first(where: { $0.eventID.utf8Equals(id) }) {
                    result[session.key, default: [:]][hash, default: []].append(owner)
                } else {
                    let occurrence = EarlierOccurrence(
                        eventID: id, sessionID: first.event.sessionID, reference: EventReference(first.event, at: first.location))
                    owners[hash, default: []].append(occurrence)
                }
            }
        }
        return result
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
