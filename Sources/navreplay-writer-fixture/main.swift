// A writer process for the crash-safety tests: appends events through `FileEventSink` as fast
// as it can and reports each event on standard output once `write` has returned.
//
//     navreplay-writer-fixture --path LOG [--sync none|every|interval:N] [--session ID]
//                              [--count N] [--blob-max BYTES] [--seed N]
//
// It writes a `session_start` (seq 0) and then `route_push` events (seq 1, 2, …) whose
// `route_params.blob` is a random 0...blob-max bytes long, so that some lines span many pages
// and a SIGKILL can land in the middle of their `write(2)`. Each line is the event's canonical
// JSON, written with `FileEventSink.write(line:)`. After each event whose `write`
// returned without error it prints the event's seq and a line feed on standard output, with one
// unbuffered `write(2)`: under `--sync every` a printed seq is on stable storage. Without
// `--count` it runs until it is killed.
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import NavEvents
import NavLog
import NavSamples
import NavModel

struct Options {
    var path = ""
    var sync = FileEventSink.SyncPolicy.none
    var session = "writer"
    var count = Int64.max
    var blobMax = 200_000
    var seed: UInt64 = 1
}

func fail(_ message: String) -> Never {
    let bytes = Array("navreplay-writer-fixture: \(message)\n".utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(2)
}

func number<T: LosslessStringConvertible>(_ text: String, _ option: String) -> T {
    guard let value = T(text) else { fail("\(option): not a number: \(text)") }
    return value
}

func parseOptions() -> Options {
    var options = Options()
    var arguments = CommandLine.arguments.dropFirst().makeIterator()
    while let argument = arguments.next() {
        guard let value = arguments.next() else { fail("\(argument) needs a value") }
        switch argument {
        case "--path": options.path = value
        case "--session": options.session = value
        case "--count": options.count = number(value, "--count")
        case "--blob-max": options.blobMax = number(value, "--blob-max")
        case "--seed": options.seed = number(value, "--seed")
        case "--sync":
            switch value {
            case "none": options.sync = .none
            case "every": options.sync = .everyEvent
            default:
                guard value.hasPrefix("interval:"), let events = Int(value.dropFirst("interval:".count)) else {
                    fail("--sync: none, every or interval:N")
                }
                options.sync = .interval(events: events)
            }
        default: fail("unknown option \(argument)")
        }
    }
    if options.path.isEmpty { fail("--path is required") }
    return options
}

func announce(_ seq: Int64) {
    let bytes = Array("\(seq)\n".utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeBytes { buffer -> Int in
            guard let base = buffer.baseAddress else { return 0 }
            return write(1, base + offset, buffer.count - offset)
        }
        if written < 0 {
            if errno == EINTR { continue }
            exit(3)  // the reader is gone
        }
        offset += written
    }
}

let options = parseOptions()
let sink: FileEventSink
do {
    sink = try FileEventSink(path: options.path, syncPolicy: options.sync)
} catch {
    fail("\(error)")
}
var random = SplitMix64(seed: options.seed)
let start: Int64 = 1_795_168_800_000
let letters = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
var seq: Int64 = 0
let marker = "BLOB-MARKER"
let markerBytes = Array(marker.utf8)

func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
    guard haystack.count >= needle.count else { return nil }
    for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
        if Array(haystack[start..<(start + needle.count)]) == needle { return start }
    }
    return nil
}
while seq < options.count {
    let payload: NavigationEvent.Payload
    var blob: [UInt8] = []
    if seq == 0 {
        payload = .sessionStart(snapshot: nil)
    } else {
        let length = options.blobMax > 0 ? Int.random(in: 0...options.blobMax, using: &random) : 0
        blob = [UInt8](repeating: letters[Int(seq) % letters.count], count: length)
        payload = .routePush(
            stack: "onboarding", from: seq == 1 ? nil : "welcome", to: "welcome",
            params: RouteParams([("blob", .string(marker)), ("n", .string(String(seq)))]))
    }
    let event = NavigationEvent(
        eventID: "\(options.session)-\(seq)", sessionID: options.session, seq: seq,
        timestamp: Timestamp(epochMilliseconds: start + seq), correlationID: "\(options.session)-c\(seq)",
        appVersion: "1.0.0", payload: payload)
    // The canonical line with the blob spliced in as bytes (letters need no escaping): the same
    // bytes as `event.canonicalJSON` with the blob in it, built without encoding the blob, so
    // that the process spends its time in write(2), where a kill tears a line.
    let canonical = Array(event.canonicalJSON.utf8)
    let line: String
    if let at = find(markerBytes, in: canonical) {
        line = String(decoding: canonical[..<at] + blob + canonical[(at + markerBytes.count)...], as: UTF8.self)
    } else {
        line = String(decoding: canonical, as: UTF8.self)
    }
    let errorsBefore = sink.errorCount
    sink.write(line: line)
    if sink.errorCount == errorsBefore { announce(seq) }
    seq += 1
}
do {
    try sink.close()
} catch {
    fail("\(error)")
}
