#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import NavInput
import NavRuns
import SystemPackage

/// The formatted output of folded sessions, set aside in a temporary file until it is written
/// in session order.
///
/// Sessions folded again (`Refold`) have their output ready long before it can be written:
/// they come in any order, and output goes in session order (pre-grouped input has the same
/// need, met by `SessionRuns`). Held in memory, that output grew with the findings: a log
/// whose sessions all share event ids (ids from a per-session counter) held every finding of
/// the run. Past `budget` bytes held, outputs go to a file (`out-0` in a scratch directory of
/// its own, removed when the store goes and on Ctrl-C) and only their place is kept. If the
/// temporary directory cannot be used, they stay in memory: the audit goes on.
package final class OutputStore: Sendable {
    package struct Place: Sendable {
        package var offset: Int64
        package var count: Int
    }

    /// What the lock guards.
    private struct State {
        var held = 0
        var file: AppendFiles?
        /// The file could not be made or written: outputs stay in memory from then on.
        var unusable = false
    }

    private static let what = "the output held for session order"
    private let budget: Int
    private let temporaryDirectory: String?
    private let state = Locked(State())

    package init(budget: Int, temporaryDirectory: String?) {
        self.budget = budget
        self.temporaryDirectory = temporaryDirectory
    }

    /// Moves the session's output to the file once `budget` bytes are held in memory.
    package func setAside(_ session: inout FoldedSession) {
        let count = session.output.count
        guard count > 0 else { return }
        state.withLock { state in
            guard state.held + count > budget, !state.unusable, let file = prepareFile(&state) else {
                state.held += count
                return
            }
            do {
                let offset = try session.output.withUnsafeBytes { try file.append($0, to: 0, what: Self.what) }
                session.stored = (self, Place(offset: offset, count: count))
                session.output = []
            } catch {
                // A short write leaves the file's end unknown: the file is not used again.
                state.unusable = true
                state.held += count
            }
        }
    }

    /// Bytes set aside, read back.
    package func read(_ place: Place) throws -> [UInt8] {
        try state.withLock { state in
            try state.file!.read(0, at: place.offset, count: place.count, what: Self.what)
        }
    }

    /// The file, made on first use; `nil` if it cannot be (the outputs then stay in memory).
    private func prepareFile(_ state: inout State) -> AppendFiles? {
        if let file = state.file { return file }
        guard let made = try? AppendFiles(in: temporaryDirectory, kind: "out-", count: 1, readable: true, what: "a temporary file") else {
            state.unusable = true
            return nil
        }
        state.file = made
        return made
    }
}

extension FoldedSession {
    /// The session's output, read back if it was set aside (`OutputStore`).
    package func loadedOutput() throws -> [UInt8] {
        guard let (store, place) = stored else { return output }
        return try store.read(place)
    }
}
