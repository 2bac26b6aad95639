import NavEvents
import NavModel
import NavRouter
import NavTestSupport

/// Collects what a router writes.
final class EventBuffer: NavigationEventSink {
    var events: [NavigationEvent] = []
    func write(_ event: NavigationEvent) { events.append(event) }
}

/// A seeded corpus of interleaved router sessions (PoC model with deep links), with the faults
/// a telemetry pipeline delivers: lost events, redelivered lines (near and far), event ids reused
/// with other content (in the same or another session), two events at one seq, lines that are
/// not events, blank lines. Lines are in the order the sessions wrote them (event time).
enum StoreCorpus {
    static func lines(seed: UInt64, sessions: Int = 12) -> [String] {
        var random = SeededRandom(seed: seed)
        var now: Int64 = 1_795_680_000_000  // 2026-11-26T08:00:00Z
        var written: [NavigationEvent] = []
        var lines: [String] = []
        var live: [(router: NavigationRouter, sink: EventBuffer, remaining: Int)] = []
        var idCounter = 0
        func makeSession(_ number: Int) -> (NavigationRouter, EventBuffer, Int) {
            let sink = EventBuffer()
            let router = NavigationRouter(
                model: .pocWithDeepLinks, sessionID: "s-\(seed)-\(number)", appVersion: "3.2.\(random.next() % 3)", platform: "ios",
                sink: sink, clock: { now },
                makeID: {
                    idCounter += 1
                    return "id-\(seed)-\(idCounter)"
                })
            router.start()
            return (router, sink, 5 + Int(random.next() % 40))
        }
        for number in 0..<sessions { live.append(makeSession(number)) }
        var finished = 0
        while finished < sessions * 2 && !live.isEmpty {
            let slot = Int(random.next() % UInt64(live.count))
            // Minutes apart at times, so that sessions go idle and close between batches.
            now += random.chance(0.05) ? 20 * 60_000 : Int64(random.next() % 5000)
            act(live[slot].router, &random)
            for event in live[slot].sink.events {
                if random.chance(0.02) { continue }  // lost: a gap
                lines.append(event.canonicalJSON)
                written.append(event)
                if random.chance(0.02) { lines.append(event.canonicalJSON) }  // redelivered at once
                if random.chance(0.01) { lines.append("{\"schema_version\":1,\"event_id\":") }  // torn JSON
                if random.chance(0.01) { lines.append("") }
                if random.chance(0.015), let other = written.randomElement(using: &random) {
                    // Another event with this one's id: a conflict (maybe in another session).
                    var copy = other
                    copy.eventID = event.eventID
                    lines.append(copy.canonicalJSON)
                }
                if random.chance(0.01) {
                    var twin = event
                    twin.eventID += "-twin"
                    lines.append(twin.canonicalJSON)  // two events at one seq
                }
            }
            live[slot].sink.events.removeAll()
            live[slot].remaining -= 1
            if live[slot].remaining <= 0 {
                finished += 1
                if finished < sessions { live[slot] = makeSession(sessions + finished) } else { live.remove(at: slot) }
            }
        }
        // Redeliveries far from their first copy.
        for _ in 0..<4 { if let line = written.randomElement(using: &random) { lines.append(line.canonicalJSON) } }
        return lines
    }

    /// One random user action (most are valid; the router refuses the rest).
    static func act(_ router: NavigationRouter, _ random: inout SeededRandom) {
        let model = router.model
        func route(_ stack: String) -> String { model.stacks[stack]?.routes?.randomElement(using: &random) ?? "x" }
        switch random.next() % 18 {
        case 0...6: if let stack = router.activeStack { router.push(route(stack), on: stack) }
        case 7...9: router.pop(1 + Int(random.next() % 2))
        case 10: router.popToRoot()
        case 11: router.selectTab(random.next() % 2 == 0 ? "tab1" : "tab2")
        case 12: router.present(random.next() % 2 == 0 ? "paywall" : "success", style: .sheet)
        case 13: router.dismissTop()
        case 14: router.apply(command: model.commandNames.randomElement(using: &random) ?? "")
        case 15: router.open(deepLink: ["poc://tab1/detail/7", "poc://settings", "poc://promo"].randomElement(using: &random) ?? "")
        case 16: router.openOnce("settings", on: "tab1")
        default: if let stack = router.activeStack { router.replaceLast(route(stack), on: stack) }
        }
    }
}
