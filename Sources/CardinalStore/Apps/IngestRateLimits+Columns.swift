extension IngestRateLimits {
    /// The columns of `cardinal.ingest_rate_limits` that ``AppStore`` and ``IngestKeyStore`` select and decode.
    public static let sqlColumns = SQLColumns(.relation, "cardinal.ingest_rate_limits", complete: false, [
        SQLColumn("events_per_second", "integer"),
        SQLColumn("requests_per_second", "integer"),
    ])
}
