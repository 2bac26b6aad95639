public import NavJSON
import NavModel

extension NavigationEvent {
    /// Writes the event in canonical form: one compact JSON object, the envelope first in
    /// docs/events-and-rules.md order, then the payload fields in their documented order, optional fields only when set.
    /// Decoding the canonical form gives back an equal event.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("schema_version", NavigationEvent.schemaVersion)
        writer.member("event_id", eventID)
        writer.member("event_name", name.rawValue)
        writer.member("session_id", sessionID)
        writer.member("seq", seq)
        writer.member("timestamp", timestamp.text)
        writer.member("correlation_id", correlationID)
        if let appVersion { writer.member("app_version", appVersion) }
        if let platform { writer.member("platform", platform) }
        switch payload {
        case .sessionStart(let snapshot):
            if let snapshot {
                writer.key("snapshot")
                snapshot.write(to: &writer)
            }
        case .routePush(let stack, let from, let to, let params):
            writer.member("stack", stack)
            writer.member("from_route", from)
            writer.member("to_route", to)
            writeParams(params, to: &writer)
        case .routePop(let stack, let from, let to, let amount):
            writer.member("stack", stack)
            writer.member("from_route", from)
            writer.member("to_route", to)
            switch amount {
            case .count(let count): writer.member("count", count)
            case .toRoot: writer.member("to_root", true)
            }
        case .routeReplace(let stack, let from, let to, let params):
            writer.member("stack", stack)
            writer.member("from_route", from)
            writer.member("to_route", to)
            writeParams(params, to: &writer)
        case .routePopTo(let stack, let from, let to):
            writer.member("stack", stack)
            writer.member("from_route", from)
            writer.member("to_route", to)
        case .routeInsert(let stack, let route, let index, let params):
            writer.member("stack", stack)
            writer.member("to_route", route)
            writer.member("index", index)
            writeParams(params, to: &writer)
        case .routeRemove(let stack, let route):
            writer.member("stack", stack)
            writer.member("to_route", route)
        case .flowSwitch(let from, let to):
            writer.member("from_flow", from)
            writer.member("to_flow", to)
        case .tabSwitch(let from, let to):
            writer.member("from_tab", from)
            writer.member("to_tab", to)
        case .commandApplied(let command, let fromFlow, let toFlow):
            writer.member("command", command)
            writer.member("from_flow", fromFlow)
            writer.member("to_flow", toFlow)
        case .modalPresent(let modal, let style):
            writer.member("modal", modal)
            writer.member("style", style.rawValue)
        case .modalDismiss(let modal):
            writer.member("modal", modal)
        case .screenView(let claim, let params):
            switch claim {
            case .stack(let stack, let route):
                writer.member("stack", stack)
                writer.member("to_route", route)
            case .modal(let modal):
                writer.member("modal", modal)
            }
            writeParams(params, to: &writer)
        case .deepLink(let url, let outcome):
            writer.member("url", url)
            writer.member("outcome", outcome.rawValue)
        }
        writer.endObject()
    }

    private func writeParams(_ params: RouteParams?, to writer: inout JSONWriter) {
        guard let params else { return }
        writer.key("route_params")
        writer.beginObject()
        for (name, value) in params.entries {
            writer.key(name)
            switch value {
            case .string(let text): writer.string(text)
            case .number(let text): writer.numberText(text)
            case .bool(let flag): writer.bool(flag)
            case .null: writer.null()
            }
        }
        writer.endObject()
    }

    /// The canonical NDJSON line, without its line end.
    public var canonicalJSON: String {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.string
    }
}
