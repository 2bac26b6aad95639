#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Dispatch
import NavEvents
import NavLog
import NavModel
import NavReplay
import NavRouter
import NavTestSupport
import Testing

/// A fresh path in the temporary directory, removed by `cleanUp`.
private func temporaryPath(_ name: String) -> String {
    let directory = String(cString: getenv("TMPDIR") ?? strdup("/tmp"))
    return "\(directory)/navrouter-\(getpid())-\(name)-\(SystemSources.uuid()).ndjson"
}

private func readLines(_ path: String) -> [String] {
    guard let file = fopen(path, "r") else { return [] }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = fread(&buffer, 1, buffer.count, file)
        if count <= 0 { break }
        bytes += buffer[..<count]
    }
    var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map {
        String(decoding: $0, as: UTF8.self)
    }
    // A complete file ends with "\n": the last piece is empty.
    if lines.last == "" { lines.removeLast() }
    return lines
}

@Suite("File event sink")
struct FileEventSinkTests {
    @Test func concurrentWritersNeverMixLines() async throws {
        let path = temporaryPath("concurrent")
        defer { unlink(path) }
        let sink = try FileEventSink(path: path, syncPolicy: .interval(events: 64))
        let writers = 8
        let perWriter = 400
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    var builder = EventBuilder(sessionID: "writer-\(writer)")
                    for index in 0..<perWriter {
                        // Lines of different lengths, some long, to make torn writes visible.
                        let route = "route-\(index)-" + String(repeating: "x", count: index % 7 == 0 ? 5000 : index % 50)
                        sink.write(builder.make(.routePush(stack: "anything", from: nil, to: route, params: nil)))
                    }
                }
            }
        }
        try sink.close()
        #expect(sink.linesWritten == writers * perWriter)
        #expect(sink.errorCount == 0)
        let lines = readLines(path)
        #expect(lines.count == writers * perWriter)
        var perSession: [String: [Int64]] = [:]
        let decoder = EventDecoder()
        for line in lines {
            switch decoder.decode(line) {
            case .success(let decoded):
                perSession[decoded.event.sessionID, default: []].append(decoded.event.seq)
            case .failure(let error):
                Issue.record("a line is not a complete event: \(error)")
            }
        }
        // Each writer's lines are all there, in its own order.
        for writer in 0..<writers {
            #expect(perSession["writer-\(writer)"] == (0..<Int64(perWriter)).map { $0 })
        }
    }

    @Test(arguments: [FileEventSink.SyncPolicy.none, .everyEvent, .interval(events: 3)])
    func theSyncPolicyDoesNotChangeTheContent(_ policy: FileEventSink.SyncPolicy) throws {
        let path = temporaryPath("policy")
        defer { unlink(path) }
        let file = try FileEventSink(path: path, syncPolicy: policy)
        let memory = InMemoryEventSink()
        let router = NavigationRouter(
            appVersion: "1.0.0", sink: MulticastSink([memory, file]),
            clock: TestClock().now, makeID: IncrementingIDs().next)
        router.start()
        router.push("welcome")
        router.open(deepLink: "poc://tab2/post/5")
        router.apply(command: "logoutToOnboarding")
        try file.sync()
        try file.close()
        #expect(readLines(path) == memory.lines)
        let audit = try auditSession(memory.events)
        #expect(audit.findings.isEmpty)
        #expect(audit.finalState == router.state)
    }

    @Test func itAppendsToAnExistingFile() throws {
        let path = temporaryPath("append")
        defer { unlink(path) }
        var builder = EventBuilder()
        let events = [builder.start(), builder.make(.routePush(stack: "onboarding", from: nil, to: "welcome", params: nil))]
        let first = try FileEventSink(path: path)
        first.write(events[0])
        try first.close()
        let second = try FileEventSink(path: path, syncPolicy: .everyEvent)
        second.write(events[1])
        try second.close()
        #expect(readLines(path) == events.map(\.canonicalJSON))
    }

    /// A sink in another process writes each line holding a shared `flock` on the log: a sink
    /// opening the log meanwhile waits for that line to end, instead of taking it for a torn
    /// one and ending it early (which split the other's line, or left a blank line after it).
    @Test func aSinkOpeningTheLogWaitsForALineBeingWritten() throws {
        let path = temporaryPath("being-written")
        defer { unlink(path) }
        let other = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        try #require(other >= 0)
        defer { close(other) }
        let lock: (Int32, Int32) -> Int32 = flock
        try #require(lock(other, LOCK_SH) == 0)
        let firstHalf = Array(#"{"half":"#.utf8)
        let secondHalf = Array(#""line"}"#.utf8) + [0x0A]
        #expect(write(other, firstHalf, firstHalf.count) == firstHalf.count)

        final class Opened: @unchecked Sendable {
            // @unchecked: set before `done` is signalled, read after it.
            var sink: FileEventSink?
            let done = DispatchSemaphore(value: 0)
        }
        let opened = Opened()
        DispatchQueue.global().async {
            opened.sink = try? FileEventSink(path: path)
            opened.done.signal()
        }
        let waited = opened.done.wait(timeout: .now() + .milliseconds(300)) == .timedOut
        #expect(waited, "the sink did not wait for the line")
        #expect(write(other, secondHalf, secondHalf.count) == secondHalf.count)
        _ = lock(other, LOCK_UN)
        if waited { try #require(opened.done.wait(timeout: .now() + .seconds(10)) == .success) }
        let sink = try #require(opened.sink)
        sink.write(line: #"{"next":1}"#)
        try sink.close()
        #expect(readLines(path) == [#"{"half":"line"}"#, #"{"next":1}"#])
    }

    @Test func aRouterWritesToTheSinkAsItIs() throws {
        let path = temporaryPath("router")
        defer { unlink(path) }
        let file = try FileEventSink(path: path)
        let router = NavigationRouter(appVersion: "1.0.0", sink: file)
        router.start()
        router.push("welcome")
        try file.close()
        #expect(readLines(path).count == file.linesWritten && file.linesWritten >= 2)
        let events = try readLines(path).map { try EventDecoder().decode($0).get().event }
        #expect(try auditSession(events, model: .pocWithDeepLinks).findings.isEmpty)
    }

    @Test func itCreatesTheDirectoriesOfTheLog() throws {
        let root = temporaryPath("directories")
        let path = root + "/Library/NavigationLogs/./today.ndjson"
        defer {
            unlink(path)
            for directory in [root + "/Library/NavigationLogs", root + "/Library", root] { rmdir(directory) }
        }
        let sink = try FileEventSink(path: path)
        sink.write(makeEvent(.sessionStart(snapshot: nil)))
        try sink.close()
        #expect(sink.errorCount == 0)
        #expect(readLines(path).count == 1)
        // Opening it again finds the directories there.
        try FileEventSink(path: path).close()
    }

    @Test func aDirectoryThatCannotBeMadeIsAnOpeningError() throws {
        // /dev/null is a file: nothing can be made under it.
        let error = #expect(throws: FileEventSink.WriteError.self) {
            try FileEventSink(path: "/dev/null/logs/navigation.ndjson")
        }
        #expect(error?.operation == "mkdir" && error?.path == "/dev/null/logs" && error?.code == ENOTDIR, "\(String(describing: error))")
    }

    @Test func errorsAreReportedNotThrownOrFatal() throws {
        let path = temporaryPath("closed")
        defer { unlink(path) }
        let reported = ErrorBox()
        let sink = try FileEventSink(path: path, onError: { reported.add($0) })
        try sink.close()
        try sink.close()  // twice is fine
        sink.write(makeEvent(.sessionStart(snapshot: nil)))
        #expect(sink.errorCount == 1)
        #expect(sink.lastError?.operation == "write")
        #expect(sink.linesWritten == 0)
        #expect(reported.count == 1)
    }

    @Test func aLineWithALineFeedIsNotWritten() throws {
        let path = temporaryPath("linefeed")
        defer { unlink(path) }
        let sink = try FileEventSink(path: path)
        sink.write(line: "{\"a\":1}\n{\"b\":2}")
        sink.write(line: "{\"c\":3}")
        try sink.close()
        #expect(sink.errorCount == 1)
        #expect(readLines(path) == ["{\"c\":3}"])
    }

    #if os(Linux)
        @Test func aFullDiskIsAWriteError() throws {
            // /dev/full accepts the open and fails every write with ENOSPC.
            let sink = try FileEventSink(path: "/dev/full")
            sink.write(makeEvent(.sessionStart(snapshot: nil)))
            #expect(sink.errorCount == 1)
            #expect(sink.lastError?.code == ENOSPC)
            try? sink.close()
        }
    #endif
}

/// Errors collected from the sink's callback (called outside its lock, from any thread).
private final class ErrorBox: @unchecked Sendable {
    private var errors: [FileEventSink.WriteError] = []
    private var lock = pthread_mutex_t()

    init() { pthread_mutex_init(&lock, nil) }

    func add(_ error: FileEventSink.WriteError) {
        pthread_mutex_lock(&lock)
        errors.append(error)
        pthread_mutex_unlock(&lock)
    }

    var count: Int {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        return errors.count
    }
}
