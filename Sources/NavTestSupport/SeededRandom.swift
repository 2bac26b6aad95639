/// A deterministic random number generator for seeded tests: xoshiro256** seeded by
/// SplitMix64, so every `UInt64` seed (0 included) gives a good, repeatable stream.
///
/// ```swift
/// var random = SeededRandom(seed: 42)
/// let count = Int.random(in: 20...80, using: &random)
/// ```
///
/// Print the seed in a failing test's message so that the failure can be replayed alone.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    public let seed: UInt64
    private var state: (UInt64, UInt64, UInt64, UInt64)

    public init(seed: UInt64) {
        self.seed = seed
        var mixer = seed
        func splitMix(_ x: inout UInt64) -> UInt64 {
            x &+= 0x9E37_79B9_7F4A_7C15
            var z = x
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        state = (splitMix(&mixer), splitMix(&mixer), splitMix(&mixer), splitMix(&mixer))
    }

    public mutating func next() -> UInt64 {
        let result = rotate(state.1 &* 5, 7) &* 9
        let t = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= t
        state.3 = rotate(state.3, 45)
        return result
    }

    private func rotate(_ x: UInt64, _ k: UInt64) -> UInt64 {
        (x << k) | (x >> (64 - k))
    }

    /// `true` with the given probability.
    public mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &self) < probability
    }

    /// An element of a non-empty collection (`nil` for an empty one).
    public mutating func pick<C: Collection>(_ collection: C) -> C.Element? {
        collection.randomElement(using: &self)
    }
}
