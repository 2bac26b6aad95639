import Foundation
import NavTestSupport
import Testing

/// `navreplay report`, end to end: the page read back by Python's HTML parser, then loaded in
/// headless Chromium by `scripts/render-report` (when Chromium is installed).
@Suite struct ReportCommandTests {
    /// Writes the report of SampleLogs plus a hostile log; returns its path.
    func writeReport(in scratch: TemporaryDirectory) throws -> String {
        let hostile = try scratch.write("hostile.ndjson", CIFormatTests.hostileLog())
        let page = scratch.url.appendingPathComponent("report.html").path
        let result = try navreplay([
            "report", "--quiet", "--worst", "20", "SampleLogs/clean", "SampleLogs/violations", hostile, "--output", page,
        ])
        #expect(result.status == 0)  // a data export: findings do not fail it without --fail-on
        return page
    }

    @Test func aSpilledAuditWritesTheSameReport() throws {
        // Sessions are added to the report as they fold: partitioned on two jobs, the page is
        // the in-memory one, byte for byte.
        let scratch = try TemporaryDirectory()
        let pages = try StreamedOutputTests.writtenInMemoryAndSpilled(["report", "--quiet", "--worst", "7"], scratch, extension: "html")
            .map { try String(contentsOfFile: $0, encoding: .utf8) }
        #expect(pages[0].contains("c0-s-bad"), "a worst session's timeline")
        let same = pages[0] == pages[1]
        #expect(same, "the two pages differ")
    }

    /// Parses the page with html.parser; prints facts the test checks, or exits 1.
    static let htmlCheck = #"""
        import sys
        from html.parser import HTMLParser
        class Page(HTMLParser):
            def __init__(self):
                super().__init__(convert_charrefs=True)
                self.tags, self.ids, self.text, self.attributes = set(), set(), [], []
            def handle_starttag(self, tag, attrs):
                self.tags.add(tag)
                for name, value in attrs:
                    self.attributes.append((tag, name, value or ""))
                    if name == "id": self.ids.add(value)
            def handle_data(self, data): self.text.append(data)
        page = Page()
        page.feed(open(sys.argv[1], encoding="utf-8").read())
        page.close()
        text = "".join(page.text)
        forbidden = {"script", "img", "iframe", "object", "embed", "link", "base", "form"} & page.tags
        assert not forbidden, forbidden
        for tag, name, value in page.attributes:
            assert name not in ("src", "href", "action", "srcset", "background") and not name.startswith("on"), (tag, name, value)
        for section in ["totals", "rules", "time", "paths", "screens", "depth", "lengths", "worst", "invalid", "inputs"]:
            assert section in page.ids, section
        assert "svg" in page.tags and "rect" in page.tags
        print("hostile text:", '</script>"><img src=x onerror=alert(1)>]]>' in text)
        print("ansi shown:", "\\u{1b}[31m" in text and "\x1b" not in text and "\n</script>" not in text)
        print("explanations:", "Moving from one flow to another goes through a typed command" in text)
        print("worst session:", "s-bad-flow-switch" in text)
        """#

    @Test func thePageIsSelfContainedAndHostileTextStaysText() throws {
        let scratch = try TemporaryDirectory()
        let page = try writeReport(in: scratch)
        let check = try python(Self.htmlCheck, arguments: [page])
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.stdout == "hostile text: True\nansi shown: True\nexplanations: True\nworst session: True\n")
    }

    static var chromium: String? {
        for directory in ["/usr/bin", "/usr/local/bin"] {
            for name in ["chromium", "chromium-browser", "google-chrome"] {
                let path = directory + "/" + name
                if FileManager.default.isExecutableFile(atPath: path) { return path }
            }
        }
        return nil
    }

    @Test(.enabled(if: chromium != nil, "Chromium is not installed (scripts/install-test-deps installs it)"))
    func chromiumLoadsThePageWithoutConsoleMessagesAndRendersIt() throws {
        let scratch = try TemporaryDirectory()
        let page = try writeReport(in: scratch)
        let png = scratch.url.appendingPathComponent("report.png").path
        let render = try run(Repository.path("scripts/render-report"), [page, png, "1280", "1600"])
        #expect(render.status == 0, "\(render.stderr)")
        #expect(render.stdout.contains("no console messages"))
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: png)))
        // A PNG of the asked size, with real content: a blank page compresses to a few kB.
        #expect(Array(bytes.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let height = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
        #expect(width == 1280 && height == 1600)
        #expect(bytes.count > 60_000)
    }

    @Test(.enabled(if: chromium != nil, "Chromium is not installed (scripts/install-test-deps installs it)"))
    func renderReportFailsOnAConsoleMessage() throws {
        let scratch = try TemporaryDirectory()
        let page = try scratch.write("bad.html", "<html><body><main>x</main><script>console.error('boom')</script></body></html>")
        let render = try run(Repository.path("scripts/render-report"), [page, scratch.url.appendingPathComponent("bad.png").path])
        #expect(render.status == 1)
        #expect(render.stderr.contains("boom"))
    }
}

/// Runs a program with arguments and returns its status and output.
func run(
    _ executable: String, _ arguments: [String], directory: URL? = nil, environment: [String: String] = [:]
) throws
    -> ProcessResult
{
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    var env = ProcessInfo.processInfo.environment
    for (key, value) in environment { env[key] = value }
    process.environment = env
    let scratch = try TemporaryDirectory()
    let out = scratch.url.appendingPathComponent("out")
    let err = scratch.url.appendingPathComponent("err")
    _ = FileManager.default.createFile(atPath: out.path, contents: nil)
    _ = FileManager.default.createFile(atPath: err.path, contents: nil)
    process.standardOutput = try FileHandle(forWritingTo: out)
    process.standardError = try FileHandle(forWritingTo: err)
    process.standardInput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return ProcessResult(
        status: process.terminationStatus, stdout: String(decoding: (try? Data(contentsOf: out)) ?? Data(), as: UTF8.self),
        stderr: String(decoding: (try? Data(contentsOf: err)) ?? Data(), as: UTF8.self))
}
