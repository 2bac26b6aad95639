import NavFuzzRuns
import NavInput
import NavModel
import NavPartitions
import NavSQLite
import NavStore

/// A plain restatement of a stored chunk's framing (`ChunkCodec`): `[u8 form][u16 prefix
/// length][u32 text length][prefix][text]` a line, little-endian, form 0 the text's bytes and
/// form 1 their shorthand. The lines, or `nil` when the bytes do not end at a record's end or a
/// record is not one of the two forms.
package enum NaiveChunk {
    package static func lines(_ data: [UInt8]) -> [(prefix: [UInt8], text: [UInt8])]? {
        var lines: [(prefix: [UInt8], text: [UInt8])] = []
        var offset = 0
        func integer(_ at: Int, bytes: Int) -> Int { (0..<bytes).reduce(0) { $0 | Int(data[at + $1]) << (8 * $1) } }
        while offset < data.count {
            guard data.count - offset >= 7 else { return nil }
            let form = data[offset]
            let prefixCount = integer(offset + 1, bytes: 2)
            let textCount = integer(offset + 3, bytes: 4)
            let prefixAt = offset + 7
            guard form <= 1, data.count - prefixAt >= prefixCount + textCount else { return nil }
            let prefix = Array(data[prefixAt..<(prefixAt + prefixCount)])
            let stored = Array(data[(prefixAt + prefixCount)..<(prefixAt + prefixCount + textCount)])
            guard let text = form == 0 ? stored : expanded(stored) else { return nil }
            lines.append((prefix, text))
            offset = prefixAt + prefixCount + textCount
        }
        return lines
    }

    /// The lines as located input: each prefix and text, then its line end; a text that ends
    /// with `\r` gets one more, which reading removes before the `\n`.
    package static func located(_ lines: [(prefix: [UInt8], text: [UInt8])]) -> [UInt8] {
        lines.reduce(into: []) { output, line in
            output += line.prefix + line.text + (line.text.last == 0x0D ? [0x0D, 0x0A] : [0x0A])
        }
    }

    static func expanded(_ short: [UInt8]) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: LineShorthand.expandedCapacity(short.count))
        let count = short.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { LineShorthand.expand(input, into: $0.baseAddress!) }
        }
        return count.map { Array(out.prefix($0)) }
    }
}

/// The seeds of the `store` and `ingest` targets: chunks and stores as `navreplay ingest` writes
/// them, behind the bytes their checks read first (`StoreCheck`, `IngestCheck`).
/// `navreplay-fuzz-store --write-seeds DIR` and `navreplay-fuzz-ingest --write-seeds DIR` write
/// them; `Tests/Fixtures/fuzz/store` and `Tests/Fixtures/fuzz/ingest` hold them.
public enum StoreSeeds {
    /// Two sessions of the built-in model, a line that is not an event and a torn one: the
    /// first batch of the seed stores.
    static let firstBatch = lines([
        #"{"schema_version":1,"event_id":"e0","event_name":"session_start","session_id":"s1","seq":0,"timestamp":"2026-11-26T12:00:00.000Z","correlation_id":"c0","app_version":"3.2.0","platform":"ios"}"#,
        #"{"schema_version":1,"event_id":"e1","event_name":"route_push","session_id":"s1","seq":1,"timestamp":"2026-11-26T12:00:01.5Z","correlation_id":"c1","app_version":"3.2.0","stack":"tab1","from_route":null,"to_route":"detail","route_params":{"id":"7"}}"#,
        #"{"schema_version":1,"event_id":"e2","event_name":"modal_present","session_id":"s1","seq":3,"timestamp":"2026-11-26T12:00:03Z","correlation_id":"c3","app_version":"3.2.0","modal":"paywall","style":"sheet"}"#,
        "not an event\r",
        #"{"schema_version":1,"event_id":"f0","event_name":"session_start","session_id":"s2","seq":0,"timestamp":"2026-11-26T12:05:01.633Z","correlation_id":"d0","app_version":"3.2.1"}"#,
        #"{"schema_version":1,"event_id":"f1","event_name":"tab_switch","session_id":"s2","seq":1,"timestamp":"2026-11-26T12:05:03Z","correlation_id":"d1","app_version":"3.2.1","from_tab":"tab1","to_tab":"tab2"}"#,
        #"{"schema_version":1,"event_id":"f2","event_name":"route_pop","session_id":"s2","#,
    ])

    /// A later batch: the missing seq of `s1` (a gap filled), a redelivery, an event id reused
    /// with other content, a new session.
    package static let laterBatch = lines([
        #"{"schema_version":1,"event_id":"e1b","event_name":"route_pop","session_id":"s1","seq":2,"timestamp":"2026-11-26T12:00:02Z","correlation_id":"c2","app_version":"3.2.0","stack":"tab1","from_route":"detail","to_route":null,"count":1}"#,
        #"{"schema_version":1,"event_id":"e0","event_name":"session_start","session_id":"s1","seq":0,"timestamp":"2026-11-26T12:00:00.000Z","correlation_id":"c0","app_version":"3.2.0","platform":"ios"}"#,
        #"{"schema_version":1,"event_id":"f1","event_name":"screen_view","session_id":"s2","seq":2,"timestamp":"2026-11-26T12:06:00Z","correlation_id":"d2","app_version":"3.2.1","stack":"tab2","route":"list"}"#,
        #"{"schema_version":1,"event_id":"g0","event_name":"session_start","session_id":"s3","seq":0,"timestamp":"2026-11-26T12:10:00Z","correlation_id":"h0","app_version":"3.3.0"}"#,
    ])

    static func lines(_ lines: [String]) -> [UInt8] { Array(lines.joined(separator: "\n").utf8) + [0x0A] }

    /// The `ingest` target's seeds, by name: a parameter byte and a store.
    public static func ingest() throws -> [(name: String, bytes: [UInt8])] {
        [
            ("one-batch", [255] + (try store(batches: [firstBatch]))),
            ("two-batches-cut", [120] + (try store(batches: [firstBatch, laterBatch]))),
        ]
    }

    /// The `store` target's seeds, by name.
    public static func all() throws -> [(name: String, bytes: [UInt8])] {
        var seeds: [(String, [UInt8])] = []
        func add(_ reader: StoreCheck.Reader, _ name: String, parameter: UInt8 = 255, _ body: [UInt8]) {
            seeds.append(("\(reader)-\(name)", [StoreCheck.selector(of: reader), parameter] + body))
        }
        var chunk: [UInt8] = []
        for (index, line) in firstBatch.split(separator: 0x0A).enumerated() {
            let prefix = Array("0\t\(index + 1)\t".utf8)
            prefix.withUnsafeBufferPointer { prefix in
                Array(line).withUnsafeBufferPointer { text in _ = ChunkCodec.append(prefix: prefix, text: text, to: &chunk) }
            }
        }
        add(.chunk, "lines", chunk)
        let oneBatch = try store(batches: [firstBatch])
        let twoBatches = try store(batches: [firstBatch, laterBatch])
        add(.database, "one-batch", oneBatch)
        add(.database, "two-batches", twoBatches)
        add(.database, "two-batches-cut", parameter: 100, twoBatches)
        for kind in DamageCheck.Kind.allCases {
            add(.damaged, "\(kind)", parameter: kind.rawValue, [0x01, 0x2F] + oneBatch)
        }
        return seeds
    }

    /// A store as `ingest` writes it, batch after batch (the last with `--close-all`), made
    /// small for the fuzzer: its pages 512 bytes, SQLite's least, and no write-ahead log.
    static func store(batches: [[UInt8]]) throws -> [UInt8] {
        guard let scratch = ScratchSpace() else { throw StoreError("cannot make a scratch directory") }
        defer { _ = scratch.remove() }
        let path = scratch.file("seed.db")
        do {
            let store = try EventStore.openForWriting(
                path: path, model: .poc, modelText: NavigationModel.pocJSON, toolVersion: StoreCheck.toolVersion, lockWait: 0)
            for (index, batch) in batches.enumerated() {
                let file = scratch.file("night\(index + 1).ndjson")
                scratch.store(batch, to: file)
                var options = IngestOptions()
                options.jobs = 1
                options.temporaryDirectory = scratch.path
                options.closeAll = index == batches.count - 1
                _ = try Ingestion.run(store: store, paths: [file], options: options)
                try store.waitForCheckpoint()
            }
        }
        do {
            let database = try SQLiteDatabase(path: path, existing: true)
            for statement in ["PRAGMA journal_mode=DELETE", "PRAGMA page_size=512", "VACUUM"] { try database.execute(statement) }
        }
        guard PageChecksums.seal(path) else { throw StoreError("cannot write the seed's page checksums") }
        var bytes: [UInt8] = []
        try LineReader.readWholeFile(path, into: &bytes)
        return bytes
    }
}
