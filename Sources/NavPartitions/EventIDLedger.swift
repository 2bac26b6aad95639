#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Dispatch
import NavEvents
import NavJSON
package import NavReplay
import NavInput
package import NavResults
import NavRuns

/// Which sessions share an event id with another session, for audits whose sessions fold apart
/// (partitions, pre-grouped input): docs/events-and-rules.md makes every occurrence of an id after the first,
/// in (`session_id`, `seq`) order, an `event_id.conflict`, across sessions too.
///
/// Each folded session records the hash of every line's event id with the hash of its session,
/// 16 bytes a line. `sharing(jobs:)` then finds the id hashes met under two session hashes,
/// bucket by bucket (by the id hash's top bits), each bucket in a small open-addressing table:
/// so no more than a bucket is in memory at once when the ledger outgrows its memory budget and
/// goes to files. What it returns is a superset, by hash only; the sessions it names are read
/// again, and their shared ids resolved exactly (`RefoldRequest`, `EarlierOccurrence.Owners`).
/// It misses a shared id only if two sessions' 64-bit hashes are equal.
package final class EventIDLedger: @unchecked Sendable {
    // @unchecked: a shard is touched by its one job only; the files and `failure` under `lock`;
    // the rest after the last `record` call.
    package static let bucketBits = 6
    package static var bucketCount: Int { 1 << bucketBits }

    /// An event id's hash and its session's.
    package struct Entry {
        package var id: UInt64
        package var session: UInt64

        package init(id: UInt64, session: UInt64) {
            self.id = id
            self.session = session
        }
    }

    /// One fold job's entries: jobs record without a lock (under one, the jobs took turns).
    package final class Shard {
        /// Per bucket, the entries not yet written.
        package var buckets: [[Entry]] = Array(repeating: [], count: EventIDLedger.bucketCount)
        package var heldBytes = 0
        package var lines: Int64 = 0
    }

    private let lock = NSLockLike()
    private let shards: [Shard]
    private let memoryBudget: Int
    private let temporaryDirectory: String?
    /// The bucket files (`ids-N`), made on the first write.
    private var files: AppendFiles?
    /// The first error writing the ledger, reported by `sharing(jobs:)`.
    private var failure: (any Error)?
    package var recordedLines: Int64 { shards.reduce(0) { $0 + $1.lines } }

    /// `memoryBudget`: bytes of entries held in memory; past it, the buckets go to files in a
    /// directory of their own under `temporaryDirectory` (`nil`: `$TMPDIR` or `/tmp`). `jobs`:
    /// how many jobs record at once, each with its own `worker` number below it.
    package init(memoryBudget: Int, temporaryDirectory: String?, jobs: Int = 1) {
        shards = (0..<max(1, jobs)).map { _ in Shard() }
        self.memoryBudget = max(1 << 16, memoryBudget)
        self.temporaryDirectory = temporaryDirectory
    }

    deinit { remove() }

    /// Makes room for about `lines` entries, when they fit the budget: growing the buckets by
    /// doubling copied and first touched about twice the memory.
    package func reserve(lines: Int64) {
        guard lines > 0, lines * 16 <= Int64(memoryBudget) else { return }
        let each = Int(lines) / (shards.count * Self.bucketCount) * 9 / 8 + 16
        for shard in shards {
            for bucket in shard.buckets.indices { shard.buckets[bucket].reserveCapacity(each) }
        }
    }

    /// The hash a session is recorded under: its id's bytes and its model.
    package static func hash(_ key: SessionKey) -> UInt64 {
        var id = key.id
        return id.withUTF8 { hash(sessionBytes: $0, model: key.model) }
    }

    /// The same, from the id's bytes as a line holds them (with no escape).
    package static func hash(sessionBytes: UnsafeBufferPointer<UInt8>, model: Int) -> UInt64 {
        StableHash.mix(StableHash.string(sessionBytes) &+ UInt64(truncatingIfNeeded: model))
    }

    /// An event id's hash as the ledger keeps it: an app's ids are its own, so two models'
    /// sessions never share one.
    @inline(__always)
    package static func idHash(_ eventIDHash: UInt64, model: Int) -> UInt64 {
        model == 0 ? eventIDHash : StableHash.mix(eventIDHash &+ UInt64(truncatingIfNeeded: model))
    }

    /// Records the event ids of one session's lines, from job `worker` (one call at a time per worker).
    package func record(_ key: SessionKey, lines: UnsafeBufferPointer<SessionLine>, worker: Int = 0) {
        guard !lines.isEmpty else { return }
        let session = Self.hash(key)
        let shift = UInt64(64 - Self.bucketBits)
        let model = key.model
        let shard = shards[worker]
        // Through a buffer pointer: through the property, each append checked access to it.
        shard.buckets.withUnsafeMutableBufferPointer { buckets in
            for index in lines.indices {
                let id = Self.idHash(lines[index].decoded.eventIDHash, model: model)
                buckets[Int(truncatingIfNeeded: id >> shift)].append(Entry(id: id, session: session))
            }
        }
        shard.lines += Int64(lines.count)
        shard.heldBytes += 16 * lines.count
        if shard.heldBytes > memoryBudget / shards.count { write(shard) }
    }

    /// Records one line's event id (by hash) under a session's hash, from job `worker`.
    package func record(eventIDHash: UInt64, session: UInt64, worker: Int = 0) {
        let shard = shards[worker]
        shard.buckets[Int(truncatingIfNeeded: eventIDHash >> UInt64(64 - Self.bucketBits))].append(Entry(id: eventIDHash, session: session))
        shard.lines += 1
        shard.heldBytes += 16
        if shard.heldBytes > memoryBudget / shards.count { write(shard) }
    }

    /// Writes a shard's held buckets to the bucket files.
    private func write(_ shard: Shard) {
        lock.withLock {
            guard failure == nil else { return }
            do {
                if files == nil {
                    files = try AppendFiles(in: temporaryDirectory, kind: "ids-", count: Self.bucketCount, what: "the event-id ledger")
                }
                for bucket in 0..<Self.bucketCount where !shard.buckets[bucket].isEmpty {
                    try shard.buckets[bucket].withUnsafeBytes {
                        try files!.append($0, to: bucket, errorPath: files!.directory, what: "a temporary file")
                    }
                    shard.buckets[bucket] = []
                }
                shard.heldBytes = 0
            } catch {
                failure = error
            }
        }
    }

    /// The sessions that share event ids, and those ids, by hash (the ledger's `hash` and `idHash`).
    package struct Sharing: Sendable, Equatable {
        package var sessions = Set<UInt64>()
        package var ids = Set<UInt64>()
        package var isEmpty: Bool { sessions.isEmpty }

        package init(sessions: Set<UInt64> = [], ids: Set<UInt64> = []) {
            self.sessions = sessions
            self.ids = ids
        }
    }

    /// The sessions that share an event id (by hash) with another session, and the ids, found on
    /// `jobs` cores. Call once, after the last `record`.
    package func sharing(jobs: Int) throws -> Sharing {
        if let failure { throw failure }
        guard recordedLines > 0 else { return Sharing() }
        let results = ParallelResults<Result<Sharing, any Error>>(count: Self.bucketCount)
        let workers = max(1, min(jobs, Self.bucketCount))
        // The held entries are taken out of the shards here, before the jobs: jobs emptying
        // buckets of one shard's array at once were a data race (ThreadSanitizer).
        let held = (0..<Self.bucketCount).map { takeHeld(ofBucket: $0) }
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            for bucket in stride(from: worker, to: Self.bucketCount, by: workers) {
                results[bucket] = Result { Self.sharing(try self.entries(ofBucket: bucket, held: held[bucket])) }
            }
        }
        var sharing = Sharing()
        for result in results.values {
            let bucket = try result.get()
            sharing.sessions.formUnion(bucket.sessions)
            sharing.ids.formUnion(bucket.ids)
        }
        return sharing
    }

    /// The sessions recorded with any of these event id hashes. Call once, after the last `record`.
    package func sessions(withAnyOf ids: Set<UInt64>) throws -> Set<UInt64> {
        if let failure { throw failure }
        var sessions = Set<UInt64>()
        for bucket in 0..<Self.bucketCount {
            let entries = try entries(ofBucket: bucket, held: takeHeld(ofBucket: bucket))
            for entry in entries where ids.contains(entry.id) { sessions.insert(entry.session) }
        }
        return sessions
    }

    /// A bucket's entries held in memory, one array per shard; taken out of the shards.
    private func takeHeld(ofBucket bucket: Int) -> [[Entry]] {
        shards.map { shard in
            var entries: [Entry] = []
            swap(&entries, &shard.buckets[bucket])
            return entries
        }
    }

    /// A bucket's entries, from its file and `held` (`takeHeld(ofBucket:)`); the file is removed.
    private func entries(ofBucket bucket: Int, held: [[Entry]]) throws -> [Entry] {
        var entries: [Entry] = []
        if let files {
            var bytes: [UInt8] = []
            try files.take(bucket, into: &bytes)
            guard bytes.count % MemoryLayout<Entry>.stride == 0 else {
                throw InputError(code: .unreadable, path: files.path(bucket), message: "the event-id ledger's file is cut short")
            }
            let count = bytes.count / MemoryLayout<Entry>.stride
            entries = [Entry](unsafeUninitializedCapacity: count) { buffer, initialized in
                bytes.withUnsafeBytes {
                    UnsafeMutableRawBufferPointer(buffer).copyMemory(
                        from: UnsafeRawBufferPointer(rebasing: $0[..<(count * MemoryLayout<Entry>.stride)]))
                }
                initialized = count
            }
        }
        for shardEntries in held { entries += shardEntries }
        return entries
    }

    /// The ids met with two sessions or more, and their sessions.
    package static func sharing(_ entries: [Entry]) -> Sharing {
        let pairs = entries.count
        guard pairs > 1 else { return Sharing() }
        var capacity = 16
        while capacity < 2 * pairs { capacity <<= 1 }
        let mask = capacity - 1
        // Open addressing on the id hash (0 marks an empty slot, so id hash 0 is stored as 1:
        // at worst a needless refold). Each slot holds the first session met, and whether
        // another one was met.
        var ids = [UInt64](repeating: 0, count: capacity)
        var sessions = [UInt64](repeating: 0, count: capacity)
        var shared = [Bool](repeating: false, count: capacity)
        var anyShared = false
        func slot(of id: UInt64) -> Int {
            var index = Int(truncatingIfNeeded: StableHash.mix(id)) & mask
            while ids[index] != 0 && ids[index] != id { index = (index + 1) & mask }
            return index
        }
        for entry in entries {
            let id = max(1, entry.id)
            let session = entry.session
            let index = slot(of: id)
            if ids[index] == 0 {
                ids[index] = id
                sessions[index] = session
            } else if sessions[index] != session {
                shared[index] = true
                anyShared = true
            }
        }
        guard anyShared else { return Sharing() }
        var sharing = Sharing()
        for entry in entries where shared[slot(of: max(1, entry.id))] {
            sharing.sessions.insert(entry.session)
            sharing.ids.insert(entry.id)
        }
        return sharing
    }

    /// Removes the ledger's files, if it wrote any.
    package func remove() {
        files?.remove()
        files = nil
    }
}
