import NavReport
import Testing

/// The workflow-command escaping rules of GitHub Actions.
@Suite struct GitHubWriterTests {
    @Test(arguments: [
        ("a%b\r\nc", "a%25b%0D%0Ac", "a%25b%0D%0Ac"),
        ("path:with,comma", "path:with,comma", "path%3Awith%2Ccomma"),
        ("ansi \u{1B}[31m", "ansi \\u{1b}[31m", "ansi \\u{1b}[31m"),
        ("::error::x", "::error::x", "%3A%3Aerror%3A%3Ax"),
    ])
    func escaping(input: String, data: String, property: String) {
        #expect(GitHubWriter.data(input) == data)
        #expect(GitHubWriter.property(input) == property)
    }
}
