import ArgumentParser
import Foundation
import NavInput
import NavPartitions
import NavReport
import SystemPackage

extension NavReplayCommand {
    /// The pieces of a distributed audit, run by a cluster's tasks (`scripts/spark`).
    struct Partition: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The steps of a distributed audit, as a cluster's tasks run them (the Spark job in scripts/spark).",
            discussion: """
                A distributed audit reads each split of the logs with `route`, which sends every line, as located input, to \
                the partition of its session; finds with `shared` the sessions that share an event id with a session of \
                another partition; and audits each partition with `audit`, which writes its findings, sessions, quarantine \
                and summary. Merged in order, they are what `navreplay audit` and `navreplay sessions` write for the same \
                files. The cluster moves the bytes between the steps; navreplay does all the work on lines.
                """,
            subcommands: [Route.self, Shared.self, Expand.self, PartitionAudit.self])
    }
}

extension NavReplayCommand.Partition {
    struct Route: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Route one split of a log to the partitions of a distributed audit, as located input.",
            discussion: """
                Reads the lines that start inside --range of a plain log (a line belongs to the split it starts in; the \
                split's last line is read to its end), or every line of a gzip log (only the split that starts at 0 reads \
                it), with the reading rules of `audit`. Each line goes, as FILE_INDEX<TAB>LINE<TAB>line (FILE_INDEX: \
                --split-index; LINE: counted from 1 in the split, then `u` for a line without an end and `/LENGTH` for an \
                over-long one, of which only the first --max-line-bytes bytes follow), to the partition of its session \
                (a hash of its session_id); a line without a session goes to any partition.

                Output: frames of [destination][length][payload] (UInt32 little-endian each). Destinations 0 to \
                --partitions - 1 are partitions, whose payloads are `L`, the split index (UInt32) and whole located \
                lines (with --shorthand: `H`, the split index and the lines' shorthand records, for `expand`); the next --id-buckets destinations get `I` and 16-byte entries (the hashes of an event id and of \
                its session id), for `shared`; the first of them also gets `E` and the split's report, a JSON object: \
                {"split", "lines", and for an input that could not be read completely "error_code", "error", \
                "after_line"}. Such an input exits 2, after its frames.

                With --sessions, the input is located input (a partition's lines): the lines whose session id is listed \
                there (by `shared`'s hash) go to partition 1, the others to partition 0, unchanged.

                Examples:
                  navreplay partition route logs/app.ndjson --range 0:134217728 --split-index 0 --partitions 64 --id-buckets 8
                  navreplay partition route part.located --sessions shared.txt --partitions 2 --split-index 0
                """)

        @Argument(help: ArgumentHelp("The log file, or - for standard input (read whole).", valueName: "file"))
        var input: String

        @Option(
            help: ArgumentHelp("The split: the lines that start at these byte offsets (default: the whole file).", valueName: "start:end"))
        var range: String?

        @Option(help: "The split's index: the FILE_INDEX of its located lines.")
        var splitIndex: Int

        @Option(help: "How many partitions the lines go to.")
        var partitions: Int

        @Option(help: "How many buckets the event-id ledger goes to (0: none).")
        var idBuckets: Int = 0

        @Option(help: "The index of the model the file's sessions fold with (an app's event ids are its own).")
        var modelIndex: Int = 0

        @Flag(help: "Read the input as gzip, whatever its name (standard input holding a .gz file).")
        var gzip = false

        @Option(help: "Lines longer than this many bytes are invalid; only this many bytes of them are sent.")
        var maxLineBytes: Int = LineReader.defaultMaxLineBytes

        @Option(
            help: ArgumentHelp("Send a partition's lines once they reach this size (default 1M).", valueName: "size"),
            transform: ByteSize.parse)
        var blockBytes: ByteSize?

        @Flag(help: "Send the lines as shorthand records (frames of kind H, for `expand`): the bench log's take 59% fewer bytes.")
        var shorthand = false

        @Option(help: ArgumentHelp("With located input: the sessions to set apart, one `shared` hash a line.", valueName: "file"))
        var sessions: String?

        @Option(name: .shortAndLong, help: ArgumentHelp("Write the frames to this file instead of standard output.", valueName: "file"))
        var output: String?

        func validate() throws {
            if partitions < 1 || partitions > 1 << 20 { throw ValidationError("Please give --partitions a number from 1 to 1048576.") }
            if idBuckets < 0 || idBuckets > 1 << 20 { throw ValidationError("Please give --id-buckets a number from 0 to 1048576.") }
            if splitIndex < 0 || splitIndex > Int(UInt32.max) {
                throw ValidationError("Please give --split-index a number from 0 to 2^32 - 1.")
            }
            if modelIndex < 0 { throw ValidationError("Please give --model-index a number of 0 or more.") }
            if maxLineBytes < 1 || maxLineBytes > InputOptions.largestLineLimit {
                throw ValidationError("Please give --max-line-bytes a number from 1 to \(InputOptions.largestLineLimit) (1 TiB).")
            }
            if sessions != nil, partitions != 2 {
                throw ValidationError("--sessions sets lines apart into two partitions: give --partitions 2.")
            }
            if sessions != nil, range != nil || gzip || shorthand {
                throw ValidationError(
                    "--sessions reads located input whole and writes it as text: --range, --gzip and --shorthand do not apply.")
            }
            _ = try byteRange()
        }

        func byteRange() throws -> Range<Int64>? {
            guard let range else { return nil }
            let parts = range.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let start = Int64(parts[0]), let end = Int64(parts[1]), start >= 0, end >= start else {
                throw ValidationError("Please give --range as START:END, two byte offsets with START <= END (e.g. 0:134217728).")
            }
            return start..<end
        }

        func run() throws {
            let descriptor: FileDescriptor
            if let output {
                guard
                    let opened = try? FileDescriptor.open(output, .writeOnly, options: [.create, .truncate], permissions: .ownerReadWrite)
                else { throw CommandFailure("Cannot write \(output): \(String(cString: strerror(errno))).") }
                descriptor = opened
            } else {
                descriptor = .standardOutput
            }
            defer { if output != nil { try? descriptor.close() } }
            let options = SplitRouter.Options(
                partitions: partitions, idBuckets: sessions == nil ? idBuckets : 0, split: splitIndex, model: modelIndex,
                maxLineBytes: maxLineBytes, blockBytes: blockBytes?.bytes ?? 1 << 20, shorthand: shorthand)
            let router = SplitRouter(options: options, output: descriptor, outputName: output ?? "standard output")
            var inputError: InputError?
            do {
                if let sessions {
                    let listed = try Self.sessionHashes(sessions)
                    // Located lines carry a prefix of at most 41 bytes on top of the original line.
                    try LineReader(maxLineBytes: maxLineBytes + 64).readLines(of: input) { try router.routeLocated($0, sessions: listed) }
                } else {
                    try SplitReader(maxLineBytes: maxLineBytes).readLines(of: input, range: try byteRange(), gzip: gzip) {
                        try router.route($0)
                    }
                }
            } catch let error as InputError where error.path == input {
                inputError = error
            } catch let error as InputError {
                throw CommandFailure(error.description)
            }
            do {
                try router.finish(error: inputError)
            } catch let error as InputError {
                throw CommandFailure(error.message)
            }
            if let inputError {
                Terminal.writeError("navreplay: error: \(safe(inputError.description))\n")
                throw ExitCode(2)
            }
        }

        /// The session hashes of a `shared` output: 16 hexadecimal digits a line.
        static func sessionHashes(_ path: String) throws -> Set<UInt64> {
            let text = String(decoding: try readWholeFile(path, as: "sessions file"), as: UTF8.self)
            var hashes = Set<UInt64>()
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
                guard line.count == 16, let hash = UInt64(line, radix: 16) else {
                    throw CommandFailure("The sessions file \(path), line \(number + 1), is not a session hash (16 hexadecimal digits).")
                }
                hashes.insert(hash)
            }
            return hashes
        }
    }

    struct Expand: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Expand the shorthand records of `route --shorthand` back to located lines.",
            discussion: """
                Reads records of [UInt32 length][bytes] (little-endian; the length's high bit set for a line in \
                shorthand), the payloads of `route --shorthand`'s H frames after their split index, and writes each \
                located line as `route` sends it as text, ended by a line feed.

                Example:
                  navreplay partition expand --output partition.located partition.records
                """)

        @Argument(help: ArgumentHelp("The records, or - for standard input.", valueName: "file"))
        var input = "-"

        @Option(name: .shortAndLong, help: ArgumentHelp("Write the lines to this file instead of standard output.", valueName: "file"))
        var output: String?

        func run() throws {
            let target: FileDescriptor
            if let output {
                guard
                    let opened = try? FileDescriptor.open(output, .writeOnly, options: [.create, .truncate], permissions: .ownerReadWrite)
                else { throw CommandFailure("Cannot write \(output): \(String(cString: strerror(errno))).") }
                target = opened
            } else {
                target = .standardOutput
            }
            defer { if output != nil { try? target.close() } }
            do {
                let source = input == "-" ? FileDescriptor.standardInput : try FileDescriptor.opening(input)
                defer { if input != "-" { try? source.close() } }
                try ShorthandRecords.expand(from: source, named: input, to: target, named: output ?? "standard output")
            } catch let error as InputError {
                throw CommandFailure(error.description)
            }
        }
    }

    struct Shared: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "From a distributed audit's event-id ledger, the sessions that share an event id with another session.",
            discussion: """
                Reads the 16-byte entries that `route` sends to one id bucket (the payloads of its `I` frames, without the \
                `I`), and writes the hash of every session id that shares an event id with another, 16 hexadecimal \
                digits a line, sorted. Usually there is none. The hashes can collide: a session named by mistake is folded \
                with the others, which changes no result.

                Example:
                  navreplay partition shared bucket-3.ids > shared-3.txt
                """)

        @Argument(help: ArgumentHelp("Files of ledger entries, or - for standard input.", valueName: "file"))
        var inputs: [String] = ["-"]

        @Option(name: .shortAndLong, help: ArgumentHelp("Write to this file instead of standard output.", valueName: "file"))
        var output: String?

        func run() throws {
            var entries: [UInt8] = []
            for input in inputs {
                var bytes: [UInt8] = []
                do {
                    try LineReader.readWholeFile(input == "-" ? "/dev/stdin" : input, into: &bytes)
                } catch let error as InputError {
                    throw CommandFailure("\(input): \(error.message)")
                }
                guard bytes.count % 16 == 0 else {
                    throw CommandFailure("\(input) is not ledger entries: its \(bytes.count) bytes are not a multiple of 16.")
                }
                entries += bytes
            }
            let shared = entries.withUnsafeBytes { SharedEventIDs.sessions(inEntries: $0) }
            var text = ""
            for hash in shared {
                let digits = String(hash, radix: 16)
                text += String(repeating: "0", count: 16 - digits.count) + digits + "\n"
            }
            try emit(Array(text.utf8), to: output)
        }
    }
}
