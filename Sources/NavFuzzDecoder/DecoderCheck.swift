import Foundation
import NavEvents
public import NavJSON

/// The `decoder` fuzz target: one line's bytes through the strict event decoder, checked
/// against independent readings of the same bytes.
///
/// 1. Syntax: `JSONValue.parse` (navreplay's generic reader) and Foundation's
///    `JSONSerialization` agree on whether the bytes are JSON, and on the value, except where
///    `JSONDifference` (the one list of allowed differences) explains it.
/// 2. The event decoder never accepts what is not JSON, and never calls JSON "not valid JSON";
///    its check alone (`EventDecoder.check`) gives every line the same verdict and error.
/// 3. A valid event: its identity hashes are those of the JSON value (`JSONValue.stableHash`,
///    the identity: key order, whitespace and escapes do not matter), and the same
///    value written again with its members in reverse order decodes to the same event with the
///    same hashes; its canonical form (`canonicalJSON`) decodes to the same event and is a fixed
///    point; decoding through a string cache gives the same event; Foundation reads the same
///    envelope.
public enum DecoderCheck {
    /// The broken invariants, in words; empty when every one held.
    public static func check(_ line: UnsafeBufferPointer<UInt8>) -> [String] {
        var violations: [String] = []
        let decoder = EventDecoder()
        let decoded = decoder.decode(line)
        let parsed = Result { () throws(JSONSyntaxError) -> JSONValue in try JSONValue.parse(line) }
        let foundation = FoundationJSON.parse(line)

        switch (parsed, foundation) {
        case (.success(let value), .some(let other)):
            if let difference = FoundationJSON.difference(value, other) {
                violations.append("navreplay and Foundation read different values: \(difference)")
            }
        case (.success(let value), .none):
            if JSONDifference.explainingAcceptance(of: value) == nil {
                violations.append("navreplay reads JSON that Foundation rejects, and no listed difference explains it")
            }
        case (.failure(let error), .some):
            if JSONDifference.explainingRejection(of: line, error) == nil {
                violations.append("navreplay rejects JSON that Foundation reads, and no listed difference explains it: \(error)")
            }
        case (.failure, .none):
            break
        }

        // `check`, which `validate` runs, gives every line decode's verdict and error.
        let checked = decoder.check(line)
        switch decoded {
        case .success: if let checked { violations.append("check rejects a line decode accepts: \(checked)") }
        case .failure(let error):
            if checked != error { violations.append("check says \(checked.map(\.description) ?? "valid"), decode says \(error)") }
        }

        switch decoded {
        case .success(let event):
            guard case .success(let value) = parsed else {
                violations.append("the decoder accepted a line that is not JSON")
                return violations
            }
            checkValid(event, value: value, line: line, into: &violations)
            if let other = foundation as? [String: Any] {
                checkEnvelope(event.event, against: other, into: &violations)
            } else if JSONDifference.explainingAcceptance(of: value) == nil {
                violations.append("the decoder accepted a line that Foundation does not read as an object")
            }
        case .failure(let error):
            if error.message.hasPrefix("not valid JSON"), case .success = parsed {
                violations.append("the decoder calls valid JSON invalid: \(error)")
            }
            if case .success = decoder.decode(line, names: StringCache(slotsLog2: 3)) {
                violations.append("the decoder accepts the line through a string cache only")
            }
        }
        return violations
    }

    /// The listed difference that explains why navreplay and Foundation disagree on whether
    /// `line` is JSON; `nil` when they agree (or when nothing explains it, which `check` reports).
    public static func verdictDifference(_ line: UnsafeBufferPointer<UInt8>) -> JSONDifference? {
        let accepted = FoundationJSON.parse(line) != nil
        switch Result(catching: { () throws(JSONSyntaxError) -> JSONValue in try JSONValue.parse(line) }) {
        case .success(let value): return accepted ? nil : JSONDifference.explainingAcceptance(of: value)
        case .failure(let error): return accepted ? JSONDifference.explainingRejection(of: line, error) : nil
        }
    }

    /// What differs between navreplay's value and one Foundation read (a path and a
    /// description), or `nil`: the comparison `check` makes.
    public static func valueDifference(_ value: JSONValue, foundation: Any) -> String? {
        FoundationJSON.difference(value, foundation)
    }

    /// The invariants of a line the decoder accepted.
    static func checkValid(_ decoded: DecodedEvent, value: JSONValue, line: UnsafeBufferPointer<UInt8>, into violations: inout [String]) {
        let decoder = EventDecoder()
        if decoded.identity != value.stableHash { violations.append("the identity hash is not the JSON value's") }
        if let object = value.objectValue {
            let content = JSONObject(
                object.members.filter { !["event_id", "seq", "timestamp"].contains($0.key) }.map { ($0.key, $0.value) })
            if decoded.contentIdentity != JSONValue.object(content).stableHash {
                violations.append("the content identity hash is not that of the value less event_id, seq and timestamp")
            }
            // The same value, members reversed, written compactly with navreplay's escapes.
            var writer = JSONWriter()
            writer.value(.object(JSONObject(object.members.reversed().map { ($0.key, $0.value) })))
            switch decoder.decode(writer.bytes) {
            case .success(let reordered):
                if reordered.event != decoded.event { violations.append("the line with its members reversed is another event") }
                if reordered.identity != decoded.identity || reordered.contentIdentity != decoded.contentIdentity {
                    violations.append("the line with its members reversed has other identity hashes")
                }
            case .failure(let error):
                violations.append("the line with its members reversed does not decode: \(error)")
            }
        }
        // The canonical form: the same event, and a fixed point.
        let canonical = decoded.event.canonicalJSON
        switch decoder.decode(canonical) {
        case .success(let again):
            if again.event != decoded.event { violations.append("the canonical form decodes to another event") }
            if again.event.canonicalJSON != canonical { violations.append("the canonical form is not a fixed point") }
        case .failure(let error):
            violations.append("the canonical form does not decode: \(error): \(canonical.prefix(300))")
        }
        switch decoder.decode(line, names: StringCache(slotsLog2: 3)) {
        case .success(let cached):
            if cached.event != decoded.event || cached.identity != decoded.identity || cached.eventIDHash != decoded.eventIDHash
                || cached.correlationIDHash != decoded.correlationIDHash
            {
                violations.append("decoding through a string cache gives another event")
            }
        case .failure(let error):
            violations.append("the line does not decode through a string cache: \(error)")
        }
        if decoded.eventIDHash != StableHash.string(decoded.event.eventID)
            || decoded.correlationIDHash != StableHash.string(decoded.event.correlationID)
        {
            violations.append("the event_id or correlation_id hash is not the hash of its text")
        }
    }

    /// The envelope as Foundation reads it: the same texts and numbers.
    static func checkEnvelope(_ event: NavigationEvent, against object: [String: Any], into violations: inout [String]) {
        let expected: [(String, String)] = [
            ("event_id", event.eventID), ("session_id", event.sessionID), ("correlation_id", event.correlationID),
            ("event_name", event.name.rawValue), ("timestamp", event.timestamp.text),
        ]
        for (key, value) in expected {
            guard let text = object[key] as? String, JSONDifference.sameText(text, value) else {
                violations.append("Foundation reads \(key) otherwise")
                continue
            }
        }
        if (object["seq"] as? NSNumber)?.int64Value != event.seq { violations.append("Foundation reads seq otherwise") }
        if (object["schema_version"] as? NSNumber)?.intValue != 1 { violations.append("Foundation reads schema_version otherwise") }
    }
}
