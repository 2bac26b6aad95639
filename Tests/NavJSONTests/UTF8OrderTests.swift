import NavJSON
import NavTestSupport
import Testing

/// `String.utf8Precedes`, the order of sessions, findings and paths in every output: byte order
/// of the UTF-8 forms, whatever the strings' storage.
@Suite struct UTF8OrderTests {
    @Test func prefixesAndEmptyStringsSortFirst() {
        #expect("".utf8Precedes("a"))
        #expect(!"a".utf8Precedes(""))
        #expect(!"".utf8Precedes(""))
        #expect("abc".utf8Precedes("abcd"))
        #expect(!"abcd".utf8Precedes("abc"))
        #expect(!"abc".utf8Precedes("abc"))
    }

    @Test func bytesCompareUnsignedNotByUnicodeEquivalence() {
        // "é" precomposed (C3 A9) against "e" and a combining accent (65 CC 81): `<` calls them
        // equal; bytes put the decomposed form first.
        #expect("e\u{301}".utf8Precedes("\u{E9}"))
        #expect(!"\u{E9}".utf8Precedes("e\u{301}"))
        // A byte over 0x7F sorts after ASCII (unsigned, as memcmp compares).
        #expect("z".utf8Precedes("\u{E9}"))
        #expect("Z".utf8Precedes("a"))
    }

    @Test func agreesWithTheGenericByteOrderOnRandomStrings() {
        var random = SeededRandom(seed: 7)
        let alphabet: [Character] = ["a", "b", "-", "0", "é", "e", "\u{301}", "😀", "Z"]
        func word() -> String {
            // Small (inline) and large (heap) strings both.
            String((0..<Int.random(in: 0...24, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
        }
        for _ in 0..<2_000 {
            let left = word()
            let right = Bool.random(using: &random) ? left + word() : word()
            #expect(left.utf8Precedes(right) == left.utf8.lexicographicallyPrecedes(right.utf8), "\(left) vs \(right)")
            #expect(right.utf8Precedes(left) == right.utf8.lexicographicallyPrecedes(left.utf8), "\(right) vs \(left)")
        }
    }
}
