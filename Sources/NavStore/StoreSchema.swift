/// The event store's tables, as `docs/store.md` documents them for `sqlite3` and DuckDB users.
///
/// Times are event time: the events' own timestamps, never the clock of the machine that
/// ingests, so that the same batches give the same store whatever day they are ingested on.
enum StoreSchema {
    /// Bumped whenever a table changes meaning; a store of another version is refused.
    static let version = "4"
    static let format = "navreplay-store"
    /// The page size of a new store (`EventStore.openForWriting`).
    static let pageSize = 65_536
    /// The page size of an ingest's temporary tables.
    static let temporaryPageSize = 4096

    /// The unreadable lines' findings by place: a batch looks up each of its unreadable lines
    /// there, and without it each lookup read every such finding the store holds. Made by an
    /// ingest in a store that lacks it (one written before it existed).
    static let unreadableIndex = "CREATE INDEX IF NOT EXISTS findings_unreadable ON findings(file, line) WHERE session IS NULL"

    static let tables = """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE batches (
          batch INTEGER PRIMARY KEY, files INTEGER NOT NULL, lines INTEGER NOT NULL,
          blank_lines INTEGER NOT NULL, events_lines INTEGER NOT NULL, invalid_lines INTEGER NOT NULL,
          late_lines INTEGER NOT NULL, sessions_touched INTEGER NOT NULL, sessions_closed INTEGER NOT NULL,
          new_findings INTEGER NOT NULL, withdrawn_findings INTEGER NOT NULL,
          watermark TEXT, watermark_ms INTEGER, closed_all INTEGER NOT NULL);
        CREATE TABLE files (
          file INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, resolved TEXT NOT NULL UNIQUE, lines INTEGER NOT NULL, blank_lines INTEGER NOT NULL,
          fingerprint INTEGER NOT NULL, torn_tail INTEGER NOT NULL, tail_left INTEGER NOT NULL, first_batch INTEGER NOT NULL, last_batch INTEGER NOT NULL,
          bytes INTEGER NOT NULL);
        CREATE TABLE sessions (
          session INTEGER PRIMARY KEY, session_id TEXT NOT NULL UNIQUE, status TEXT NOT NULL,
          app_version TEXT, events INTEGER NOT NULL, redeliveries INTEGER NOT NULL, duplicates INTEGER NOT NULL,
          first_seq INTEGER, last_seq INTEGER, start TEXT, "end" TEXT, duration_ms INTEGER,
          last_event_ms INTEGER, findings INTEGER NOT NULL, dropped_findings TEXT NOT NULL, record TEXT NOT NULL,
          first_batch INTEGER NOT NULL, last_batch INTEGER NOT NULL, closed_batch INTEGER, pruned_batch INTEGER);
        CREATE TABLE findings (
          session INTEGER, ordinal INTEGER NOT NULL, rule TEXT NOT NULL, severity TEXT NOT NULL,
          session_id TEXT, seq INTEGER, event_id TEXT, file TEXT, line INTEGER, message TEXT NOT NULL,
          expected TEXT, found TEXT, after_gap INTEGER NOT NULL, event_name TEXT, witness TEXT,
          batch INTEGER NOT NULL, finding TEXT NOT NULL);
        CREATE TABLE finding_changes (
          batch INTEGER NOT NULL, change TEXT NOT NULL, app_version TEXT,
          session INTEGER, ordinal INTEGER NOT NULL, rule TEXT NOT NULL, severity TEXT NOT NULL,
          session_id TEXT, seq INTEGER, event_id TEXT, file TEXT, line INTEGER, message TEXT NOT NULL,
          expected TEXT, found TEXT, after_gap INTEGER NOT NULL, event_name TEXT, witness TEXT,
          first_batch INTEGER NOT NULL, finding TEXT NOT NULL);
        CREATE TABLE event_chunks (
          chunk INTEGER PRIMARY KEY, session INTEGER NOT NULL, batch INTEGER NOT NULL, lines INTEGER NOT NULL,
          line_bytes INTEGER NOT NULL, data BLOB NOT NULL);
        CREATE TABLE late_events (
          batch INTEGER NOT NULL, session_id TEXT NOT NULL, file TEXT NOT NULL, line INTEGER NOT NULL, event TEXT NOT NULL);
        CREATE TABLE event_ids (batch INTEGER NOT NULL, entries BLOB NOT NULL);
        CREATE TABLE shared_ids (id_hash INTEGER NOT NULL, session INTEGER NOT NULL, PRIMARY KEY (id_hash, session)) WITHOUT ROWID;
        CREATE INDEX shared_ids_session ON shared_ids(session);
        CREATE INDEX findings_session ON findings(session, ordinal);
        CREATE INDEX findings_rule ON findings(rule);
        \(unreadableIndex);
        CREATE INDEX finding_changes_batch ON finding_changes(batch);
        CREATE INDEX event_chunks_session ON event_chunks(session, chunk);
        CREATE INDEX sessions_status ON sessions(status, last_event_ms);
        """
}
