// Writes SampleLogs/ from the router-driven scenarios (scripts/regenerate-samples runs it).
import Foundation
import NavSamples

let arguments = CommandLine.arguments.dropFirst()
guard let output = arguments.first else {
    FileHandle.standardError.write(Data("usage: navreplay-samples OUTPUT_DIRECTORY\n".utf8))
    exit(2)
}
do {
    for file in try SampleLogs.pocFiles() + SampleLogs.systemFiles() {
        let url = URL(fileURLWithPath: output).appendingPathComponent(file.path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(file.bytes).write(to: url)
        print("wrote \(url.path)")
    }
} catch {
    FileHandle.standardError.write(Data("navreplay-samples: \(error)\n".utf8))
    exit(1)
}
