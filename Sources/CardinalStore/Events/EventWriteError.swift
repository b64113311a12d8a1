public import PostgresClient

/// A batch the writer did not store for a reason of its own making, beside the `PostgresError`s it passes on.
public enum EventWriteError: Error, Sendable {
    /// `cardinal.ensure_event_partitions` refused the time range of the batch: some event is older than the
    /// database's retention (`cardinal.settings.retention_days`, plus a month of slack) or more than a year
    /// ahead. Nothing of the batch was stored; without the events outside the range it would pass.
    case timeOutsidePartitionRange(PostgresError)
}
