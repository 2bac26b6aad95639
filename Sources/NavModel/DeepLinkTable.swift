/// How the router turns a deep link URL into a command and routes (the PoC router's and the modular
/// tabs system's deep links).
///
/// A NavReplay extension of the v1 model file (`deep_links`, optional). A pattern is matched
/// against the URL's host and path segments (`poc://tab2/post/42` is `tab2/post/42`); a segment
/// `:name` matches any one segment and passes it on as a route parameter.
public struct DeepLinkTable: Sendable, Equatable {
    /// The command applied for a link no pattern matches (the "safe root"), if any.
    public var fallbackCommand: String?
    public var links: [DeepLink]

    public init(fallbackCommand: String? = nil, links: [DeepLink] = []) {
        self.fallbackCommand = fallbackCommand
        self.links = links
    }
}

public struct DeepLink: Sendable, Equatable {
    public var pattern: [String]
    public var command: String?
    public var steps: [DeepLinkStep]

    public init(pattern: String, command: String?, steps: [DeepLinkStep]) {
        self.pattern = pattern.split(separator: "/").map(String.init)
        self.command = command
        self.steps = steps
    }

    /// The captured parameters when `segments` match this pattern.
    public func match(_ segments: [String]) -> [(String, String)]? {
        guard segments.count == pattern.count else { return nil }
        var captured: [(String, String)] = []
        for (expected, actual) in zip(pattern, segments) {
            if expected.hasPrefix(":") {
                captured.append((String(expected.dropFirst()), actual))
            } else if expected != actual {
                return nil
            }
        }
        return captured
    }
}

/// One step a deep link takes after its command, in order.
public enum DeepLinkStep: Sendable, Equatable {
    case selectTab(String)
    case push(stack: String, route: String)
    case present(modal: String, style: String)
}
