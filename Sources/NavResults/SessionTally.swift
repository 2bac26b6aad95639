#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import CNavSupport
import Dispatch
import NavEvents
import NavJSON
import NavModel
package import NavReplay

/// What the summary needs of folded sessions: counts that add up over sessions in any order.
package struct SessionTally: Sendable {
    package var sessions = 0
    package var redeliveries: Int64 = 0
    package var duplicates: Int64 = 0
    package var events: Int64 = 0
    /// Every finding, kept or dropped past `--max-findings-per-session`.
    package var findings = 0
    package var findingsByRule: [Rule: Int] = [:]
    /// Findings kept (and so shown), by severity.
    package var keptBySeverity: [Severity: Int] = [:]

    package init() {}

    /// What `other` added to a tally: taken away again (a session folded twice).
    package mutating func subtract(_ other: SessionTally) {
        sessions -= other.sessions
        redeliveries -= other.redeliveries
        duplicates -= other.duplicates
        events -= other.events
        findings -= other.findings
        findingsByRule.merge(other.findingsByRule.mapValues { -$0 }, uniquingKeysWith: +)
        keptBySeverity.merge(other.keptBySeverity.mapValues { -$0 }, uniquingKeysWith: +)
        findingsByRule = findingsByRule.filter { $0.value != 0 }
        keptBySeverity = keptBySeverity.filter { $0.value != 0 }
    }

    package init(_ audit: SessionAudit) {
        sessions = 1
        redeliveries = Int64(audit.redeliveries)
        duplicates = Int64(audit.duplicates)
        events = Int64(audit.events + audit.eventsPastUntil)
        findings = audit.findingCount
        for finding in audit.findings {
            findingsByRule[finding.rule, default: 0] += 1
            keptBySeverity[finding.severity, default: 0] += 1
        }
        for (rule, dropped) in audit.droppedFindings { findingsByRule[rule, default: 0] += dropped }
    }

    package mutating func add(_ other: SessionTally) {
        sessions += other.sessions
        redeliveries += other.redeliveries
        duplicates += other.duplicates
        events += other.events
        findings += other.findings
        findingsByRule.merge(other.findingsByRule, uniquingKeysWith: +)
        keptBySeverity.merge(other.keptBySeverity, uniquingKeysWith: +)
    }
}
