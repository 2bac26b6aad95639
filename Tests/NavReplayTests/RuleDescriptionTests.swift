import NavEvents
import NavJSON
import NavModel
import NavReplay
import Testing

/// Every rule's description (Sources/NavReplay/Rules/) against the real audit: what the manual
/// (`navreplay rules`) says triggers a rule does, and what it says does not, does not.
@Suite struct RuleDescriptionTests {
    /// The rules a log draws: the decoder's schema.invalid for lines it cannot read, then each
    /// session's audit.
    static func rules(of log: String, model: NavigationModel) -> [Rule] {
        var found: [Rule] = []
        var sessions: [String: [SessionLine]] = [:]
        var order: [String] = []
        for (index, line) in log.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
            switch EventDecoder().decode(String(line)) {
            case .failure: found.append(.schemaInvalid)
            case .success(let decoded):
                let id = decoded.event.sessionID
                if sessions[id] == nil { order.append(id) }
                sessions[id, default: []].append(SessionLine(decoded: decoded, location: LineLocation(file: 0, line: Int64(index + 1))))
            }
        }
        for id in order {
            found += SessionAuditor.audit(sessionID: id, lines: sessions[id] ?? [], model: model).findings.map(\.rule)
        }
        return found
    }

    @Test(arguments: Rule.allCases)
    func examplesDoWhatTheDescriptionSays(_ rule: Rule) throws {
        let description = rule.ruleDescription
        #expect(description.id == rule.rawValue)
        #expect(!description.triggeringExamples.isEmpty && !description.nonTriggeringExamples.isEmpty)
        #expect(!description.likelyCauses.isEmpty)
        let model = try description.exampleModel.map { try NavigationModel.load(json: $0) } ?? .poc
        for example in description.triggeringExamples {
            let found = Self.rules(of: example, model: model)
            #expect(found.contains(rule), "draws \(found.map(\.rawValue)), not \(rule.rawValue):\n\(example)")
        }
        for example in description.nonTriggeringExamples {
            let found = Self.rules(of: example, model: model)
            #expect(found.isEmpty, "draws \(found.map(\.rawValue)):\n\(example)")
        }
    }

    @Test func theRuleReadsItsDescription() {
        #expect(Rule.stackNotOwned.severity == .error && Rule.seqGap.severity == .warning)
        #expect(Rule.seqGap.summary == "Seq numbers are missing: events were lost.")
        #expect(Rule.seqGap.explanation.hasPrefix(Rule.seqGap.ruleDescription.explanation + " Likely causes: events lost"))
    }
}
