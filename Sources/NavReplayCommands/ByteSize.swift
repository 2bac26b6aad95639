import ArgumentParser
import Foundation

/// A size on the command line: `1048576`, `512K`, `128M`, `2G` (powers of 1024).
struct ByteSize: ExpressibleByArgument {
    var bytes: Int

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces).uppercased()
        let units: [(String, Int)] = [
            ("KB", 1 << 10), ("MB", 1 << 20), ("GB", 1 << 30), ("K", 1 << 10), ("M", 1 << 20), ("G", 1 << 30), ("B", 1),
        ]
        for (suffix, factor) in units where text.hasSuffix(suffix) {
            // At most 2^62 bytes: a larger value would not fit an Int (and no machine has it).
            guard let value = Double(text.dropLast(suffix.count)), value > 0, value * Double(factor) <= 0x1p62 else { return nil }
            bytes = max(1, Int(value * Double(factor)))
            return
        }
        guard let value = Int(text), value > 0 else { return nil }
        bytes = value
    }

    /// The size, or an error that says what is wrong with it (ArgumentParser's own says only
    /// that the value is invalid).
    @Sendable static func parse(_ argument: String) throws -> ByteSize {
        if let size = ByteSize(argument: argument) { return size }
        let number = argument.trimmingCharacters(in: .whitespaces).uppercased().trimmingCharacters(in: CharacterSet(charactersIn: "KMGB"))
        if let value = Double(number), value <= 0 { throw ValidationError("it must be positive, e.g. 512K, 128M or 2G.") }
        throw ValidationError("give a number of bytes, or of K, M or G (512K, 128M, 2G), up to 2^62 bytes.")
    }
}
