#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import NavInput
import NavJSON
import NavModel
import NavPartitions
import NavReplay
import NavRuns
import NavTestSupport
import Testing

/// What the fuzz targets found, each fixed where it was: the saved input (in
/// `Tests/Fixtures/fuzz/NAME/crash-*`, replayed by `FuzzTargetsTests`) and here the fault
/// itself, through the reader's own API.
@Suite struct FuzzFindingsTests {
    /// model: a model without `initial` was reported as `$.initial: expected an object, found
    /// null`, a place the file does not have.
    @Test func aModelWithoutInitialIsReportedMissing() throws {
        let text = #"{"model_version": 1, "name": "m", "flows": {"app": {"stack": "main"}}, "stacks": {"main": {}}}"#
        #expect(throws: ModelError(path: "$.initial", message: "missing")) { try NavigationModel.load(json: text) }
    }

    /// runs: a run file that ends inside a record's length (1 to 3 bytes) read as ending there.
    @Test(arguments: 1...3)
    func aRunFileCutInsideALengthIsAnError(_ extra: Int) throws {
        let scratch = try TemporaryDirectory()
        let path = try scratch.write("run", bytes: runFile + Array(repeating: 0, count: extra))
        let reader = try SpillOutputReader(path: path, bufferBytes: 64)
        defer { reader.close() }
        #expect(try reader.next() != nil)
        #expect(throws: InputError.self) { try reader.next() }
    }

    /// runs: a corrupt label length of 4 GB made the reader allocate (and zero) 4 GB before it
    /// found the file ends after a few bytes.
    @Test func aRunFileClaimingGigabytesIsAnErrorWithoutTheMemory() throws {
        let scratch = try TemporaryDirectory()
        let path = try scratch.write("run", bytes: [0xF0, 0xFF, 0xFF, 0xFF] + Array(repeating: 0x41, count: 100))
        let before = peakResidentBytes()
        let reader = try SpillOutputReader(path: path, bufferBytes: 64)
        defer { reader.close() }
        #expect(throws: InputError.self) { try reader.next() }
        #expect(peakResidentBytes() - before < 256 << 20, "the reader's peak grew by \((peakResidentBytes() - before) >> 20) MB")
    }

    /// runs: a partition file whose last record is cut short was folded without it.
    @Test func aPartitionCutShortIsAnError() throws {
        let scratch = try TemporaryDirectory()
        let partitions = try SpillPartitions(count: 1, directory: scratch.url.path, bufferBytes: 4096)
        defer { partitions.remove() }
        let line = Array(#"{"schema_version":1}"#.utf8)
        for number in 1...2 {
            try line.withUnsafeBufferPointer {
                try partitions.writeUndecoded(
                    sessionHash: 1, model: 0, location: LineLocation(file: 0, line: Int64(number)), unterminated: false, raw: $0)
            }
        }
        try partitions.closeWriters()
        let bytes = try Repository.readAbsolute(partitions.path(0))
        try Data(bytes.dropLast(5)).write(to: URL(fileURLWithPath: partitions.path(0)))
        var buffer: [UInt8] = []
        #expect(throws: InputError.self) {
            _ = try partitions.read(partition: 0, files: ["a"], keepQuarantine: false, buffer: &buffer) { _, _ in }
        }
    }

    /// runs: an event-id ledger's bucket file that ends inside an entry was read without it.
    @Test func aLedgerFileCutShortIsAnError() throws {
        let scratch = try TemporaryDirectory()
        let ledger = EventIDLedger(memoryBudget: 0, temporaryDirectory: scratch.url.path)
        defer { ledger.remove() }
        for id in 0...UInt64(4096) { ledger.record(eventIDHash: id, session: 1) }
        let directory = try #require(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).first)
        let bucket = scratch.path(directory + "/ids-0")
        let bytes = try Repository.readAbsolute(bucket)
        try Data(bytes.dropLast(3)).write(to: URL(fileURLWithPath: bucket))
        #expect(throws: InputError.self) { try ledger.sharing(jobs: 1) }
    }

    /// One record, `RunRecord`'s framing: label "a", group 0, a 2-byte payload.
    let runFile: [UInt8] = [1, 0, 0, 0, 0x61, 0, 0, 0, 0, 2, 0, 0, 0, 7, 8]

    func peakResidentBytes() -> Int {
        var usage = rusage()
        getrusage(0, &usage)  // RUSAGE_SELF
        return usage.ru_maxrss * 1024
    }
}

extension Repository {
    static func readAbsolute(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
