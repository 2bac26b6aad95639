import NavReplay
import NavResults
import Testing

/// The document formats' accumulator: only sessions with findings, in session order, whatever
/// order the jobs combined in; a session folded again replaces its first findings.
@Suite struct FindingsAccumulatorTests {
    static func audit(_ session: String, findings count: Int) -> SessionAudit {
        SessionAudit(
            sessionID: session,
            findings: (0..<count).map { seq in
                Finding(rule: .seqGap, sessionID: session, seq: Int64(seq), eventID: "e\(seq)", location: nil, message: "m\(seq)")
            })
    }

    @Test func sessionsWithFindingsComeInSessionOrderWhateverTheJobsOrder() {
        let accumulator = FindingsAccumulator()
        let folder = accumulator.folder
        var first = folder.makeLocal()
        var second = folder.makeLocal()
        folder.add(Self.audit("s3", findings: 1), model: 0, files: [], to: &first)
        folder.add(Self.audit("s1", findings: 2), model: 0, files: [], to: &second)
        folder.add(Self.audit("s2", findings: 0), model: 0, files: [], to: &second)  // clean: nothing kept
        accumulator.combine(first)
        accumulator.combine(second)
        let sessions = accumulator.finalize()
        #expect(sessions.map(\.sessionID) == ["s1", "s3"])
        #expect(sessions.map(\.findings.count) == [2, 1])
    }

    @Test func aSessionFoldedAgainReplacesItsFirstFindings() {
        let accumulator = FindingsAccumulator()
        let folder = accumulator.folder
        var first = folder.makeLocal()
        folder.add(Self.audit("s1", findings: 1), model: 0, files: [], to: &first)
        folder.add(Self.audit("s2", findings: 1), model: 0, files: [], to: &first)
        accumulator.combine(first)
        var again = folder.makeLocal()
        folder.replace(Self.audit("s1", findings: 1), with: Self.audit("s1", findings: 3), model: 0, files: [], in: &again)
        folder.replace(Self.audit("s2", findings: 1), with: Self.audit("s2", findings: 0), model: 0, files: [], in: &again)
        accumulator.combine(again)
        let sessions = accumulator.finalize()
        #expect(sessions.map(\.sessionID) == ["s1"])
        #expect(sessions.first?.findings.count == 3)
    }
}
