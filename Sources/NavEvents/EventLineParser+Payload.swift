import NavJSON
import NavModel

extension EventLineParser {
    mutating func parseRouteParams() throws(EventDecodingError) -> UInt64 {
        let name = EventField.routeParams.wireName
        guard scanner.peekFast() == UInt8(ascii: "{") else {
            throw typeError(.routeParams, expected: "an object of scalar values")
        }
        scanner.position += 1
        var entries: [(String, ParamValue)] = []
        var keys = KeySet()
        var sum: UInt64 = 0
        if !scanner.consume(UInt8(ascii: "}")) {
            repeat {
                let key = try syntax(field: name) { (s: inout JSONScanner) throws(JSONSyntaxError) in try s.scanString() }
                let keyName = scanner.string(of: key)
                do {
                    try keys.insert(key, in: scanner)
                } catch {
                    throw EventDecodingError(field: "\(name).\(keyName)", message: "duplicate key")
                }
                try syntax(field: name) { (s: inout JSONScanner) throws(JSONSyntaxError) in try s.expect(UInt8(ascii: ":")) }
                let path = "\(name).\(keyName)"
                let value: ParamValue
                let hash: UInt64
                switch scanner.peekFast() {
                case UInt8(ascii: "\""):
                    let token = try syntax(field: path) { (s: inout JSONScanner) throws(JSONSyntaxError) in try s.scanString() }
                    value = .string(scanner.string(of: token))
                    hash = scanner.hashString(token)
                case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                    let literal = try syntax(field: path) { (s: inout JSONScanner) throws(JSONSyntaxError) in try s.scanLiteral() }
                    switch literal {
                    case .true:
                        value = .bool(true)
                        hash = StableHash.trueHash
                    case .false:
                        value = .bool(false)
                        hash = StableHash.falseHash
                    case .null:
                        value = .null
                        hash = StableHash.nullHash
                    }
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    throw EventDecodingError(
                        field: path, message: "expected a string, number, boolean or null, found \(describeNextValue())")
                default:
                    let token = try syntax(field: path) { (s: inout JSONScanner) throws(JSONSyntaxError) in try s.scanNumber() }
                    value = .number(scanner.text(of: token))
                    hash = scanner.hashNumber(token)
                }
                entries.append((keyName, value))
                sum &+= StableHash.memberHash(key: scanner.hashString(key), value: hash)
            } while scanner.consume(UInt8(ascii: ","))
            try syntax(field: name) { (s: inout JSONScanner) throws(JSONSyntaxError) in try s.expect(UInt8(ascii: "}")) }
        }
        fields.routeParams = RouteParams(entries)
        return StableHash.objectHash(memberSum: sum, count: entries.count)
    }

    /// A restored state (docs/events-and-rules.md): `flow`, `tab` (may be null), `stacks`, `modals`.
    mutating func parseSnapshot() throws(EventDecodingError) -> UInt64 {
        let name = EventField.snapshot.wireName
        guard scanner.peekFast() == UInt8(ascii: "{") else {
            throw typeError(.snapshot, expected: "an object (flow, tab, stacks, modals)")
        }
        let value = try syntax(field: name) { (s: inout JSONScanner) throws(JSONSyntaxError) in
            try JSONValue.parseValue(&s, depth: 2)
        }
        guard let object = value.objectValue else { throw typeError(.snapshot, expected: "an object") }
        func nonEmptyString(_ value: JSONValue?, _ path: String) throws(EventDecodingError) -> String {
            guard let value else { throw EventDecodingError(field: path, message: "missing") }
            guard let text = value.stringValue, !text.isEmpty else {
                throw EventDecodingError(field: path, message: "expected a non-empty string, found \(value.typeName)")
            }
            return text
        }
        func stringArray(_ value: JSONValue?, _ path: String) throws(EventDecodingError) -> [String] {
            guard let value else { throw EventDecodingError(field: path, message: "missing") }
            guard let array = value.arrayValue else {
                throw EventDecodingError(field: path, message: "expected an array of strings, found \(value.typeName)")
            }
            var result: [String] = []
            for (index, element) in array.enumerated() {
                result.append(try nonEmptyString(element, "\(path)[\(index)]"))
            }
            return result
        }
        let flow = try nonEmptyString(object["flow"], "\(name).flow")
        var tab: String?
        if let tabValue = object["tab"], !tabValue.isNull {
            tab = try nonEmptyString(tabValue, "\(name).tab")
        }
        guard let stacksValue = object["stacks"] else { throw EventDecodingError(field: "\(name).stacks", message: "missing") }
        guard let stacksObject = stacksValue.objectValue else {
            throw EventDecodingError(field: "\(name).stacks", message: "expected an object, found \(stacksValue.typeName)")
        }
        var stacks: [String: [String]] = [:]
        for (stack, routes) in stacksObject.members {
            stacks[stack] = try stringArray(routes, "\(name).stacks.\(stack)")
        }
        let modals = try stringArray(object["modals"], "\(name).modals")
        fields.snapshot = NavigationState(flow: flow, tab: tab, stacks: stacks, modals: modals)
        return value.stableHash
    }

    // MARK: Assembling the event

    func missing(_ field: EventField, for name: EventName? = nil) -> EventDecodingError {
        if let name {
            return EventDecodingError(field: field.wireName, message: "missing (required by \(name.rawValue))")
        }
        return EventDecodingError(field: field.wireName, message: "missing (required on every event)")
    }

    /// Checks the envelope and moves the fields into the payload (each string is taken, not
    /// copied: a retain and a release fewer per field, and a cheaper parser to destroy).
    mutating func buildPayload() throws(EventDecodingError) -> NavigationEvent.Payload {
        guard fields.schemaVersion != nil else { throw missing(.schemaVersion) }
        guard fields.eventID != nil else { throw missing(.eventID) }
        guard let name = fields.eventName else { throw missing(.eventName) }
        guard fields.sessionID != nil else { throw missing(.sessionID) }
        guard fields.seq != nil else { throw missing(.seq) }
        guard fields.timestamp != nil else { throw missing(.timestamp) }
        guard fields.correlationID != nil else { throw missing(.correlationID) }

        if fields.has(.routeParams), ![.routePush, .routeReplace, .routeInsert, .screenView].contains(name) {
            throw EventDecodingError(
                field: "route_params",
                message: "not allowed on \(name.rawValue) (only on route_push, route_replace, route_insert, screen_view)")
        }
        if case .some(.none) = fields.toRoute, ![.routePop, .routePopTo, .screenView].contains(name) {
            throw EventDecodingError(
                field: "to_route", message: "may be null only on route_pop, route_pop_to and screen_view")
        }

        let text = self.text
        func require<T>(_ value: T?, _ field: EventField) throws(EventDecodingError) -> T {
            guard let value else { throw missing(field, for: name) }
            return value
        }
        func require(_ value: TextField?, _ field: EventField) throws(EventDecodingError) -> String {
            guard let value else { throw missing(field, for: name) }
            return text(value)
        }
        /// A nullable field that must be present: `TextField??` where the outer level is presence.
        func requireNullable(_ value: TextField??, _ field: EventField) throws(EventDecodingError) -> String? {
            guard let value else { throw missing(field, for: name) }
            return value.map { text($0) }
        }
        func requireRoute(_ value: TextField??, _ field: EventField) throws(EventDecodingError) -> String {
            guard let value, let route = value else { throw missing(field, for: name) }
            return text(route)
        }

        let payload: NavigationEvent.Payload
        switch name {
        case .sessionStart:
            guard fields.appVersion != nil else { throw missing(.appVersion, for: name) }
            payload = .sessionStart(snapshot: fields.snapshot.take())
        case .routePush:
            payload = .routePush(
                stack: try require(fields.stack, .stack), from: try requireNullable(fields.fromRoute, .fromRoute),
                to: try requireRoute(fields.toRoute, .toRoute), params: fields.routeParams.take())
        case .routePop:
            let stack = try require(fields.stack, .stack)
            let from = try requireNullable(fields.fromRoute, .fromRoute)
            let to = try requireNullable(fields.toRoute, .toRoute)
            payload = .routePop(stack: stack, from: from, to: to, amount: try popAmount())
        case .routeReplace:
            payload = .routeReplace(
                stack: try require(fields.stack, .stack), from: try requireNullable(fields.fromRoute, .fromRoute),
                to: try requireRoute(fields.toRoute, .toRoute), params: fields.routeParams.take())
        case .routePopTo:
            payload = .routePopTo(
                stack: try require(fields.stack, .stack), from: try requireNullable(fields.fromRoute, .fromRoute),
                to: try requireNullable(fields.toRoute, .toRoute))
        case .routeInsert:
            payload = .routeInsert(
                stack: try require(fields.stack, .stack), route: try requireRoute(fields.toRoute, .toRoute),
                index: try require(fields.index, .index), params: fields.routeParams.take())
        case .routeRemove:
            payload = .routeRemove(stack: try require(fields.stack, .stack), route: try requireRoute(fields.toRoute, .toRoute))
        case .flowSwitch:
            payload = .flowSwitch(from: try require(fields.fromFlow, .fromFlow), to: try require(fields.toFlow, .toFlow))
        case .tabSwitch:
            payload = .tabSwitch(from: try requireNullable(fields.fromTab, .fromTab), to: try require(fields.toTab, .toTab))
        case .commandApplied:
            payload = .commandApplied(
                command: try require(fields.command, .command), fromFlow: try require(fields.fromFlow, .fromFlow),
                toFlow: try require(fields.toFlow, .toFlow))
        case .modalPresent:
            payload = .modalPresent(modal: try require(fields.modal, .modal), style: try require(fields.style, .style))
        case .modalDismiss:
            payload = .modalDismiss(modal: try require(fields.modal, .modal))
        case .screenView:
            payload = .screenView(try screen(), params: fields.routeParams.take())
        case .deepLink:
            payload = .deepLink(url: try require(fields.url, .url), outcome: try require(fields.outcome, .outcome))
        }
        return payload
    }

    /// `route_pop`'s amount: exactly one of `count` and `to_root: true`.
    @inline(__always)
    func popAmount() throws(EventDecodingError) -> NavigationEvent.PopAmount {
        switch (fields.count, fields.toRoot) {
        case (nil, true?): return .toRoot
        case (_?, true?):
            throw EventDecodingError(field: "count", message: "route_pop has exactly one of count and to_root: true")
        case (let count?, _): return .count(count)
        case (nil, _):
            throw EventDecodingError(field: "count", message: "missing (route_pop needs count or to_root: true)")
        }
    }

    /// `screen_view`'s screen: exactly one of `stack` (with its `to_route`, which may be null)
    /// and `modal`.
    @inline(__always)
    func screen() throws(EventDecodingError) -> NavigationEvent.ScreenClaim {
        switch (fields.stack, fields.modal) {
        case (let stack?, nil):
            guard let route = fields.toRoute else { throw missing(.toRoute, for: .screenView) }
            return .stack(text(stack), route: route.map { text($0) })
        case (nil, let modal?):
            if case .some(.some) = fields.toRoute {
                throw EventDecodingError(field: "to_route", message: "must be absent or null on a screen_view of a modal")
            }
            return .modal(text(modal))
        case (_?, _?):
            throw EventDecodingError(field: "modal", message: "screen_view has exactly one of stack and modal")
        case (nil, nil):
            throw EventDecodingError(field: "stack", message: "missing (screen_view needs stack or modal)")
        }
    }
}
