import ArgumentParser
import NavStore

extension NavReplayCommand {
    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a whole event store: every page's checksum and every stored column (exit 2 when damaged).",
            discussion: """
                Reads every page of the store and of its -wal file and checks its checksum, runs SQLite's \
                integrity check, and checks every stored column an ingest writes (statuses, records, chunks of \
                lines and their counts, event ids, watermarks). Prints "The store STORE is intact." and exits \
                0, or prints "The store STORE is damaged: WHAT" (naming the page, table and row) and exits 2.

                Examples:
                  navreplay verify --store nav.db
                  navreplay verify --store nav.db && cp nav.db backups/nav-$(date +%F).db
                """)

        @Option(help: ArgumentHelp("The event store to check (made by navreplay ingest).", valueName: "store"))
        var store: String

        @Flag(name: .shortAndLong, help: "Print nothing when the store is intact.")
        var quiet = false

        func run() throws {
            do {
                try StoreVerification.verify(path: store, toolVersion: NavReplayCommand.version)
            } catch let error as StoreError {
                throw CommandFailure(error.description)
            }
            if !quiet { print("The store \(store) is intact.") }
        }
    }
}
