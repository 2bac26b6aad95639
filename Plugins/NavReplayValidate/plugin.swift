import Foundation
import PackagePlugin

/// `swift package navreplay-validate [options] <paths>`: runs `navreplay validate` (the line-level
/// schema checks) with the arguments as given, using the `navreplay` built from this package.
///
/// It needs no permission: `navreplay` reads the logs and writes its report to standard output.
/// Writing a file inside the package (`--output`, `--summary`, `--quarantine`) needs
/// `swift package --allow-writing-to-package-directory navreplay-validate …` on macOS, whose plugin
/// sandbox otherwise refuses it; redirecting standard output needs nothing.
@main
struct NavReplayValidate: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        try runNavReplay(subcommand: "validate", tool: context.tool(named: "navreplay").url, arguments: arguments)
    }
}
