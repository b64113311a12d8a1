public import PostgresClient

/// A batch the writer did not store for a reason of its own making, beside the `PostgresError`s it passes on.
public enum EventWriteError: Error, Sendable {
    /// `cardinal.ensure_event_partitions` refused the time range of the batch: some event is older than the
    /// database's retention (`cardinal.settings.retention_days`, plus a month of slack) or more than a year
    /// ahead. Nothing of the batch was stored; without the events outside the range it would pass.
    case timeOutsidePartitionRange(PostgresError)

    /// The commit returned, but PostgreSQL had cancelled its wait for the synchronous standbys
    /// (`synchronous_standby_names`) while a standby was down, because the session was cancelled:
    /// the batch is committed on the primary only, not durable as the API promises. A retry stores nothing
    /// twice (its events come back as duplicates) and waits for the standby again.
    case commitNotReplicated
}
