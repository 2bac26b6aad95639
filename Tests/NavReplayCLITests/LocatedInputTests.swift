import Foundation
import NavTestSupport
import Testing

/// `--located-input`: lines that carry their original file and line (as a distributed job
/// sends them) give exactly the findings of reading the original files.
@Suite struct LocatedInputTests {
    @Test func locatedLinesReportTheOriginalFileAndLine() throws {
        let originals = ["SampleLogs/clean/app-2026-11-20-upload1.ndjson", "SampleLogs/violations/app-2026-11-20-broken.ndjson"]
        let scratch = try TemporaryDirectory()
        // The paths file lists the originals in any order; indices refer to its lines.
        let listed = originals.reversed().map { $0 }
        let pathsFile = try scratch.write("paths.txt", listed.joined(separator: "\n") + "\n")
        // Interleave the two files' lines, as a shuffle would.
        var located: [[UInt8]] = []
        for original in originals {
            let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Repository.path(original))))
            var lines = data.split(separator: 0x0A, omittingEmptySubsequences: false)
            let endsWithNewline = data.last == 0x0A
            if endsWithNewline { lines.removeLast() }
            let index = listed.firstIndex(of: original) ?? 0
            for (number, line) in lines.enumerated() {
                let unterminated = !endsWithNewline && number == lines.count - 1
                located.append(Array("\(index)\t\(number + 1)\(unterminated ? "u" : "")\t".utf8) + Array(line))
            }
        }
        var stream: [UInt8] = []
        let shuffled = located.enumerated().sorted { ($0.offset % 7, $0.offset) < ($1.offset % 7, $1.offset) }.map(\.element)
        for line in shuffled { stream += line + [0x0A] }
        let fromStream = try navreplay(["audit", "-q", "--format", "ndjson", "--located-input", pathsFile, "-"], stdin: Data(stream))
        let fromFiles = try navreplay(["audit", "-q", "--format", "ndjson"] + originals)
        #expect(fromStream.status == 1)
        #expect(fromStream.stdout == fromFiles.stdout)
        #expect(fromStream.stdout.contains("torn line"))
    }

    @Test func aLineWithoutItsPlaceIsAnInputError() throws {
        let scratch = try TemporaryDirectory()
        let pathsFile = try scratch.write("paths.txt", "a.ndjson\n")
        let result = try navreplay(["audit", "--located-input", pathsFile, "-"], stdin: Data("{}\n".utf8))
        #expect(result.status == 2)
        #expect(result.stderr.contains("not located input"))
    }

    /// A malformed prefix is named: what is wrong, and which physical line. The lines before it
    /// are audited; the rest of the file is not read (the job that wrote it is broken), and the
    /// run fails with exit status 2, as a corrupt gzip member does.
    @Test(arguments: [
        ("{}", "it does not start with FILE_INDEX"),
        ("x\t2\t{}", "it does not start with FILE_INDEX"),
        ("1\t2\t{}", "its FILE_INDEX 1 names no line of the paths file, which has 1 (0 to 0)"),
        ("0 2\t{}", "a tab must follow FILE_INDEX"),
        ("0\t0\t{}", "its LINE is not a line number"),
        ("0\t02\t{}", "its LINE is not a line number"),
        ("0\t99999999999999999999\t{}", "its LINE is not a line number"),
        ("0\t2x\t{}", "a tab must follow LINE"),
    ])
    func aMalformedPrefixIsNamedAndTheLinesBeforeItAreAudited(_ bad: String, _ reason: String) throws {
        let scratch = try TemporaryDirectory()
        let pathsFile = try scratch.write("paths.txt", "a.ndjson\n")
        let summary = scratch.path("summary.json")
        let stream = "0\t1\t" + Lines.start + "\n" + bad + "\n" + "0\t3\t" + Lines.push() + "\n"
        let result = try navreplay(
            ["audit", "-q", "--summary", summary, "--located-input", pathsFile, "-"], stdin: Data(stream.utf8))
        #expect(result.status == 2)
        #expect(result.stderr.contains("line 2 is not located input (FILE_INDEX<TAB>LINE<TAB>line): \(reason)"), "\(result.stderr)")
        #expect(result.stderr.contains("the rest of the file is not read"))
        let counts = try Summary(path: summary)
        #expect(counts["events"] == 1)
        #expect(counts["unreadable_files"] == 1)
        counts.expectBalanced()
    }

    /// The Spark job pads a file index with zeros (so that a line near the length limit reads
    /// as in the original file): `00` is index 0.
    @Test func aFileIndexMayHaveLeadingZeros() throws {
        let scratch = try TemporaryDirectory()
        let pathsFile = try scratch.write("paths.txt", "a.ndjson\n")
        let stream = "00\t1\t" + Lines.start + "\n" + "000\t2\t" + Lines.push() + "\n"
        let result = try navreplay(["audit", "-q", "--format", "ndjson", "--located-input", pathsFile, "-"], stdin: Data(stream.utf8))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func anEmptyPathsFileIsNamedAsEmpty() throws {
        let scratch = try TemporaryDirectory()
        let pathsFile = try scratch.write("paths.txt", "")
        let result = try navreplay(["audit", "-q", "--located-input", pathsFile, "-"], stdin: Data(("0\t1\t" + Lines.start + "\n").utf8))
        #expect(result.status == 2)
        #expect(result.stderr.contains("its FILE_INDEX 0 names no line of the paths file, which is empty"), "\(result.stderr)")
    }
}
