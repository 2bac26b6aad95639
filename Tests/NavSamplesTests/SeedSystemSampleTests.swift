import Foundation
import NavEvents
import NavModel
import NavSamples
import NavTestSupport
import Testing

/// Every seed system's `SampleLogs/<id>/` is what the router-driven scenarios write, and
/// `navreplay audit SampleLogs/<id>` (with or without `--model`) gives exactly the golden
/// findings in `SampleLogs/expected/<id>.audit.jsonl`: none for the clean log, and for the
/// violating log exactly the invariants the system states.
@Suite("Seed systems: samples and golden findings")
struct SeedSystemSampleTests {
    static let ids = SeedSystems.all.map(\.id)

    @Test func theSampleFilesAreWhatTheScenariosWrite() throws {
        for file in SampleLogs.systemFiles() {
            let upToDate = (try? Repository.read("SampleLogs/" + file.path)) == file.bytes
            #expect(upToDate, "SampleLogs/\(file.path) is stale: run scripts/regenerate-samples")
        }
    }

    @Test func theSpaceHubShowsSpaceInfoOnThePathOrItsProfileAsASheet() throws {
        // showScreen(.spaceInfo): pushed when the space can be edited, else its profile sheet.
        let system = try #require(SeedSystems.named("space-hub"))
        let model = try NavigationModel.load(json: system.modelJSON)
        var builder = EventBuilder()
        let sheet = [builder.start(), builder.make(.modalPresent(modal: "spaceProfile", style: .sheet))]
        #expect(try findings(sheet, model: model) == [])
        let cover = [
            builder.make(.modalDismiss(modal: "spaceProfile")), builder.make(.modalPresent(modal: "spaceProfile", style: .cover)),
        ]
        #expect(try findings(sheet + cover, model: model) == ["modal.not_allowed@3"])
    }

    @Test func thePoCModelFileIsTheModelOfThePoCsCode() throws {
        let text = String(decoding: try Repository.read("SampleLogs/" + SampleLogs.pocModelPath), as: UTF8.self)
        #expect(text == PoCAppSystem.modelJSON + "\n")
        #expect(try Repository.read("SampleLogs/poc-app/model.json") == Repository.read("SampleLogs/" + SampleLogs.pocModelPath))
        // Not the built-in model, which follows the document.
        #expect(try NavigationModel.load(json: text) != NavigationModel.poc)
    }

    @Test(arguments: ids)
    func theModelFileLoads(_ id: String) throws {
        let system = try #require(SeedSystems.named(id))
        let model = try NavigationModel.load(json: try Repository.read("SampleLogs/\(id)/model.json"))
        #expect(model.name == id)
        #expect(model == system.model)
    }

    @Test(.enabled(if: Repository.pythonHasJSONSchema, "needs python3 with jsonschema (scripts/test installs it)"))
    func everyModelFileIsValidAgainstTheSchema() throws {
        let files = [SampleLogs.pocModelPath] + Self.ids.map { "\($0)/model.json" }
        let result = try Repository.run(
            "/usr/bin/env",
            [
                "python3", Repository.path("scripts/schema_conformance.py"), "--model-schema",
                Repository.path("Schemas/navigation-model.v1.schema.json"),
            ] + files.map { Repository.path("SampleLogs/" + $0) })
        let rows = result.stdout.split(separator: "\n").map(String.init)
        #expect(rows.count == files.count, "\(result)")
        for row in rows { #expect(row.hasSuffix("\tvalid"), "\(row)") }
    }

    @Test(arguments: ids)
    func auditingTheDirectoryGivesTheGoldenFindings(_ id: String) throws {
        let golden = String(decoding: try Repository.read("SampleLogs/expected/\(id).audit.jsonl"), as: UTF8.self)
        let byDirectory = try navreplay(["audit", "--quiet", "--format", "ndjson", "SampleLogs/\(id)"])
        #expect(byDirectory.status == 1)
        #expect(byDirectory.stdout == golden)
        let byModel = try navreplay(
            ["audit", "--quiet", "--format", "ndjson", "--model", "SampleLogs/\(id)/model.json", "SampleLogs/\(id)/"])
        #expect(byModel.status == 1)
        #expect(byModel.stdout == golden)
    }

    @Test(arguments: ids)
    func theCleanLogHasNoFindings(_ id: String) throws {
        let result = try navreplay(["audit", "SampleLogs/\(id)/clean.ndjson", "--model", "SampleLogs/\(id)/model.json"])
        #expect(result.status == 0)
        #expect(result.stdout == "no findings\n")
        let system = try #require(SeedSystems.named(id))
        #expect(result.stderr.contains("\(system.clean().count) session(s)"), "\(result.stderr)")
    }

    @Test(arguments: ids)
    func theViolationsShowExactlyTheSystemsInvariants(_ id: String) throws {
        let system = try #require(SeedSystems.named(id))
        let golden = String(decoding: try Repository.read("SampleLogs/expected/\(id).audit.jsonl"), as: UTF8.self)
        var rules: Set<String> = []
        var sessions: Set<String> = []
        for line in golden.split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            rules.insert(try #require(object["rule"] as? String))
            sessions.insert(try #require(object["session_id"] as? String))
            #expect((object["file"] as? String)?.hasSuffix("/violations.ndjson") == true, "\(line)")
        }
        #expect(rules.sorted() == system.invariants)
        // Every violating session shows something.
        #expect(sessions == Set(system.violating().map(\.id)))
    }

    @Test func thePoCIsAuditedWithTheBuiltInModel() throws {
        let golden = String(decoding: try Repository.read("SampleLogs/expected/poc.audit.jsonl"), as: UTF8.self)
        let builtIn = try navreplay(["audit", "--quiet", "--format", "ndjson", "SampleLogs/clean", "SampleLogs/violations"])
        #expect(builtIn.status == 1)
        #expect(builtIn.stdout == golden)
        // The model of the PoC's code audits its own logs, as poc-app/model.json does.
        let file = try navreplay(
            ["audit", "--quiet", "--format", "ndjson", "--model", "SampleLogs/poc.model.json", "SampleLogs/poc-app"])
        #expect(file.stdout == String(decoding: try Repository.read("SampleLogs/expected/poc-app.audit.jsonl"), as: UTF8.self))
    }

    @Test func auditingAllOfSampleLogsFoldsEachSystemWithItsOwnModel() throws {
        let whole = try navreplay(["audit", "--quiet", "--format", "ndjson", "SampleLogs"])
        #expect(whole.status == 1)
        var expected: [String] = []
        for name in ["poc"] + Self.ids {
            let golden = String(decoding: try Repository.read("SampleLogs/expected/\(name).audit.jsonl"), as: UTF8.self)
            expected += golden.split(separator: "\n").map(String.init)
        }
        let lines = whole.stdout.split(separator: "\n").map(String.init)
        // The same findings; the whole audit orders them by session across systems.
        #expect(lines.sorted() == expected.sorted())
    }

    @Test func theSampleSystemsPageDescribesEverySystem() throws {
        let page = String(decoding: try Repository.read("docs/sample-systems.md"), as: UTF8.self)
        #expect(page.contains("\n## PoC router\n"))
        for system in SeedSystems.all {
            // The command that audits it, and its model file.
            #expect(page.contains("navreplay audit SampleLogs/\(system.id)\n"), "\(system.id)")
            #expect(page.contains("SampleLogs/\(system.id)/model.json"), "\(system.id)")
        }
    }
}
