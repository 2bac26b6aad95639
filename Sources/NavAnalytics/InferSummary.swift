import NavJSON
import NavModel
public import NavReplay

/// What `infer` prints beside its draft: each element with the sessions that support it, what
/// was left out for lack of support, the sessions it could not explain, and, with `--merge`,
/// every addition.
public struct InferSummary {
    public var inference: Inference
    public var invalidLines: Int
    public var merging: Bool
    public var minSupport: Int

    public init(inference: Inference, invalidLines: Int, merging: Bool, minSupport: Int) {
        self.inference = inference
        self.invalidLines = invalidLines
        self.merging = merging
        self.minSupport = minSupport
    }

    /// Each element of the draft with its support: `stack tab1 route detail` → sessions.
    public var elements: [(String, Support)] {
        let names = inference.names
        var rows: [(String, Support)] = []
        for (clue, support) in names.clues {
            switch clue {
            case .flow(let flow): rows.append(("flow \(flow)", support))
            case .route(let stack, let route): rows.append(("stack \(stack) route \(route)", support))
            case .modal(let modal, let flow?): rows.append(("modal \(modal) in \(flow)", support))
            case .command(let command): rows.append(("command \(command)", support))
            case .tab(let tab, let flow?): rows.append(("flow \(flow) tab \(tab)", support))
            default: break
            }
        }
        for (stack, spec) in inference.draft.stacks {
            for route in spec.singletons {
                if let support = inference.behaviour.clues[.singletonChance(stack: stack, route: route)] {
                    rows.append(("stack \(stack) singleton \(route)", support))
                }
            }
        }
        return rows.sorted { $0.0 < $1.0 }
    }

    /// The rules whose findings no model removes, with the sessions that have them.
    public var keptRules: [(Rule, Support)] {
        inference.check.rules.filter { !InferCheck.modelRules.contains($0.key) }.sorted { $0.key.rawValue < $1.key.rawValue }
    }

    /// Findings of model rules the draft could not widen away (a command ending in two flows).
    public var unwidened: [(Rule, Support)] {
        inference.check.rules.filter { InferCheck.modelRules.contains($0.key) }.sorted { $0.key.rawValue < $1.key.rawValue }
    }

    public func text() -> String {
        let check = inference.check
        var out =
            "infer: \(check.sessions) session(s) in \(inference.passes) pass(es); \(check.modelClean) fold clean of the model's rules, \(check.clean) without any finding\n"
        if merging {
            out += "\nadded to the model (\(inference.additions.count)):\n"
            for line in inference.additions { out += "  \(line)\n" }
        }
        out += "\nelements, with the sessions that show them:\n"
        for (element, support) in elements { out += "  \(element): \(support.count) (\(support.sessions.joined(separator: ", ")))\n" }
        let left = inference.unsupportedSingletons
        out += "\nleft out for lack of support (--min-support \(minSupport)):\n"
        if left.isEmpty { out += "  none\n" }
        for (stack, route, support) in left {
            out += "  stack \(stack) singleton \(route): \(support.count) session(s) where it could have stood twice\n"
        }
        out += "\nnot explained (findings of rules the model does not decide: the draft keeps them):\n"
        if keptRules.isEmpty, unwidened.isEmpty, invalidLines == 0 { out += "  none\n" }
        if invalidLines > 0 { out += "  schema.invalid: \(invalidLines) line(s)\n" }
        for (rule, support) in keptRules + unwidened {
            out += "  \(rule.rawValue): \(support.count) session(s) (\(support.sessions.joined(separator: ", ")))\n"
        }
        return out
    }

    public func json() -> String {
        var writer = JSONWriter()
        let check = inference.check
        writer.beginObject()
        writer.key("sessions")
        writer.int(check.sessions)
        writer.key("passes")
        writer.int(inference.passes)
        writer.key("model_clean_sessions")
        writer.int(check.modelClean)
        writer.key("clean_sessions")
        writer.int(check.clean)
        writer.key("min_support")
        writer.int(minSupport)
        if merging {
            writer.key("additions")
            writer.beginArray()
            for line in inference.additions { writer.string(line) }
            writer.endArray()
        }
        writer.key("elements")
        writer.beginArray()
        for (element, support) in elements { write(element, support, to: &writer) }
        writer.endArray()
        writer.key("left_out")
        writer.beginArray()
        for (stack, route, support) in inference.unsupportedSingletons { write("stack \(stack) singleton \(route)", support, to: &writer) }
        writer.endArray()
        writer.key("invalid_lines")
        writer.int(invalidLines)
        writer.key("not_explained")
        writer.beginArray()
        for (rule, support) in keptRules + unwidened { write(rule.rawValue, support, to: &writer, key: "rule") }
        writer.endArray()
        writer.key("unexplained_sessions")
        writer.beginArray()
        for (session, rules) in check.unexplained.sorted(by: { $0.key.utf8Precedes($1.key) }) {
            writer.beginObject()
            writer.member("session_id", session)
            writer.key("rules")
            writer.beginArray()
            for rule in rules.map(\.rawValue).sorted() { writer.string(rule) }
            writer.endArray()
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.string + "\n"
    }

    private func write(_ name: String, _ support: Support, to writer: inout JSONWriter, key: String = "element") {
        writer.beginObject()
        writer.member(key, name)
        writer.key("sessions")
        writer.int(support.count)
        writer.key("examples")
        writer.beginArray()
        for session in support.sessions { writer.string(session) }
        writer.endArray()
        writer.endObject()
    }
}
