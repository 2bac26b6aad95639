import NavModel
import NavReplay
import NavTestSupport
import Testing

/// `StepStates`: the states after a session's steps, kept as shared stacks, must give back
/// exactly what was recorded, and the changes `NavigationState.changes(to:)` lists.
@Suite("Step states")
struct StepStatesTests {
    /// Random states, each a few edits from the last (push, pops, a replaced or cleared stack,
    /// a stack added or removed, modals presented and dismissed, flow and tab switches), must
    /// come back equal, with the same changes, in every seed.
    @Test(arguments: 0..<40)
    func recordedStatesComeBackWithTheirChanges(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let names = ["a", "b", "c", "d", "é", "Z"]
        let stackNames = ["tab1", "tab2", "onboarding", "Tab3", "modalStack"]
        var state = NavigationState(flow: "main", tab: "tab1", stacks: ["tab1": ["a"], "tab2": []], modals: [])
        var recorded = StepStates(initial: state)
        var expected: [(state: NavigationState, changes: [StateChange])] = []
        var previous = state
        for _ in 0..<Int.random(in: 1...120, using: &random) {
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                let stack = stackNames.randomElement(using: &random)!
                switch Int.random(in: 0..<10, using: &random) {
                case 0, 1, 2: state.stacks[stack, default: []].append(names.randomElement(using: &random)!)
                case 3: if state.stacks[stack]?.isEmpty == false { state.stacks[stack]!.removeLast() }
                case 4:
                    if let count = state.stacks[stack]?.count, count > 0 {
                        state.stacks[stack]!.removeLast(Int.random(in: 1...count, using: &random))
                    }
                case 5: state.stacks[stack] = (0..<Int.random(in: 0...5, using: &random)).map { _ in names.randomElement(using: &random)! }
                case 6: state.stacks[stack] = nil
                case 7:
                    if Bool.random(using: &random) || state.modals.isEmpty {
                        state.modals.append(names.randomElement(using: &random)!)
                    } else {
                        state.modals.remove(at: Int.random(in: 0..<state.modals.count, using: &random))
                    }
                case 8: state.flow = ["main", "onboarding", "authorized"].randomElement(using: &random)!
                default: state.tab = [nil, "tab1", "tab2"].randomElement(using: &random)!
                }
            }
            recorded.record(state)
            expected.append((state, previous.changes(to: state)))
            previous = state
        }
        let walked = recorded.materialized
        #expect(walked.count == expected.count, "seed \(seed)")
        for (index, (got, want)) in zip(walked, expected).enumerated() {
            #expect(got.state == want.state, "seed \(seed), step \(index)")
            #expect(got.changes == want.changes, "seed \(seed), step \(index)")
        }
    }

    /// The point of the type: a stack pushed N deep holds N nodes, not N x N / 2 names, and a
    /// path built again reuses its nodes.
    @Test func aDeepStackSharesItsRoutesAcrossSteps() {
        var state = NavigationState(flow: "main", tab: "tab1", stacks: ["tab1": []])
        var recorded = StepStates(initial: state)
        for index in 0..<5000 {
            state.stacks["tab1"]!.append("r\(index)")
            recorded.record(state)
        }
        #expect(recorded.nodeCount == 5000)
        // The same snapshot again and again, and pops back down: no new node.
        for _ in 0..<100 {
            state.stacks["tab1"] = []
            recorded.record(state)
            state.stacks["tab1"] = (0..<5000).map { "r\($0)" }
            recorded.record(state)
        }
        #expect(recorded.nodeCount == 5000)
        #expect(recorded.count == 5200)
        var cursor = recorded.cursor()
        var depths: [Int] = []
        while cursor.advance() { cursor.forEachStackDepth { _, depth in depths.append(depth) } }
        #expect(depths.prefix(3) == [1, 2, 3])
        #expect(depths.suffix(2) == [0, 5000])
        #expect(cursor.state.stacks["tab1"]?.last == "r4999")
    }

    /// `condensedState` and `condensedChanges` are the states and changes with every list
    /// condensed as findings list names (`ListedNames`), on stacks and modals that grow past it.
    @Test(arguments: 0..<20)
    func condensedStatesAreTheWholeOnesListedAsFindingsListNames(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let names = ["a", "b", "c"]
        var state = NavigationState(flow: "main", tab: "tab1", stacks: ["tab1": [], "tab2": ["a"]], modals: [])
        var recorded = StepStates(initial: state)
        for _ in 0..<200 {
            let stack = Bool.random(using: &random) ? "tab1" : "tab2"
            switch Int.random(in: 0..<8, using: &random) {
            case 0, 1, 2, 3:
                state.stacks[stack, default: []] += (0..<Int.random(in: 1...6, using: &random)).map { _ in
                    names.randomElement(using: &random)!
                }
            case 4:
                if let count = state.stacks[stack]?.count, count > 0 {
                    state.stacks[stack]!.removeLast(Int.random(in: 1...count, using: &random))
                }
            case 5:
                // A change in the middle only.
                if let count = state.stacks[stack]?.count, count > 0 {
                    state.stacks[stack]![count / 2] = names.randomElement(using: &random)!
                }
            case 6: state.modals.append(names.randomElement(using: &random)!)
            default: if !state.modals.isEmpty { state.modals.removeFirst() }
            }
            recorded.record(state)
        }
        func condensed(_ state: NavigationState) -> NavigationState {
            NavigationState(
                flow: state.flow, tab: state.tab, stacks: state.stacks.mapValues { ListedNames($0).shown },
                modals: ListedNames(state.modals).shown)
        }
        var cursor = recorded.cursor()
        var deepest = 0
        while cursor.advance() {
            #expect(cursor.condensedState == condensed(cursor.state), "seed \(seed), step \(cursor.step)")
            #expect(cursor.condensedChanges.map(\.description) == cursor.changes.map(\.condensedDescription), "seed \(seed)")
            cursor.forEachStackDepth { _, depth in deepest = max(deepest, depth) }
        }
        #expect(deepest > ListedNames.limit, "seed \(seed): no stack grew past the limit")
    }

    @Test func noStepsWalkNothing() {
        let recorded = StepStates(initial: NavigationState(flow: "main", modals: ["m"]))
        var cursor = recorded.cursor()
        let advanced = cursor.advance()
        #expect(!advanced)
        #expect(recorded.materialized.isEmpty)
    }
}
