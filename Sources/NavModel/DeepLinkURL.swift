/// A deep link URL split the way the model's deep link table matches it.
///
/// `poc://tab2/post/42?ref=mail#top` has scheme `poc` and segments `["tab2", "post", "42"]`:
/// the host and the path segments, empty segments skipped, each percent-decoded; the query
/// and the fragment are ignored.
public struct DeepLinkURL: Sendable, Hashable {
    public var scheme: String
    public var segments: [String]

    /// Parses a URL; `nil` when it is not `scheme://…` (a scheme is a letter followed by
    /// letters, digits, `+`, `-` or `.`) or has an invalid percent escape.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0,
            bytes.count >= colon + 3, bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/")
        else { return nil }
        let schemeBytes = bytes[..<colon]
        guard let first = schemeBytes.first, isLetter(first),
            schemeBytes.allSatisfy({
                isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
            })
        else { return nil }
        var rest = bytes[(colon + 3)...]
        if let end = rest.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) {
            rest = rest[..<end]
        }
        var segments: [String] = []
        for raw in rest.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true) {
            guard let decoded = percentDecoded(raw) else { return nil }
            segments.append(decoded)
        }
        self.scheme = String(decoding: schemeBytes, as: UTF8.self)
        self.segments = segments
    }
}

extension DeepLinkTable {
    /// The first link whose pattern matches the segments, with its captured parameters.
    public func match(_ segments: [String]) -> (DeepLink, [(String, String)])? {
        for link in links {
            if let captures = link.match(segments) { return (link, captures) }
        }
        return nil
    }
}

private func isLetter(_ byte: UInt8) -> Bool {
    (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
}

private func isDigit(_ byte: UInt8) -> Bool {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
}

private func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}

/// `%XX` escapes decoded; `nil` for a malformed escape or a result that is not UTF-8.
private func percentDecoded(_ bytes: ArraySlice<UInt8>) -> String? {
    var output: [UInt8] = []
    output.reserveCapacity(bytes.count)
    var index = bytes.startIndex
    while index < bytes.endIndex {
        let byte = bytes[index]
        if byte == UInt8(ascii: "%") {
            guard index + 2 < bytes.endIndex, let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            else { return nil }
            output.append(high << 4 | low)
            index += 3
        } else {
            output.append(byte)
            index += 1
        }
    }
    return String(validating: output, as: UTF8.self)
}
