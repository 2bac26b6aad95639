// swift-tools-version: 6.0
import PackageDescription

/// One settings list for every target: Swift 6 language mode (strict concurrency) plus the
/// upcoming features that keep imports and existentials explicit.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "NavReplay",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "NavModel", targets: ["NavModel"]),
        .library(name: "NavEvents", targets: ["NavEvents"]),
        .library(name: "NavReplay", targets: ["NavReplay"]),
        .library(name: "NavRouter", targets: ["NavRouter"]),
        .library(name: "NavLog", targets: ["NavLog"]),
        .executable(name: "navreplay", targets: ["navreplay"]),
        .plugin(name: "NavReplayValidate", targets: ["NavReplayValidate"]),
        .plugin(name: "NavReplayAudit", targets: ["NavReplayAudit"]),
        .executable(name: "navreplay-samples", targets: ["navreplay-samples"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
    ],
    targets: [
        // The pure core: no Foundation, no files, no clock.
        .target(name: "NavJSON", swiftSettings: swiftSettings),
        .target(name: "NavModel", dependencies: ["NavJSON"], swiftSettings: swiftSettings),
        .target(name: "NavEvents", dependencies: ["NavJSON", "NavModel"], swiftSettings: swiftSettings),
        .target(name: "NavReplay", dependencies: ["NavJSON", "NavModel", "NavEvents"], swiftSettings: swiftSettings),
        // The app side.
        .target(
            name: "NavRouter", dependencies: ["NavModel", "NavEvents", "NavReplay"],
            swiftSettings: swiftSettings),
        // I/O around the core.
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CNavSupport"),
        // The executable's signal handlers, over CNavSupport's registries: no library links it.
        .systemLibrary(name: "CNavProcess"),
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        // The app-side log writer: an app links it (with NavRouter) and nothing of the audit.
        .target(
            name: "NavLog",
            dependencies: ["CZlib", "NavJSON", "NavModel", "NavEvents", .product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: swiftSettings),
        // Reading inputs: files, directories, gzip, mapped files, standard input, located input, lines.
        .target(
            name: "NavInput", dependencies: ["CZlib", "CNavSupport", "NavJSON", .product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: swiftSettings),
        // On-disk runs and partitions: sorted run files, their records and merges, spill
        // directories and their cleanup registry. Knows nothing of audits.
        .target(
            name: "NavRuns",
            dependencies: ["CNavSupport", "NavJSON", "NavInput", .product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: swiftSettings),
        // What an audit produces: counts, per-session results, finding streams, the sink protocol.
        .target(
            name: "NavResults", dependencies: ["NavJSON", "NavModel", "NavEvents", "NavReplay", "NavInput", "NavRuns"],
            swiftSettings: swiftSettings),
        // Sessions' lines on their way to the fold: routed undecoded by session into partitions, in
        // the compact forms they take there; the quarantine, the event-id ledger, held output.
        .target(
            name: "NavPartitions",
            dependencies: [
                "CNavSupport", "NavJSON", "NavModel", "NavEvents", "NavReplay", "NavInput", "NavRuns", "NavResults",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: swiftSettings),
        // One session too large to hold, sorted on disk and audited line by line.
        .target(
            name: "NavLongSessions",
            dependencies: ["NavJSON", "NavModel", "NavEvents", "NavReplay", "NavInput", "NavRuns", "NavResults", "NavPartitions"],
            swiftSettings: swiftSettings),
        // The audit engine.
        .target(
            name: "NavEngine",
            dependencies: [
                "CNavSupport", "NavJSON", "NavModel", "NavEvents", "NavReplay", "NavInput", "NavRuns", "NavResults", "NavPartitions",
                "NavLongSessions",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: swiftSettings),
        // Navigation analytics: folded sessions' journeys compared across versions (`diff`),
        // counted as paths and funnels, and a model drafted from them (`infer`, `coverage`).
        .target(
            name: "NavAnalytics", dependencies: ["NavJSON", "NavModel", "NavEvents", "NavReplay", "NavResults"],
            swiftSettings: swiftSettings),
        // The output formats.
        .target(
            name: "NavReport",
            dependencies: ["NavJSON", "NavModel", "NavEvents", "NavReplay", "NavInput", "NavRuns", "NavResults", "NavAnalytics"],
            swiftSettings: swiftSettings),
        // The sessions database, through the system's libsqlite3.
        .target(
            name: "NavSQLite", dependencies: ["CSQLite", "NavJSON", "NavModel", "NavEvents", "NavReplay", "NavResults", "NavReport"],
            swiftSettings: swiftSettings),
        // The event store of nightly ingestion: batches folded into one SQLite file, sessions
        // carried across batches and folded again, through the engine, as they grow.
        .target(
            name: "NavStore",
            dependencies: [
                "CNavSupport", "NavJSON", "NavModel", "NavEvents", "NavReplay", "NavInput", "NavRuns", "NavResults", "NavPartitions",
                "NavEngine",
                "NavReport", "NavSQLite", .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: swiftSettings),
        // The command line, thin on top.
        .target(
            name: "NavReplayCommands",
            dependencies: [
                "NavJSON", "NavModel", "NavEvents", "NavReplay", "NavInput", "NavRuns", "NavResults", "NavPartitions", "NavEngine",
                "NavReport", "NavSQLite", "NavStore", "NavAnalytics",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            // `navreplay schema` prints the schemas from the binary itself (`Schemas` here is a link to
            // the repository's `Schemas/`).
            exclude: ["Schemas/README.md"],
            resources: [
                .embedInCode("Schemas/navigation-event.v1.schema.json"),
                .embedInCode("Schemas/navigation-model.v1.schema.json"),
            ],
            swiftSettings: swiftSettings),
        .executableTarget(name: "navreplay", dependencies: ["CNavProcess", "NavReplayCommands"], swiftSettings: swiftSettings),
        // `swift package navreplay-validate <paths>` and `swift package navreplay-audit <paths>` in
        // an app's repository: they build and run the navreplay above.
        .plugin(
            name: "NavReplayValidate",
            capability: .command(
                intent: .custom(verb: "navreplay-validate", description: "Check navigation event logs against the v1 schema.")),
            dependencies: ["navreplay"]),
        .plugin(
            name: "NavReplayAudit",
            capability: .command(
                intent: .custom(verb: "navreplay-audit", description: "Audit navigation event logs: schema, sessions, every rule.")),
            dependencies: ["navreplay"]),
        // Router-driven scenarios that write SampleLogs/ (and benchmark logs).
        .target(
            name: "NavSamples", dependencies: ["NavJSON", "NavModel", "NavEvents", "NavRouter", "NavLog"],
            swiftSettings: swiftSettings),
        .executableTarget(name: "navreplay-samples", dependencies: ["NavSamples"], swiftSettings: swiftSettings),
        // Writes large seeded logs through the router, for scripts/bench.
        .executableTarget(
            name: "navreplay-loggen", dependencies: ["NavModel", "NavEvents", "NavRouter", "NavSamples"], swiftSettings: swiftSettings),
        // Reliability: the fuzz targets and the writer process that the crash-safety tests kill.
        // scripts/fuzz builds each fuzz executable with -sanitize=fuzzer -DFUZZING (a plain build
        // makes a replayer of saved inputs). Each focused target links only the modules it
        // checks, so that libFuzzer runs it thousands of times a second; `NavFuzz` (the whole
        // pipeline's harness, a library the tests use too) lists them all.
        .target(name: "NavFuzzDriver", swiftSettings: swiftSettings),
        .target(name: "NavFuzzDecoder", dependencies: ["NavJSON", "NavModel", "NavEvents"], swiftSettings: swiftSettings),
        .target(
            name: "NavFuzzRuns",
            dependencies: [
                "NavJSON", "NavEvents", "NavInput", "NavRuns", "NavReplay", "NavResults", "NavPartitions",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: swiftSettings),
        .target(
            name: "NavFuzzStore",
            dependencies: ["NavInput", "NavModel", "NavPartitions", "NavResults", "NavSQLite", "NavStore", "NavFuzzRuns"],
            swiftSettings: swiftSettings),
        .target(
            name: "NavFuzz",
            dependencies: [
                "NavJSON", "NavModel", "NavEvents", "NavReplay", "NavInput", "NavResults", "NavEngine", "NavReport", "NavSQLite",
                "NavFuzzDecoder", "NavFuzzRuns", "NavFuzzStore",
            ],
            swiftSettings: swiftSettings),
        .executableTarget(name: "navreplay-fuzz", dependencies: ["NavFuzz", "NavFuzzDriver"], swiftSettings: swiftSettings),
        .executableTarget(name: "navreplay-fuzz-decoder", dependencies: ["NavFuzzDecoder", "NavFuzzDriver"], swiftSettings: swiftSettings),
        .executableTarget(name: "navreplay-fuzz-model", dependencies: ["NavFuzzDecoder", "NavFuzzDriver"], swiftSettings: swiftSettings),
        .executableTarget(name: "navreplay-fuzz-located", dependencies: ["NavFuzzRuns", "NavFuzzDriver"], swiftSettings: swiftSettings),
        .executableTarget(name: "navreplay-fuzz-runs", dependencies: ["NavFuzzRuns", "NavFuzzDriver"], swiftSettings: swiftSettings),
        .executableTarget(name: "navreplay-fuzz-store", dependencies: ["NavFuzzStore", "NavFuzzDriver"], swiftSettings: swiftSettings),
        .executableTarget(name: "navreplay-fuzz-ingest", dependencies: ["NavFuzzStore", "NavFuzzDriver"], swiftSettings: swiftSettings),
        // The fuzz targets' saved inputs replayed, and the fixes of what they found.
        .testTarget(
            name: "NavFuzzTests",
            dependencies: [
                "NavJSON", "NavModel", "NavEvents", "NavInput", "NavRuns", "NavReplay", "NavResults", "NavPartitions", "NavFuzz",
                "NavFuzzDecoder", "NavFuzzRuns", "NavFuzzStore", "NavStore", "NavSQLite", "NavTestSupport",
            ],
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "navreplay-writer-fixture", dependencies: ["NavModel", "NavEvents", "NavLog", "NavSamples"], swiftSettings: swiftSettings),
        .target(
            name: "NavTestSupport",
            dependencies: ["NavJSON", "NavModel", "NavEvents", "NavReplay", "NavRouter"],
            swiftSettings: swiftSettings),
        // One test target per library module; NavReplayCLITests runs the built executable end to end.
        .testTarget(name: "NavJSONTests", dependencies: ["NavJSON", "NavTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "NavModelTests", dependencies: ["NavJSON", "NavModel", "NavTestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "NavEventsTests", dependencies: ["NavJSON", "NavModel", "NavEvents", "NavTestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "NavReplayTests", dependencies: ["NavJSON", "NavModel", "NavEvents", "NavReplay", "NavTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "NavRouterTests", dependencies: ["NavJSON", "NavModel", "NavEvents", "NavReplay", "NavRouter", "NavTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "NavLogTests", dependencies: ["NavJSON", "NavModel", "NavEvents", "NavReplay", "NavRouter", "NavLog", "NavTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "NavInputTests", dependencies: ["NavJSON", "NavInput", "NavLog", "NavTestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "NavRunsTests", dependencies: ["NavJSON", "NavInput", "NavRuns", "NavTestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "NavResultsTests",
            dependencies: ["NavJSON", "NavModel", "NavEvents", "NavReplay", "NavResults", "NavEngine", "NavTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "NavPartitionsTests",
            dependencies: [
                "NavJSON", "NavModel", "NavEvents", "NavReplay", "NavInput", "NavRuns", "NavResults", "NavPartitions", "NavTestSupport",
            ], swiftSettings: swiftSettings),
        .testTarget(
            name: "NavEngineTests",
            dependencies: [
                "NavJSON", "NavModel", "NavEvents", "NavReplay", "NavInput", "NavRuns", "NavResults", "NavPartitions", "NavEngine",
                "NavLongSessions", "NavReport", "NavTestSupport",
            ], swiftSettings: swiftSettings),
        .testTarget(
            name: "NavReportTests",
            dependencies: ["NavJSON", "NavModel", "NavEvents", "NavReplay", "NavResults", "NavEngine", "NavReport", "NavTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "NavSQLiteTests",
            dependencies: ["NavJSON", "NavModel", "NavEvents", "NavReplay", "NavResults", "NavEngine", "NavSQLite", "NavTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "NavAnalyticsTests",
            dependencies: [
                "NavJSON", "NavModel", "NavEvents", "NavReplay", "NavResults", "NavEngine", "NavAnalytics", "NavSamples",
                "NavRouter", "NavTestSupport",
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "NavSamplesTests",
            dependencies: ["NavJSON", "NavModel", "NavEvents", "NavReplay", "NavRouter", "NavSamples", "NavTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "NavStoreTests",
            dependencies: [
                "NavJSON", "NavModel", "NavEvents", "NavReplay", "NavRouter", "NavResults", "NavEngine", "NavReport", "NavStore",
                "NavSQLite", "NavLog", "NavTestSupport",
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "NavReplayCLITests",
            dependencies: [
                "NavJSON", "NavModel", "NavEvents", "NavReplay", "NavInput", "NavRuns", "NavEngine", "NavLog", "NavFuzz", "NavSamples",
                "NavTestSupport",
            ],
            swiftSettings: swiftSettings),
    ]
)

// `NAVREPLAY_TEST_TARGETS=A,B` keeps only those test targets and the targets they depend on:
// `scripts/sanitizers thread-engine` builds what its tests need under ThreadSanitizer, not the
// whole package (the command line, the store, the fuzz targets and their tests).
if let listed = Context.environment["NAVREPLAY_TEST_TARGETS"] {
    var needed = Set(listed.split(separator: ",").map(String.init))
    var pending = Array(needed)
    let targets = Dictionary(uniqueKeysWithValues: package.targets.map { ($0.name, $0) })
    while let name = pending.popLast() {
        for dependency in targets[name]?.dependencies ?? [] {
            switch dependency {
            case .targetItem(let name, _), .byNameItem(let name, _):
                if needed.insert(name).inserted { pending.append(name) }
            default: break
            }
        }
    }
    package.targets.removeAll { !needed.contains($0.name) }
    package.products.removeAll { product in
        let targets =
            (product as? Product.Library)?.targets ?? (product as? Product.Executable)?.targets ?? (product as? Product.Plugin)?.targets
            ?? []
        return !targets.allSatisfy(needed.contains)
    }
}
