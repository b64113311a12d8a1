import PostgresClient

extension IngestRateLimits {
    /// The limits of a row with the columns `events_per_second` and `requests_per_second` of
    /// `cardinal.ingest_rate_limits` (NULL when the app has no row: the daemon's defaults).
    init(row: PostgresRow) throws {
        let columns = Self.sqlColumns
        self.init(
            eventsPerSecond: try row.decode(Int32?.self, column: columns["events_per_second"]).map(Int.init),
            requestsPerSecond: try row.decode(Int32?.self, column: columns["requests_per_second"]).map(Int.init)
        )
    }
}
