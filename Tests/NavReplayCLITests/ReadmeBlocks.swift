import Foundation
import NavTestSupport

/// The text of README.md (or another document of the repository) between `<!-- BEGIN name -->`
/// and `<!-- END name -->` (each on a line of its own), without the marker lines; `nil` when it
/// has no such block. A block that holds one fenced code block (```lang ... ```) is given as the
/// code inside it.
func readmeBlock(_ name: String, in document: String = "README.md") throws -> String? {
    let readme = try String(contentsOfFile: Repository.path(document), encoding: .utf8)
    guard let begin = readme.range(of: "<!-- BEGIN \(name) -->\n"),
        let end = readme.range(of: "<!-- END \(name) -->", range: begin.upperBound..<readme.endIndex)
    else { return nil }
    let block = String(readme[begin.upperBound..<end.lowerBound])
    var lines = block.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    if lines.last == "" { lines.removeLast() }
    if let first = lines.first, first.hasPrefix("```"), lines.last == "```", lines.count >= 2 {
        return lines.dropFirst().dropLast().map { $0 + "\n" }.joined()
    }
    return block
}
