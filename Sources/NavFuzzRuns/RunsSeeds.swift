#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import NavEvents
import NavInput
import NavPartitions
import NavReplay
import NavResults
import NavRuns

/// The `runs` target's seeds: files of each on-disk form as the engine's writers make them,
/// each behind its reader's byte and a parameter byte (`RunsCheck`). `navreplay-fuzz-runs
/// --write-seeds DIR` writes them; `Tests/Fixtures/fuzz/runs` holds them.
public enum RunsSeeds {
    /// Event lines of two sessions: every event name, route parameters, a snapshot (an event
    /// without a binary form), and a line that is not an event. Also the mapped input that
    /// form 4 references point into.
    static let lines: [String] = [
        #"{"schema_version":1,"event_id":"e0","event_name":"session_start","session_id":"s1","seq":0,"timestamp":"2026-11-26T12:00:00.000Z","correlation_id":"c0","app_version":"3.2.0","platform":"ios"}"#,
        #"{"schema_version":1,"event_id":"e1","event_name":"route_push","session_id":"s1","seq":1,"timestamp":"2026-11-26T12:00:01.5Z","correlation_id":"c1","app_version":"3.2.0","stack":"tab1","from_route":null,"to_route":"detail","route_params":{"id":"7","n":1.5,"b":true,"z":null}}"#,
        #"{"schema_version":1,"event_id":"e2","event_name":"route_pop","session_id":"s1","seq":2,"timestamp":"2026-11-26T12:00:02Z","correlation_id":"c2","app_version":"3.2.0","stack":"tab1","from_route":"detail","to_route":null,"count":1}"#,
        #"{"schema_version":1,"event_id":"e3","event_name":"modal_present","session_id":"s1","seq":3,"timestamp":"2026-11-26T12:00:03Z","correlation_id":"c3","app_version":"3.2.0","modal":"paywall","style":"sheet"}"#,
        #"{"schema_version":1,"event_id":"e4","event_name":"screen_view","session_id":"s1","seq":4,"timestamp":"2026-11-26T12:00:04Z","correlation_id":"c4","app_version":"3.2.0","modal":"paywall"}"#,
        #"{"schema_version":1,"event_id":"e5","event_name":"deep_link","session_id":"s1","seq":5,"timestamp":"2026-11-26T12:00:05Z","correlation_id":"c5","app_version":"3.2.0","url":"poc://tab2/post/42","outcome":"resolved"}"#,
        #"{"schema_version":1,"event_id":"f0","event_name":"session_start","session_id":"s2","seq":0,"timestamp":"2026-11-26T12:05:01.633Z","correlation_id":"d0","app_version":"3.2.0","snapshot":{"flow":"authorized","tab":"tab1","stacks":{"tab1":["detail"]},"modals":[]}}"#,
        #"{"schema_version":1,"event_id":"f1","event_name":"command_applied","session_id":"s2","seq":1,"timestamp":"2026-11-26T12:05:02Z","correlation_id":"d1","app_version":"3.2.0","command":"logoutToOnboarding","from_flow":"authorized","to_flow":"onboarding"}"#,
        #"{"schema_version":1,"event_id":"f2","event_name":"tab_switch","session_id":"s2","seq":2,"timestamp":"2026-11-26T12:05:03Z","correlation_id":"d2","app_version":"3.2.0","from_tab":"tab1","to_tab":"tab2"}"#,
        #"{"schema_version":1,"event_id":"f3","event_name":"route_insert","session_id":"s2","seq":3,"timestamp":"2026-11-26T12:05:04Z","correlation_id":"d3","app_version":"3.2.0","stack":"tab2","to_route":"list","index":0}"#,
        #"{"schema_version":1,"event_id":"f4","event_name":"route_pop","session_id":"s2","seq":4,"timestamp":"2026-11-26T12:05:04Z","correlation_id":"d3","app_version":"3.2.0","stack":"tab2","from_route":"list","to_route":null,"to_root":true"#,
    ]

    static var mappedText: [UInt8] { Array(lines.joined(separator: "\n").utf8) + [0x0A] }

    /// Every seed, by name.
    public static func all() throws -> [(name: String, bytes: [UInt8])] {
        var seeds: [(String, [UInt8])] = []
        func add(_ reader: RunsCheck.Reader, _ name: String, parameter: UInt8 = 0, _ body: [UInt8]) {
            seeds.append(("\(reader)-\(name)", [RunsCheck.selector(of: reader), parameter] + body))
        }
        let decoded = lines.compactMap { line -> DecodedEvent? in
            if case .success(let event) = EventDecoder().decode(line) { return event }
            return nil
        }
        let records = NaiveRecord.encode([
            (RunKey(group: 0, label: "s1"), Array("{\"a\":1}\n".utf8)), (RunKey(group: 1, label: "s1"), []),
            (RunKey(group: 0, label: "séance"), [0, 1, 2, 255]),
        ])
        add(.runRecords, "three", parameter: 5, records)
        add(.runRecords, "empty", [])
        for form in PartitionForm.allCases {
            add(.partition, "\(form)", parameter: 1, try partitionFile(decoded, form: form))
        }
        add(.partition, "undecoded-no-quarantine", parameter: 0, try partitionFile(decoded, form: .undecoded))
        for (index, event) in decoded.enumerated() {
            let buffer = ByteBuffer(capacity: 512)
            if SpillCodec.encode(event.event, into: buffer) { add(.spillCodec, "event-\(index)", Array(buffer.bytes)) }
        }
        for (index, line) in lines.prefix(3).enumerated() {
            let bytes = Array(line.utf8)
            var short = [UInt8](repeating: 0, count: bytes.count)
            if let length = bytes.withUnsafeBufferPointer({ LineShorthand.shorten($0, into: &short) }) {
                add(.shorthand, "line-\(index)", Array(short.prefix(length)))
            }
        }
        add(.sessionRuns, "three", try sessionRunFile())
        add(.counter, "three", parameter: 3, try counterRunFile())
        var ledger: [UInt8] = []
        for (id, session) in [(UInt64(1), UInt64(7)), (2, 7), (1, 9), (0, 3)] {
            for word in [id, session] { withUnsafeBytes(of: word.littleEndian) { ledger += $0 } }
        }
        add(.ledger, "shared-id", parameter: 0, ledger)
        add(.ledger, "other-bucket", parameter: 5, ledger)
        add(.outputStore, "half", parameter: 128, Array(lines[1].utf8))
        add(.outputStore, "whole", parameter: 255, Array(lines[2].utf8))
        return seeds
    }

    /// The records of a partition, by how its lines are kept.
    enum PartitionForm: CaseIterable {
        /// Decoded lines: in binary (form 1), as JSON for an event with a snapshot (form 0).
        case decoded
        /// Lines routed undecoded, ended and not (forms 2 and 3).
        case undecoded
        /// Lines in shorthand (form 5).
        case shorthand
        /// References into the mapped input (form 4).
        case reference
    }

    /// A partition of a few lines of one form (small, so that the fuzzer runs it fast).
    static func partitionFile(_ decoded: [DecodedEvent], form: PartitionForm) throws -> [UInt8] {
        try withTemporaryDirectory { directory in
            let partitions = try SpillPartitions(count: 1, directory: directory, bufferBytes: 1 << 16)
            defer { partitions.remove() }
            let picked = [0, 1, 6, 10]  // a start, route parameters, a snapshot, a line that is not an event
            switch form {
            case .decoded:
                for index in picked where decoded.indices.contains(index) {
                    let event = decoded[index]
                    let line = SessionLine(decoded: event, location: LineLocation(file: 0, line: Int64(index + 1)))
                    try partitions.write(key: SessionKey(model: 0, id: event.event.sessionID), line: line, raw: nil)
                }
            case .undecoded, .shorthand:
                for index in picked {
                    let bytes = Array(lines[index].utf8)
                    let location = LineLocation(file: 1, line: Int64(index + 1))
                    try bytes.withUnsafeBufferPointer { raw in
                        guard form == .shorthand else {
                            return try partitions.writeUndecoded(
                                sessionHash: 1, model: 0, location: location, unterminated: index == lines.count - 1, raw: raw)
                        }
                        var short = [UInt8](repeating: 0, count: bytes.count)
                        guard let length = LineShorthand.shorten(raw, into: &short) else { return }
                        try short.prefix(length).withUnsafeBufferPointer {
                            try partitions.writeShortened(
                                sessionHash: 1, model: 0, location: location, short: UnsafeBufferPointer(rebasing: $0[...]))
                        }
                    }
                }
            case .reference:
                var offset = 0
                for (index, line) in lines.enumerated() {
                    if picked.contains(index) {
                        try partitions.writeReference(
                            sessionHash: 1, model: 0, location: LineLocation(file: 0, line: Int64(index + 1)), offset: offset,
                            length: line.utf8.count)
                    }
                    offset += line.utf8.count + 1
                }
            }
            try partitions.closeWriters()
            return try readWhole(partitions.path(0))
        }
    }

    static func sessionRunFile() throws -> [UInt8] {
        try withTemporaryDirectory { directory in
            let runs = SortedRunFiles<SessionRuns.Record>(temporaryDirectory: directory)
            defer { runs.remove() }
            var tally = SessionTally()
            tally.sessions = 1
            tally.events = 12
            tally.findings = 2
            tally.findingsByRule = [Rule.allCases[0]: 1, Rule.allCases[3]: 1]
            tally.keptBySeverity = [Severity.allCases[0]: 2]
            let records = ["a", "b", "ü"].enumerated().map { index, id in
                SessionRuns.Record(
                    key: SessionKey(model: index % 2, id: id), start: LineLocation(file: Int32(index), line: 3), tally: tally,
                    output: Array("{\"session\":\"\(id)\"}\n".utf8))
            }
            try runs.write(sorted: records)
            return try readWhole(runs.directory! + "/part-0")
        }
    }

    static func counterRunFile() throws -> [UInt8] {
        try withTemporaryDirectory { directory in
            // The third label passes the budget: the three are written as one run.
            let counter = SpillingCounter(budgetBytes: 3 * (SpillingCounter.entryOverhead + 1) - 1, temporaryDirectory: directory)
            for (label, group) in [("x", 0), ("y", 1), ("z", 0)] { counter.add(label, count: 3, group: group) }
            guard let spill = ScratchSpace.onlyDirectory(in: directory) else { throw SeedError() }
            return try readWhole(spill + "/part-0")
        }
    }

    struct SeedError: Error {}

    static func readWhole(_ path: String) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try LineReader.readWholeFile(path, into: &bytes)
        return bytes
    }

    static func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
        guard let scratch = ScratchSpace() else { throw SeedError() }
        defer { _ = scratch.remove() }
        return try body(scratch.path)
    }
}
