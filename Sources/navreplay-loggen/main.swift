// Writes a large, realistic navigation log for benchmarks by driving many PoC routers at once:
// `--sessions` sessions are live at any time, each action goes to a random live session, a
// finished session is replaced by a new one, so sessions interleave throughout the file.
// Seeded: the same arguments always write the same bytes.
//
//   navreplay-loggen --bytes 1G --sessions 1000 --seed 1 --output bench.ndjson
import Foundation
import NavEvents
import NavModel
import NavRouter
import NavSamples

struct Options {
    var bytes: Int64 = 100 << 20
    var sessions = 1000
    var seed: UInt64 = 1
    var output = "-"
    var violationRate = 0.002

    init(_ arguments: [String]) throws {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            guard let value = iterator.next() else { throw UsageError("\(argument) needs a value") }
            switch argument {
            case "--bytes": bytes = try Options.size(value)
            case "--sessions": sessions = Int(value) ?? 1000
            case "--seed": seed = UInt64(value) ?? 1
            case "--output": output = value
            case "--violation-rate": violationRate = Double(value) ?? 0.002
            default: throw UsageError("unknown option \(argument)")
            }
        }
    }

    static func size(_ text: String) throws -> Int64 {
        let units: [(String, Int64)] = [("K", 1 << 10), ("M", 1 << 20), ("G", 1 << 30)]
        for (suffix, factor) in units where text.uppercased().hasSuffix(suffix) {
            guard let value = Double(text.dropLast()) else { break }
            return Int64(value * Double(factor))
        }
        guard let value = Int64(text) else { throw UsageError("bad size \(text)") }
        return value
    }
}

struct UsageError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Collects what a router writes between two actions.
final class Buffer: NavigationEventSink {
    var events: [NavigationEvent] = []
    func write(_ event: NavigationEvent) { events.append(event) }
}

final class LiveSession {
    let router: NavigationRouter
    let sink: Buffer
    var remaining: Int

    init(id: String, model: NavigationModel, random: inout SplitMix64, clock: @escaping () -> Int64) {
        sink = Buffer()
        var ids = SplitMix64(seed: random.next())
        router = NavigationRouter(
            model: model, sessionID: id, appVersion: "3.2.\(random.next() % 4)", platform: random.next() % 3 == 0 ? "android" : "ios",
            sink: sink, clock: clock, makeID: { SystemSources.uuid(using: &ids) })
        remaining = 20 + Int(random.next() % 150)
        router.start()
    }
}

/// One random user action on a PoC router (most are valid; the router refuses the rest).
func act(_ router: NavigationRouter, _ random: inout SplitMix64) {
    let model = router.model
    let stacks = ["onboarding", "tab1", "tab2"]
    func route(_ stack: String) -> String {
        model.stacks[stack]?.routes?.randomElement(using: &random) ?? "x"
    }
    switch random.next() % 20 {
    case 0...6:
        if let stack = router.activeStack { router.push(route(stack), on: stack) }
    case 7...9:
        router.pop(1 + Int(random.next() % 2))
    case 10:
        router.popToRoot()
    case 11:
        router.selectTab(random.next() % 2 == 0 ? "tab1" : "tab2")
    case 12:
        router.present(random.next() % 2 == 0 ? "paywall" : "success", style: .sheet)
    case 13:
        router.dismissTop()
    case 14:
        router.apply(command: model.commandNames.randomElement(using: &random) ?? "")
    case 15:
        let urls = ["poc://tab1/detail/\(random.next() % 100)", "poc://tab2/post/\(random.next() % 100)", "poc://settings", "poc://promo"]
        router.open(deepLink: urls.randomElement(using: &random) ?? "")
    case 16:
        router.openOnce("settings", on: "tab1")
    case 17:
        if let stack = router.activeStack { router.replaceLast(route(stack), on: stack) }
    default:
        let stack = stacks.randomElement(using: &random) ?? "tab1"
        router.popTo(route(stack), on: stack)
    }
}

do {
    let options = try Options(Array(CommandLine.arguments.dropFirst()))
    guard
        let handle = options.output == "-"
            ? FileHandle.standardOutput
            : FileHandle(forWritingAtPath: options.output)
                ?? {
                    _ = FileManager.default.createFile(atPath: options.output, contents: nil)
                    return FileHandle(forWritingAtPath: options.output)
                }()
    else { throw UsageError("cannot write \(options.output)") }
    var random = SplitMix64(seed: options.seed)
    var now: Int64 = 1_795_680_000_000  // 2026-11-26T08:00:00Z
    let clock = { now }
    var nextSessionNumber = 0
    func newSession() -> LiveSession {
        nextSessionNumber += 1
        return LiveSession(id: "bench-\(options.seed)-\(nextSessionNumber)", model: .pocWithDeepLinks, random: &random, clock: clock)
    }
    var live = (0..<max(1, options.sessions)).map { _ in newSession() }
    var written: Int64 = 0
    var output: [UInt8] = []
    output.reserveCapacity(1 << 22)
    while written < options.bytes {
        let slot = Int(random.next() % UInt64(live.count))
        let session = live[slot]
        now += Int64(random.next() % 40)
        if session.sink.events.isEmpty { act(session.router, &random) }
        for event in session.sink.events {
            // A few realistic faults: a lost event (a gap, then a mismatch), a redelivered line.
            let roll = Double(random.next() % 1_000_000) / 1_000_000
            if roll < options.violationRate / 2 { continue }
            let line = Array(event.canonicalJSON.utf8)
            let copies = roll < options.violationRate ? 2 : 1
            for _ in 0..<copies {
                output += line
                output.append(0x0A)
                written += Int64(line.count + 1)
            }
        }
        session.sink.events.removeAll()
        session.remaining -= 1
        if session.remaining <= 0 { live[slot] = newSession() }
        if output.count >= 1 << 22 {
            handle.write(Data(output))
            output.removeAll(keepingCapacity: true)
        }
    }
    handle.write(Data(output))
} catch {
    FileHandle.standardError.write(Data("navreplay-loggen: \(error)\n".utf8))
    exit(2)
}
