/// Which step each finding of a session goes with: the step of its seq, or, for a line that was
/// not folded, the latest step before it. Found by one walk of the steps in seq order beside the
/// findings in seq order (`SessionAudit.forEachStep`), holding nothing a step: a session audited
/// from disk walks its steps from there.
public struct FindingSteps {
    /// A step: its place in the walk, its seq and its time (epoch milliseconds).
    public struct Step: Sendable, Equatable {
        public var index: Int
        public var seq: Int64
        public var time: Int64
    }

    /// The findings that have a seq, each with its place in the session's findings, in seq order.
    private let order: [(seq: Int64, finding: Int)]
    private var next = 0
    private var previous: Step?
    /// For each finding, in the session's order: its step; `nil` for a finding with no seq, or
    /// before every step.
    public private(set) var steps: [Step?]
    /// The first step walked, and how many were.
    public private(set) var first: Step?
    public private(set) var count = 0

    public init(_ findings: [Finding]) {
        order = findings.indices.compactMap { index in findings[index].seq.map { ($0, index) } }
            .sorted { $0.seq != $1.seq ? $0.seq < $1.seq : $0.finding < $1.finding }
        steps = Array(repeating: nil, count: findings.count)
    }

    /// The next step, in seq order.
    public mutating func step(seq: Int64, time: Int64) {
        while next < order.count, order[next].seq < seq {
            steps[order[next].finding] = previous
            next += 1
        }
        let step = Step(index: count, seq: seq, time: time)
        while next < order.count, order[next].seq == seq {
            steps[order[next].finding] = step
            next += 1
        }
        if first == nil { first = step }
        previous = step
        count += 1
    }

    /// Once every step is walked: the findings after the last step go with it.
    public mutating func finish() {
        while next < order.count {
            steps[order[next].finding] = previous
            next += 1
        }
    }
}
