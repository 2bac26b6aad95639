// swift-tools-version: 6.0
// An app in miniature that depends on this repository's NavReplay package, as an app's
// package would (with `.package(url: "https://github.com/<org>/NavReplay", from: "0.1.0")`).
import PackageDescription

let package = Package(
    name: "InstrumentedApp",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [
        .package(path: "../..")
    ],
    targets: [
        .executableTarget(
            name: "InstrumentedApp",
            dependencies: [
                .product(name: "NavRouter", package: "NavReplay"),  // NavigationRouter, sinks, live checks
                .product(name: "NavLog", package: "NavReplay"),  // FileEventSink
                .product(name: "NavModel", package: "NavReplay"),  // NavigationModel.load(json:)
                .product(name: "NavReplay", package: "NavReplay"),  // Finding, for live checks
            ])
    ]
)
