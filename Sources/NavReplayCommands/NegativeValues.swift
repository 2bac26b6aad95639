/// Negative numbers given to the options that take a number. ArgumentParser reads a word that
/// starts with `-` as an option, so `--jobs -1` was reported as "Missing value for '--jobs
/// <jobs>'"; attached (`--jobs=-1`), the value reaches the option's own check, which says what is
/// wrong with it ("Please give --jobs a number from 0 to 1024").
enum NegativeValues {
    static let numericOptions: Set<String> = [
        "--jobs", "--memory-limit", "--max-line-bytes", "--max-findings-per-session", "--worst", "--timeline-limit",
        "--partitions", "--id-buckets", "--split-index", "--model-index",
    ]

    /// `arguments`, with each negative number that follows a numeric option attached to it.
    /// Nothing after `--` is changed, and no option is a dash and a digit, so no other command
    /// line reads differently.
    static func attached(_ arguments: [String]) -> [String] {
        var result: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" { return result + arguments[index...] }
            if numericOptions.contains(argument), index + 1 < arguments.count, isNegativeNumber(arguments[index + 1]) {
                result.append(argument + "=" + arguments[index + 1])
                index += 2
                continue
            }
            result.append(argument)
            index += 1
        }
        return result
    }

    static func isNegativeNumber(_ word: String) -> Bool {
        let rest = word.utf8.dropFirst()
        return word.utf8.first == UInt8(ascii: "-")
            && rest.first.map { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: ".") } == true
    }
}
