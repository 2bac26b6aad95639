#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import ArgumentParser
import NavEngine
import NavJSON
import NavReplay
import NavResults
import NavRuns
import NavStore

extension NavReplayCommand.Replay {
    /// `replay --store`: the session's events as the store holds them, folded as `replay` folds
    /// the logs they came from, each line named by its file and line at ingest.
    func replayStored(_ path: String) throws {
        let store = try openStore(path)
        let scratch = try ScratchDirectory.make(in: input.tempDir, files: 1)
        let held = scratch.path + "/part-0"
        defer {
            unlink(held)
            ScratchDirectory.remove(scratch)
        }
        let run: AuditRun
        do {
            switch try HeldSessionEvents.writeEvents(of: session, store, to: held) {
            case .unknown:
                throw CommandFailure("The store \(path) has no session \(Self.quoted(session)) (navreplay sessions --store lists them).")
            case .pruned(let batch):
                throw CommandFailure(
                    "The store \(path) no longer holds the events of session \(Self.quoted(session)): --retain pruned them "
                        + "at batch \(batch). Its findings are still there (navreplay audit --store); replay it from its logs.")
            case .events(let paths):
                var configuration = AuditConfiguration(
                    model: store.model, maxLineBytes: input.maxLineBytes, jobs: input.jobs, sessionOptions: sessionOptions,
                    onlySession: session)
                if let limit = input.memoryLimit { configuration.memoryLimit = limit.bytes }
                configuration.temporaryDirectory = input.tempDir
                configuration.locatedPaths = paths
                run = try AuditEngine(configuration: configuration).run(paths: [held], sink: nil)
            }
        } catch let error as StoreError {
            throw CommandFailure(error.description)
        }
        try show(run, source: "read from the store \(path)", notFound: "in the store \(path)")
    }
}
