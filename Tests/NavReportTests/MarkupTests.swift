import Testing

@testable import NavReport

/// Escaping for XML and HTML: markup characters, controls, and line ends in attributes.
@Suite struct MarkupTests {
    @Test(arguments: [
        ("</script>", "&lt;/script&gt;"),
        ("\"><img src=x onerror=alert(1)>", "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"),
        ("]]>", "]]&gt;"),
        ("a & 'b'", "a &amp; &#39;b&#39;"),
        ("\u{1B}[31mred", "\\u{1b}[31mred"),
        ("line\nbreak", "line\\u{a}break"),
    ])
    func logTextIsInert(input: String, expected: String) {
        #expect(Markup.text(input) == expected)
    }

    @Test func attributesKeepLineEndsAsReferences() {
        #expect(Markup.escape("a\nb\tc", attribute: true) == "a&#10;b&#9;c")
        #expect(Markup.escape("a\nb", attribute: false) == "a\nb")
        #expect(Markup.escape("\u{0}\u{FFFE}") == "\\u{0}\\u{fffe}")
    }
}
