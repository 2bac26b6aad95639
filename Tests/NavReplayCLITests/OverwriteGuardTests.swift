import Foundation
import NavTestSupport
import Testing

/// No file one run writes may be a file it reads, or another of its outputs: each pair is
/// refused with exit status 2, naming both, before anything is written (issue 33, defect 4).
@Suite struct OverwriteGuardTests {
    static let writes = ["--output", "--summary", "--quarantine", "--write-baseline"]

    /// The files a run reads, and a baseline that accepts nothing.
    struct Fixture {
        let scratch: TemporaryDirectory
        let log: String
        let baseline: String
        let paths: String
        let model: String

        init() throws {
            scratch = try TemporaryDirectory()
            log = try scratch.write("log.ndjson", Lines.clean)
            baseline = try scratch.write("baseline.json", #"{"navreplay_baseline":1,"findings":[]}"# + "\n")
            paths = try scratch.write("paths.txt", "original.ndjson\n")
            model = try scratch.write(
                "model.json", try String(contentsOfFile: Repository.path("SampleLogs/poc.model.json"), encoding: .utf8))
            try FileManager.default.createDirectory(atPath: scratch.path("sub"), withIntermediateDirectories: true)
        }

        var contents: [String: [UInt8]] {
            Dictionary(uniqueKeysWithValues: [log, baseline, paths, model].map { ($0, (try? Repository.read($0)) ?? []) })
        }
    }

    static var writePairs: [(String, String)] {
        writes.indices.flatMap { first in writes[(first + 1)...].map { (writes[first], $0) } }
    }

    @Test(arguments: writePairs, [false, true])
    func twoOutputsThatAreOneFileAreRefused(_ pair: (String, String), exists: Bool) throws {
        let (first, second) = pair
        let fixture = try Fixture()
        let target = fixture.scratch.path("out")
        if exists { _ = try fixture.scratch.write("out", "earlier\n") }
        // The second spelling goes through another directory and back.
        let arguments = ["audit", first, target, second, fixture.scratch.path("sub/../out"), fixture.log]
        let result = try navreplay(arguments)
        #expect(result.status == 2, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains("\(first) \(target) and \(second) "), "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains("are one file"), "\(arguments): \(result.stderr)")
        let now = FileManager.default.contents(atPath: target).map { [UInt8]($0) }
        #expect(now == (exists ? Array("earlier\n".utf8) : nil), "\(arguments) wrote the file")
    }

    /// Each file the run reads, as an option (or standard input) and its path.
    enum Read: String, CaseIterable {
        case input, model, baseline, locatedInput, standardInput

        func arguments(_ fixture: Fixture) -> (options: [String], path: String, stdin: String?) {
            switch self {
            case .input: (["--format", "json", fixture.log], fixture.log, nil)
            case .model: (["--model", fixture.model, fixture.log], fixture.model, nil)
            case .baseline: (["--baseline", fixture.baseline, fixture.log], fixture.baseline, nil)
            case .locatedInput: (["--located-input", fixture.paths, "-"], fixture.paths, nil)
            case .standardInput: (["-"], fixture.log, fixture.log)
            }
        }

        var named: String {
            switch self {
            case .input, .model: "(an input or a model)"
            case .baseline: "(the --baseline file)"
            case .locatedInput: "(the --located-input file)"
            case .standardInput: "(standard input)"
            }
        }
    }

    @Test(arguments: writes, Read.allCases)
    func anOutputThatIsAFileTheRunReadsIsRefused(_ write: String, _ read: Read) throws {
        let fixture = try Fixture()
        let before = fixture.contents
        let (options, path, stdin) = read.arguments(fixture)
        // Named through another directory and back, so only the file's identity can match.
        let spelled = fixture.scratch.path("sub/../" + (path as NSString).lastPathComponent)
        let arguments = ["audit", write, spelled] + options
        let outcome = try ChildProcess(try Executables.navreplay(), arguments, stdinPath: stdin ?? "/dev/null").wait(killingAfter: 60)
        #expect(outcome.exitStatus == 2, "\(arguments): \(outcome.stderrText)")
        #expect(
            outcome.stderrText.contains("\(write) \(spelled) is a file this run reads \(read.named)"), "\(arguments): \(outcome.stderrText)"
        )
        #expect(fixture.contents == before, "\(arguments) changed a file it reads")
    }

    @Test func outputsToDevicesAndToStandardOutputByNameAreStillWritten() throws {
        let fixture = try Fixture()
        let devices = try navreplay(["audit", "--output", "/dev/null", "--summary", "/dev/null", "--quarantine", "/dev/null", fixture.log])
        #expect(devices.status == 0, "\(devices.stderr)")
        let standard = try navreplay([
            "audit", "--format", "ndjson", "--output", "/dev/stdout", "--summary", "/dev/stdout", "-q", fixture.log,
        ])
        #expect(standard.status == 0, "\(standard.stderr)")
        #expect(standard.stdout.contains("\"files\""), "\(standard.stdout)")
        let reread = try navreplay(["audit", "--baseline", fixture.baseline, "--output", fixture.scratch.path("report"), fixture.log])
        #expect(reread.status == 0, "\(reread.stderr)")
    }

    @Test func otherCommandsRefuseTwoOutputsThatAreOneFile() throws {
        let fixture = try Fixture()
        let target = fixture.scratch.path("out")
        for command in [["sessions", "--format", "sqlite"], ["sessions"], ["report"], ["replay", "--session", "s"], ["validate"]] {
            let result = try navreplay(command + ["--output", target, "--summary", target, fixture.log])
            #expect(result.status == 2, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("are one file"), "\(command): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: target), "\(command) wrote \(target)")
        }
    }
}
