import Foundation
import PackagePlugin

/// `swift package navreplay-audit [options] <paths>`: runs `navreplay audit` (schema, sessions and
/// every rule) with the arguments as given, using the `navreplay` built from this package.
///
/// It needs no permission: `navreplay` reads the logs and writes its report to standard output.
/// Writing a file inside the package (`--output`, `--summary`, `--quarantine`) needs
/// `swift package --allow-writing-to-package-directory navreplay-audit …` on macOS, whose plugin
/// sandbox otherwise refuses it; redirecting standard output needs nothing.
@main
struct NavReplayAudit: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        try runNavReplay(subcommand: "audit", tool: context.tool(named: "navreplay").url, arguments: arguments)
    }
}
