extension ExpiredRejections {
    /// The result columns of `cardinal.expired_rejected_events`, which ``RetentionStore`` selects and decodes.
    public static let sqlColumns = SQLColumns(.function, "cardinal.expired_rejected_events", [
        SQLColumn("app_id", "bigint"),
        SQLColumn("rejected_events", "bigint"),
        SQLColumn("oldest", "timestamp with time zone"),
        SQLColumn("newest", "timestamp with time zone"),
    ])
}
