extension ExpiredPartition {
    /// The result columns of `cardinal.expired_event_partitions`, which ``RetentionStore`` selects and decodes.
    public static let sqlColumns = SQLColumns(.function, "cardinal.expired_event_partitions", [
        SQLColumn("relation", "text"),
        SQLColumn("from_time", "timestamp with time zone"),
        SQLColumn("to_time", "timestamp with time zone"),
        SQLColumn("estimated_events", "bigint"),
    ])
}
