extension ErasureRecord {
    /// The result columns of `cardinal.erase_identity` (a row of `cardinal.erasures`), which ``IdentityEraser``
    /// selects and decodes.
    public static let sqlColumns = SQLColumns(.function, "cardinal.erase_identity", [
        SQLColumn("erasure_id", "bigint"),
        SQLColumn("erased_at", "timestamp with time zone"),
        SQLColumn("erased_by", "text"),
        SQLColumn("app_id", "bigint"),
        SQLColumn("identity_kind", "text"),
        SQLColumn("identity_hash", "bytea"),
        SQLColumn("events", "bigint"),
        SQLColumn("rejected_events", "bigint"),
        SQLColumn("report_user_state", "bigint"),
        SQLColumn("report_session_state", "bigint"),
        SQLColumn("report_conversion_state", "bigint"),
        SQLColumn("report_daily_counts", "bigint"),
        SQLColumn("report_fold_queue", "bigint"),
        SQLColumn("report_groups", "bigint"),
        SQLColumn("requeued_events", "bigint"),
    ])
}
