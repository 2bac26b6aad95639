#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
package import NavEvents
import NavJSON
import NavModel
package import NavRuns

/// A compact binary form of a decoded event, for spill partitions.
///
/// A spilled line was validated when it was read; decoding its JSON again when the partition
/// is folded was a second full parse (about a third of a spilled audit's instructions). This
/// form is read back with no parsing: length-prefixed strings and fixed-width integers. An
/// event with a snapshot (a whole state, and rare) is not encoded; its record keeps the JSON.
package enum SpillCodec {
    /// Appends the event; `false` (and nothing appended) if it has no binary form.
    package static func encode(_ event: NavigationEvent, into buffer: ByteBuffer) -> Bool {
        let out = Writer(buffer: buffer)
        let start = buffer.count
        out.string(event.eventID)
        out.string(event.sessionID)
        out.int(event.seq)
        out.string(event.timestamp.text)
        out.int(event.timestamp.epochSeconds)
        out.int(Int64(bitPattern: event.timestamp.attoseconds))
        out.string(event.correlationID)
        out.optional(event.appVersion)
        out.optional(event.platform)
        switch event.payload {
        case .sessionStart(let snapshot):
            guard snapshot == nil else {
                buffer.truncate(to: start)
                return false
            }
            out.tag(0)
        case .routePush(let stack, let from, let to, let params):
            out.tag(1)
            out.string(stack)
            out.optional(from)
            out.string(to)
            out.params(params)
        case .routePop(let stack, let from, let to, let amount):
            out.tag(2)
            out.string(stack)
            out.optional(from)
            out.optional(to)
            switch amount {
            case .count(let count):
                out.tag(0)
                out.int(count)
            case .toRoot: out.tag(1)
            }
        case .routeReplace(let stack, let from, let to, let params):
            out.tag(3)
            out.string(stack)
            out.optional(from)
            out.string(to)
            out.params(params)
        case .routePopTo(let stack, let from, let to):
            out.tag(4)
            out.string(stack)
            out.optional(from)
            out.optional(to)
        case .routeInsert(let stack, let route, let index, let params):
            out.tag(5)
            out.string(stack)
            out.string(route)
            out.int(index)
            out.params(params)
        case .routeRemove(let stack, let route):
            out.tag(6)
            out.string(stack)
            out.string(route)
        case .flowSwitch(let from, let to):
            out.tag(7)
            out.string(from)
            out.string(to)
        case .tabSwitch(let from, let to):
            out.tag(8)
            out.optional(from)
            out.string(to)
        case .commandApplied(let command, let fromFlow, let toFlow):
            out.tag(9)
            out.string(command)
            out.string(fromFlow)
            out.string(toFlow)
        case .modalPresent(let modal, let style):
            out.tag(10)
            out.string(modal)
            out.string(style.rawValue)
        case .modalDismiss(let modal):
            out.tag(11)
            out.string(modal)
        case .screenView(let claim, let params):
            out.tag(12)
            switch claim {
            case .stack(let stack, let route):
                out.tag(0)
                out.string(stack)
                out.optional(route)
            case .modal(let modal):
                out.tag(1)
                out.string(modal)
            }
            out.params(params)
        case .deepLink(let url, let outcome):
            out.tag(13)
            out.string(url)
            out.string(outcome.rawValue)
        }
        return true
    }

    /// Reads back an event written by `encode`; `nil` if the bytes are not such an event.
    /// Names that repeat (session, stacks, routes, versions) come from `strings` when given.
    package static func decode(_ bytes: UnsafeBufferPointer<UInt8>, strings: StringCache? = nil) -> NavigationEvent? {
        var input = Reader(bytes: bytes, cache: strings)
        guard let eventID = input.string(unique: true), let sessionID = input.string(), let seq = input.int(),
            let text = input.string(unique: true), let seconds = input.int(), let attoseconds = input.int(),
            let correlationID = input.string(), let appVersion = input.optional(), let platform = input.optional(),
            let payload = input.payload(), input.isAtEnd
        else { return nil }
        var timestamp = placeholderTimestamp
        timestamp.text = text
        timestamp.epochSeconds = seconds
        timestamp.attoseconds = UInt64(bitPattern: attoseconds)
        return NavigationEvent(
            eventID: eventID, sessionID: sessionID, seq: seq, timestamp: timestamp, correlationID: correlationID,
            appVersion: appVersion, platform: platform, payload: payload)
    }

    private static let placeholderTimestamp = Timestamp(epochMilliseconds: 0)

    private struct Writer {
        let buffer: ByteBuffer

        @inline(__always) func tag(_ value: UInt8) { buffer.append(value) }
        @inline(__always) func int(_ value: Int64) { buffer.append(value) }

        func string(_ value: String) {
            // `withUTF8` also serves small (inline) strings, which have no contiguous storage.
            var value = value
            value.withUTF8 { utf8 in
                buffer.append(UInt32(utf8.count))
                buffer.append(UnsafeRawBufferPointer(utf8))
            }
        }

        func optional(_ value: String?) {
            if let value {
                tag(1)
                string(value)
            } else {
                tag(0)
            }
        }

        func params(_ params: RouteParams?) {
            guard let params else { return tag(0) }
            tag(1)
            int(Int64(params.entries.count))
            for (name, value) in params.entries {
                string(name)
                switch value {
                case .string(let text):
                    tag(0)
                    string(text)
                case .number(let text):
                    tag(1)
                    string(text)
                case .bool(let flag): tag(flag ? 2 : 3)
                case .null: tag(4)
                }
            }
        }
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        let cache: StringCache?
        var position = 0

        var isAtEnd: Bool { position == bytes.count }

        mutating func tag() -> UInt8? {
            guard position < bytes.count else { return nil }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func int() -> Int64? {
            guard position + 8 <= bytes.count else { return nil }
            defer { position += 8 }
            return bytes.load(Int64.self, at: position)
        }

        /// A string; `unique` ones (ids, timestamps) do not go through the cache.
        mutating func string(unique: Bool = false) -> String? {
            guard position + 4 <= bytes.count else { return nil }
            let count = Int(bytes.load(UInt32.self, at: position))
            guard position + 4 + count <= bytes.count else { return nil }
            defer { position += 4 + count }
            let utf8 = UnsafeBufferPointer(rebasing: bytes[(position + 4)..<(position + 4 + count)])
            if !unique, let cache { return cache.string(utf8) }
            return String(decoding: utf8, as: UTF8.self)
        }

        /// `.some(nil)` for an absent value; `nil` for bytes that are not an optional string.
        mutating func optional() -> String?? {
            switch tag() {
            case 0: return .some(nil)
            case 1: return string().map { .some($0) }
            default: return nil
            }
        }

        mutating func params() -> RouteParams?? {
            switch tag() {
            case 0: return .some(nil)
            case 1: break
            default: return nil
            }
            guard let count = int(), count >= 0, count <= Int64(bytes.count) else { return nil }
            var entries: [(String, ParamValue)] = []
            for _ in 0..<count {
                guard let name = string() else { return nil }
                switch tag() {
                case 0:
                    guard let text = string() else { return nil }
                    entries.append((name, .string(text)))
                case 1:
                    guard let text = string() else { return nil }
                    entries.append((name, .number(text)))
                case 2: entries.append((name, .bool(true)))
                case 3: entries.append((name, .bool(false)))
                case 4: entries.append((name, .null))
                default: return nil
                }
            }
            return .some(RouteParams(entries))
        }

        mutating func payload() -> NavigationEvent.Payload? {
            switch tag() {
            case 0: return .sessionStart(snapshot: nil)
            case 1:
                guard let stack = string(), let from = optional(), let to = string(), let params = params() else { return nil }
                return .routePush(stack: stack, from: from, to: to, params: params)
            case 2:
                guard let stack = string(), let from = optional(), let to = optional() else { return nil }
                switch tag() {
                case 0:
                    guard let count = int() else { return nil }
                    return .routePop(stack: stack, from: from, to: to, amount: .count(count))
                case 1: return .routePop(stack: stack, from: from, to: to, amount: .toRoot)
                default: return nil
                }
            case 3:
                guard let stack = string(), let from = optional(), let to = string(), let params = params() else { return nil }
                return .routeReplace(stack: stack, from: from, to: to, params: params)
            case 4:
                guard let stack = string(), let from = optional(), let to = optional() else { return nil }
                return .routePopTo(stack: stack, from: from, to: to)
            case 5:
                guard let stack = string(), let route = string(), let index = int(), let params = params() else { return nil }
                return .routeInsert(stack: stack, route: route, index: index, params: params)
            case 6:
                guard let stack = string(), let route = string() else { return nil }
                return .routeRemove(stack: stack, route: route)
            case 7:
                guard let from = string(), let to = string() else { return nil }
                return .flowSwitch(from: from, to: to)
            case 8:
                guard let from = optional(), let to = string() else { return nil }
                return .tabSwitch(from: from, to: to)
            case 9:
                guard let command = string(), let fromFlow = string(), let toFlow = string() else { return nil }
                return .commandApplied(command: command, fromFlow: fromFlow, toFlow: toFlow)
            case 10:
                guard let modal = string(), let style = string().flatMap(ModalStyle.init(rawValue:)) else { return nil }
                return .modalPresent(modal: modal, style: style)
            case 11:
                guard let modal = string() else { return nil }
                return .modalDismiss(modal: modal)
            case 12:
                let claim: NavigationEvent.ScreenClaim
                switch tag() {
                case 0:
                    guard let stack = string(), let route = optional() else { return nil }
                    claim = .stack(stack, route: route)
                case 1:
                    guard let modal = string() else { return nil }
                    claim = .modal(modal)
                default: return nil
                }
                guard let params = params() else { return nil }
                return .screenView(claim, params: params)
            case 13:
                guard let url = string(), let outcome = string().flatMap(DeepLinkOutcome.init(rawValue:)) else { return nil }
                return .deepLink(url: url, outcome: outcome)
            default: return nil
            }
        }
    }
}
