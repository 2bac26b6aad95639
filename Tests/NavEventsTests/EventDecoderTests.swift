import Foundation
import NavEvents
import NavJSON
import NavModel
import Testing

private let envelope =
    #""schema_version":1,"event_id":"e1","session_id":"s1","seq":3,"timestamp":"2026-11-20T10:15:30.123Z","correlation_id":"c1""#

private func line(_ fields: String, name: String = "route_push") -> String {
    "{\(envelope),\"event_name\":\"\(name)\",\(fields)}"
}

private let push = line(#""stack":"tab1","from_route":null,"to_route":"detail""#)

private func decode(_ text: String) -> Result<DecodedEvent, EventDecodingError> { EventDecoder().decode(text) }
private func decode(bytes: [UInt8]) -> Result<DecodedEvent, EventDecodingError> { EventDecoder().decode(bytes) }

private func rejection(_ text: String) -> EventDecodingError? {
    if case .failure(let error) = decode(text) { return error }
    return nil
}

/// One bad-input class of docs/events-and-rules.md `schema.invalid`, with the field its message must name.
struct BadLine: CustomTestStringConvertible, Sendable {
    var id: String
    var bytes: [UInt8]
    var field: String?
    var testDescription: String { id }

    init(_ id: String, _ text: String, field: String? = nil) {
        self.id = id
        self.bytes = Array(text.utf8)
        self.field = field
    }

    init(_ id: String, bytes: [UInt8], field: String? = nil) {
        self.id = id
        self.bytes = bytes
        self.field = field
    }
}

@Suite struct EventDecoderTests {
    @Test func decodesAPushWithEveryEnvelopeField() throws {
        let decoded = try decode(push).get()
        #expect(decoded.event.eventID == "e1")
        #expect(decoded.event.sessionID == "s1")
        #expect(decoded.event.seq == 3)
        #expect(decoded.event.timestamp.text == "2026-11-20T10:15:30.123Z")
        #expect(decoded.event.payload == .routePush(stack: "tab1", from: nil, to: "detail", params: nil))
    }

    static let badLines: [BadLine] = [
        BadLine("not JSON", "hello"),
        BadLine("an array", "[1,2]"),
        BadLine("a string", "\"event\""),
        BadLine("byte order mark", bytes: [0xEF, 0xBB, 0xBF] + Array(push.utf8)),
        BadLine("invalid UTF-8", bytes: Array(line(#""stack":"tab1","from_route":null,"to_route":"#).utf8) + [0x22, 0xFF, 0x22, 0x7D]),
        BadLine(
            "overlong UTF-8", bytes: Array(line(#""stack":"tab1","from_route":null,"to_route":"#).utf8) + [0x22, 0xC0, 0xAF, 0x22, 0x7D]),
        BadLine(
            "UTF-8 surrogate",
            bytes: Array(line(#""stack":"tab1","from_route":null,"to_route":"#).utf8) + [0x22, 0xED, 0xA0, 0x80, 0x22, 0x7D]),
        BadLine("lone surrogate escape", line(#""stack":"tab1","from_route":null,"to_route":"\ud800""#), field: "to_route"),
        BadLine("duplicate key", line(#""stack":"tab1","stack":"tab2","from_route":null,"to_route":"x""#), field: "stack"),
        BadLine("duplicate unknown key", line(#""x":1,"x":2,"stack":"tab1","from_route":null,"to_route":"x""#), field: "x"),
        BadLine("duplicate nested key", line(#""x":{"a":1,"a":1},"stack":"tab1","from_route":null,"to_route":"x""#), field: "x"),
        BadLine("NaN", line(#""x":NaN,"stack":"tab1","from_route":null,"to_route":"x""#), field: "x"),
        BadLine(
            "trailing comma in a nested object", line(#""extra":{"a":1,},"stack":"tab1","from_route":null,"to_route":"x""#), field: "extra"),
        BadLine("trailing comma in a nested array", line(#""extra":[1,],"stack":"tab1","from_route":null,"to_route":"x""#), field: "extra"),
        BadLine(
            "trailing comma three levels down", line(#""extra":{"a":[{"b":1,}]},"stack":"tab1","from_route":null,"to_route":"x""#),
            field: "extra"),
        BadLine(
            "trailing comma in an array in an object", line(#""extra":{"a":{"b":[1,2,]}},"stack":"tab1","from_route":null,"to_route":"x""#),
            field: "extra"),
        BadLine(
            "empty member in a nested object", line(#""extra":{"a":1,,"b":2},"stack":"tab1","from_route":null,"to_route":"x""#),
            field: "extra"),
        BadLine(
            "empty element in a nested array", line(#""extra":[1,,2],"stack":"tab1","from_route":null,"to_route":"x""#), field: "extra"),
        BadLine(
            "trailing comma in route_params", line(#""stack":"tab1","from_route":null,"to_route":"x","route_params":{"a":1,}"#),
            field: "route_params"),
        BadLine(
            "trailing comma in a snapshot's stacks",
            line(#""app_version":"1","snapshot":{"flow":"f","tab":null,"stacks":{"tab1":["a",]},"modals":[]}"#, name: "session_start"),
            field: "snapshot"),
        BadLine(
            "Infinity for an integer", line(#""stack":"tab1","from_route":null,"to_route":"x","count":Infinity"#, name: "route_pop"),
            field: "count"),
        BadLine("1.0 for an integer", push.replacingOccurrences(of: "\"seq\":3", with: "\"seq\":3.0"), field: "seq"),
        BadLine("exponent for an integer", push.replacingOccurrences(of: "\"seq\":3", with: "\"seq\":3e0"), field: "seq"),
        BadLine("seq 2^53", push.replacingOccurrences(of: "\"seq\":3", with: "\"seq\":9007199254740992"), field: "seq"),
        BadLine("negative seq", push.replacingOccurrences(of: "\"seq\":3", with: "\"seq\":-1"), field: "seq"),
        BadLine(
            "count beyond Int64", line(#""stack":"tab1","from_route":null,"to_route":null,"count":9223372036854775808"#, name: "route_pop"),
            field: "count"),
        BadLine(
            "nesting 65 deep",
            line(
                "\"x\":" + String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
                    + #","stack":"tab1","from_route":null,"to_route":"x""#), field: "x"),
        BadLine("nesting 100,000 deep", line("\"x\":" + String(repeating: "[", count: 100_000) + #","stack":"tab1""#), field: "x"),
        BadLine("missing field", line(#""stack":"tab1","from_route":null"#), field: "to_route"),
        BadLine("missing envelope field", push.replacingOccurrences(of: #""correlation_id":"c1","#, with: ""), field: "correlation_id"),
        BadLine("wrong type", push.replacingOccurrences(of: "\"seq\":3", with: "\"seq\":\"3\""), field: "seq"),
        BadLine(
            "wrong type of an unused known field", line(#""stack":"tab1","from_route":null,"to_route":"x","count":"2""#), field: "count"),
        BadLine("null optional field", line(#""stack":"tab1","from_route":null,"to_route":"x","app_version":null"#), field: "app_version"),
        BadLine("unknown event_name", line(#""stack":"tab1""#, name: "route_jump"), field: "event_name"),
        BadLine(
            "schema_version 2", push.replacingOccurrences(of: "\"schema_version\":1", with: "\"schema_version\":2"), field: "schema_version"
        ),
        BadLine("timestamp without offset", push.replacingOccurrences(of: "10:15:30.123Z", with: "10:15:30.123"), field: "timestamp"),
        BadLine("February 30", push.replacingOccurrences(of: "2026-11-20", with: "2026-02-30"), field: "timestamp"),
        BadLine("leap second", push.replacingOccurrences(of: "10:15:30", with: "23:59:60"), field: "timestamp"),
        BadLine("empty id", push.replacingOccurrences(of: "\"event_id\":\"e1\"", with: "\"event_id\":\"\""), field: "event_id"),
        BadLine(
            "129-character id",
            push.replacingOccurrences(of: "\"event_id\":\"e1\"", with: "\"event_id\":\"\(String(repeating: "é", count: 129))\""),
            field: "event_id"),
        BadLine(
            "control character in an id", push.replacingOccurrences(of: "\"session_id\":\"s1\"", with: #""session_id":"s\u0085""#),
            field: "session_id"),
        BadLine("trailing content", push + " x"),
        BadLine("NUL byte", bytes: Array(push.utf8) + [0x00]),
        BadLine("torn line", String(push.prefix(60))),
        BadLine(
            "pop with count and to_root",
            line(#""stack":"tab1","from_route":null,"to_route":null,"count":1,"to_root":true"#, name: "route_pop"), field: "count"),
        BadLine("pop with neither", line(#""stack":"tab1","from_route":null,"to_route":null"#, name: "route_pop"), field: "count"),
        BadLine("null to_route on a push", line(#""stack":"tab1","from_route":null,"to_route":null"#), field: "to_route"),
        BadLine(
            "route_params on a pop",
            line(#""stack":"tab1","from_route":"a","to_route":null,"count":1,"route_params":{"a":1}"#, name: "route_pop"),
            field: "route_params"),
        BadLine(
            "nested route_params value", line(#""stack":"tab1","from_route":null,"to_route":"x","route_params":{"a":[1]}"#),
            field: "route_params.a"),
        BadLine(
            "screen_view with stack and modal", line(#""stack":"tab1","modal":"paywall","to_route":null"#, name: "screen_view"),
            field: "modal"),
        BadLine("unknown modal style", line(#""modal":"paywall","style":"popup""#, name: "modal_present"), field: "style"),
        BadLine(
            "snapshot without flow", line(#""app_version":"1","snapshot":{"tab":null,"stacks":{},"modals":[]}"#, name: "session_start"),
            field: "snapshot.flow"),
    ]

    @Test(arguments: badLines)
    func rejectsBadInputNamingTheField(_ bad: BadLine) {
        guard case .failure(let error) = decode(bytes: bad.bytes) else {
            Issue.record("\(bad.id) was accepted")
            return
        }
        #expect(!error.message.isEmpty)
        if let field = bad.field {
            #expect(error.field == field, "\(bad.id): \(error)")
            #expect(error.description.contains("\"\(field)\""))
        }
    }

    @Test func messagesSayWhatIsWrongWithANumberOrAStrayByte() {
        // A leading zero is named with its field, not as a stray byte after a `0`.
        let leadingZero = rejection(push.replacingOccurrences(of: "\"seq\":3", with: "\"seq\":014"))
        #expect(leadingZero?.field == "seq")
        #expect(leadingZero?.message.contains("leading zeros") == true, "\(String(describing: leadingZero))")
        // A line that starts with bytes no JSON value starts with is not called a number.
        guard case .failure(let stray) = decode(bytes: [0xFF, 0xFE] + Array(push.utf8)) else {
            Issue.record("accepted")
            return
        }
        #expect(stray.message.contains("expected a JSON value at byte 1"), "\(stray)")
        #expect(!stray.message.contains("number"))
        // NaN is still a number JSON does not allow.
        let nan = rejection(push.replacingOccurrences(of: "\"seq\":3", with: "\"seq\":3,\"extra\":NaN"))
        #expect(nan?.field == "extra")
        #expect(nan?.message.contains("NaN") == true, "\(String(describing: nan))")
    }

    @Test func acceptsUnknownFieldsAndDepth64() throws {
        let nested = String(repeating: "[", count: 63) + String(repeating: "]", count: 63)
        let decoded = try decode(
            line("\"x\":\(nested),\"future\":{\"a\":[1,2.5e3,null]}," + #""stack":"tab1","from_route":null,"to_route":"detail""#)
        ).get()
        #expect(decoded.event.name == .routePush)
    }

    @Test func keysEqualOnlyUnderUnicodeNormalizationAreTwoKeys() throws {
        // RFC 8259 compares member names as code points: "é" (U+00E9) and "e\u{301}" are two
        // keys, in the snapshot (read as a generic JSON value) as anywhere else; the same
        // bytes twice, or an escape of them, is a duplicate.
        let snapshot = #"{"flow":"onboarding","tab":null,"stacks":{},"modals":[],"x":{"\#u{E9}":1,"e\#u{301}":2}}"#
        let decoded = try decode(line(#""app_version":"1","snapshot":"# + snapshot, name: "session_start")).get()
        #expect(decoded.event.name == .sessionStart)
        let twice = #"{"flow":"onboarding","tab":null,"stacks":{},"modals":[],"x":{"\#u{E9}":1,"\u00e9":2}}"#
        let error = try #require(rejection(line(#""app_version":"1","snapshot":"# + twice, name: "session_start")))
        #expect(error.field == "snapshot" && error.message.contains("duplicate key"), "\(error)")
    }

    @Test func duplicatesAreFoundAmongManyKeys() throws {
        // Past 32 keys an object's keys are hashed (a hostile line of 131,000 keys took 11 s);
        // a duplicate is still a duplicate, in an event, in route_params and in a snapshot.
        let many = (0..<20_000).map { "\"k\($0)\":0" }.joined(separator: ",")
        #expect(throws: Never.self) { try decode(line("\"extra\":{\(many)}," + #""stack":"tab1","from_route":null,"to_route":"x""#)).get() }
        let unknown = (0..<40).map { "\"u\($0)\":0" }.joined(separator: ",")
        let twice = rejection(line(unknown + ",\"u35\":1," + #""stack":"tab1","from_route":null,"to_route":"x""#))
        #expect(twice?.message.contains("duplicate") == true, "\(String(describing: twice))")
        let params = "{" + (0..<40).map { "\"p\($0)\":0" }.joined(separator: ",") + ",\"p7\":1}"
        let inParams = rejection(line(#""stack":"tab1","from_route":null,"to_route":"x","route_params":"# + params))
        #expect(inParams?.message.contains("duplicate") == true, "\(String(describing: inParams))")
        let stacks = "{" + (0..<40).map { "\"s\($0)\":[]" }.joined(separator: ",") + ",\"s39\":[]}"
        let inSnapshot = rejection(
            line(
                #""app_version":"1","snapshot":{"flow":"onboarding","tab":null,"modals":[],"stacks":"# + stacks + "}", name: "session_start"
            ))
        #expect(inSnapshot?.message.contains("duplicate") == true, "\(String(describing: inSnapshot))")
    }

    @Test func identityIgnoresKeyOrderWhitespaceAndEscapes() throws {
        let reordered =
            "{ \"to_route\" : \"d\\u0065tail\", \"from_route\":null,\"stack\":\"tab1\",\"event_name\":\"route_push\",\(envelope) }"
        let first = try decode(push).get()
        let second = try decode(reordered).get()
        #expect(first.identity == second.identity)
        #expect(first.contentIdentity == second.contentIdentity)
    }

    /// Known keys and plain integers have fast paths that skip the scanner: a key escaped or
    /// spaced, or an integer the fast path declines, must decode and hash exactly the same.
    @Test func fastPathsAgreeWithTheScanner() throws {
        let plain = try decode(push).get()
        let escapedKeys = push.replacingOccurrences(of: "\"stack\":", with: "\"st\\u0061ck\":")
            .replacingOccurrences(of: "\"seq\":3", with: "\"s\\u0065q\" :\t3")
        let escaped = try decode(escapedKeys).get()
        #expect(escaped.event == plain.event)
        #expect(escaped.identity == plain.identity)
        #expect(escaped.contentIdentity == plain.contentIdentity)
        // A key that starts like a known one but is longer is an unknown key.
        let longer = try decode(line(#""stacks":1,"stack":"tab1","from_route":null,"to_route":"detail""#)).get()
        #expect(longer.identity != plain.identity)
        #expect(rejection(push.replacingOccurrences(of: "\"seq\":3", with: "\"seq\":03")) != nil)  // JSON: 0, then junk
        #expect(rejection(push.replacingOccurrences(of: "\"seq\":3", with: "\"seq\":3e0"))?.field == "seq")
        #expect(rejection(push.replacingOccurrences(of: "\"seq\":3", with: "\"seq\":-3"))?.field == "seq")
        let long = try decode(push.replacingOccurrences(of: "\"seq\":3", with: "\"seq\":1234567890123456")).get()
        #expect(long.event.seq == 1_234_567_890_123_456)
        #expect(rejection(push.replacingOccurrences(of: "\"seq\":3", with: "\"seq\":12345678901234567890"))?.field == "seq")
        let zero = try decode(push.replacingOccurrences(of: "\"seq\":3", with: "\"seq\":0")).get()
        #expect(zero.event.seq == 0)
        // A raw DEL in an id, in the 8-byte scan and in the tail after it.
        for id in ["abcdefgh\u{7F}ijk", "abcdefghij\u{7F}", "\u{7F}"] {
            let text = push.replacingOccurrences(of: "\"event_id\":\"e1\"", with: "\"event_id\":\"\(id)\"")
            #expect(rejection(text)?.field == "event_id")
        }
        #expect(
            (try? decode(push.replacingOccurrences(of: "\"event_id\":\"e1\"", with: "\"event_id\":\"abcdefghijklmnopq\"")).get()) != nil)
    }

    @Test func identityTellsNumbersByTheirText() throws {
        let a = try decode(line(#""x":1,"stack":"tab1","from_route":null,"to_route":"detail""#)).get()
        let b = try decode(line(#""x":1.0,"stack":"tab1","from_route":null,"to_route":"detail""#)).get()
        #expect(a.identity != b.identity)
    }

    @Test func contentIdentityIgnoresOnlyIDSeqAndTimestamp() throws {
        let a = try decode(push).get()
        let b = try decode(
            push.replacingOccurrences(of: "\"event_id\":\"e1\"", with: "\"event_id\":\"e2\"")
                .replacingOccurrences(of: "\"seq\":3", with: "\"seq\":4")
                .replacingOccurrences(of: "10:15:30.123Z", with: "10:15:31Z")
        ).get()
        let c = try decode(push.replacingOccurrences(of: "\"correlation_id\":\"c1\"", with: "\"correlation_id\":\"c2\"")).get()
        #expect(a.identity != b.identity)
        #expect(a.contentIdentity == b.contentIdentity)
        #expect(a.contentIdentity != c.contentIdentity)
    }

    @Test func scannerAndJSONValueHashAlike() throws {
        let text = #"{"b":[1,"x",{"c":null,"d":true}],"a":"\u00e9","n":-0.5e3}"#
        let value = try JSONValue.parse(text)
        let bytes = Array(text.utf8)
        let scanned = try bytes.withUnsafeBufferPointer { buffer in
            var scanner = JSONScanner(buffer)
            return try scanner.skipValue(depth: 1)
        }
        #expect(value.stableHash == scanned)
    }

    @Test(arguments: EventName.allCases)
    func canonicalEncodingRoundTrips(_ name: EventName) throws {
        let timestamp = try #require(Timestamp("2026-11-20T10:15:30.5+01:00"))
        let payload: NavigationEvent.Payload =
            switch name {
            case .sessionStart:
                .sessionStart(
                    snapshot: NavigationState(flow: "authorized", tab: "tab2", stacks: ["tab2": ["feed", "post"]], modals: ["success"]))
            case .routePush:
                .routePush(stack: "tab1", from: nil, to: "detail", params: RouteParams([("id", .number("42")), ("a", .string("\"q\"\n"))]))
            case .routePop: .routePop(stack: "tab1", from: "detail", to: nil, amount: .count(-3))
            case .routeReplace: .routeReplace(stack: "tab1", from: "list", to: "detail", params: nil)
            case .routePopTo: .routePopTo(stack: "tab1", from: "settings", to: "list")
            case .routeInsert:
                .routeInsert(stack: "tab1", route: "list", index: 0, params: RouteParams([("flag", .bool(true)), ("none", .null)]))
            case .routeRemove: .routeRemove(stack: "tab1", route: "list")
            case .flowSwitch: .flowSwitch(from: "onboarding", to: "authorized")
            case .tabSwitch: .tabSwitch(from: nil, to: "tab2")
            case .commandApplied: .commandApplied(command: "logoutToOnboarding", fromFlow: "authorized", toFlow: "onboarding")
            case .modalPresent: .modalPresent(modal: "paywall", style: .cover)
            case .modalDismiss: .modalDismiss(modal: "paywall")
            case .screenView: .screenView(.modal("success"), params: nil)
            case .deepLink: .deepLink(url: "poc://tab2/post/7?x=</script>", outcome: .resolved)
            }
        let event = NavigationEvent(
            eventID: "ev-\u{1F600}", sessionID: "s 1", seq: 9_007_199_254_740_991, timestamp: timestamp, correlationID: "c",
            appVersion: name == .sessionStart ? "2.1.0" : nil, platform: "ios", payload: payload)
        let decoded = try decode(event.canonicalJSON).get()
        #expect(decoded.event == event)
        #expect(decoded.event.canonicalJSON == event.canonicalJSON)
    }

    @Test func timestampsCompareAsInstants() throws {
        let a = try #require(Timestamp("2026-11-20T10:00:00+01:00"))
        let b = try #require(Timestamp("2026-11-20T09:30:00Z"))
        let c = try #require(Timestamp("2026-11-20t09:00:00.000000000001-00:00"))
        #expect(a < b)
        #expect(c.epochSeconds == a.epochSeconds)
        #expect(a < c)
        #expect(Timestamp("2024-02-29T00:00:00Z") != nil)
        #expect(Timestamp("2023-02-29T00:00:00Z") == nil)
        #expect(Timestamp(epochMilliseconds: 1_763_633_730_123).text == "2025-11-20T10:15:30.123Z")
    }

    /// A timestamp keeps its text as written, whether it is short (kept inline) or long (many
    /// fraction digits, kept as a string): read back, compared and hashed by that text.
    @Test func timestampsKeepTheirTextShortOrLong() throws {
        let short = "2026-11-20T10:00:00.000Z"
        let edge = "2026-11-20T10:00:00.0000000+01:00"  // 33 bytes: one past inline
        let inline = "2026-11-20T10:00:00.000000+01:00"  // 32 bytes: the longest inline
        let long = "2026-11-20T10:00:00.123456789012345678901234+05:30"
        for text in [short, edge, inline, long] {
            let timestamp = try #require(Timestamp(text))
            #expect(timestamp.text == text)
            #expect(timestamp.description == text)
            #expect(timestamp == Timestamp(text))
            #expect(Set([timestamp, try #require(Timestamp(text))]).count == 1)
        }
        // Same instant, other text: not equal (texts differ), the same instant.
        let a = try #require(Timestamp(inline))
        let b = try #require(Timestamp(edge))
        #expect(a != b)
        #expect(a.isSameInstant(as: b))
        var changed = try #require(Timestamp(short))
        changed.text = long
        #expect(changed.text == long)
        #expect(changed != Timestamp(short))
    }

    /// Every known field is recognised as known (an array is the wrong type for each of them),
    /// and a near-miss key is not.
    @Test(arguments: [
        "schema_version", "event_id", "event_name", "session_id", "seq", "timestamp", "correlation_id", "app_version",
        "platform", "snapshot", "stack", "from_route", "to_route", "count", "to_root", "index", "route_params",
        "from_flow", "to_flow", "from_tab", "to_tab", "command", "modal", "style", "url", "outcome",
    ])
    func everyKnownFieldIsTypeChecked(_ name: String) {
        let text = push.replacingOccurrences(of: "\"stack\":\"tab1\"", with: "\"stack\":\"tab1\",\"\(name)x\":[]")
        #expect(throws: Never.self) { try decode(text).get() }
        let known = "{\"\(name)\":[]," + push.dropFirst()
        guard case .failure(let error) = decode(known) else {
            Issue.record("\(name) was not type-checked")
            return
        }
        #expect(error.field == name, "\(error)")
    }
}
