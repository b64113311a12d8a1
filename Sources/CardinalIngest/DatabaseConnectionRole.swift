/// What one of the daemon's database connections is for. Each role connects under an `application_name` of its
/// own, so that `pg_stat_activity`, the server log (`%a` in `log_line_prefix`) and per-backend CPU figures tell
/// the writers from the fold and the key lookups.
enum DatabaseConnectionRole: String, Sendable {
    /// A writer thread's connection, which stores batches.
    case writer
    /// The spool replayer's, which writes spooled batches back.
    case spoolReplay = "spool-replay"
    /// The key lookups' pool.
    case keyLookup = "key-lookup"
    /// The settings and readiness pool.
    case settings
    /// The report-state folder's.
    case reportStateFold = "report-state-fold"

    /// The `application_name` it connects with, unless the configured URL sets one.
    var applicationName: String { "cardinald-\(rawValue)" }
}
