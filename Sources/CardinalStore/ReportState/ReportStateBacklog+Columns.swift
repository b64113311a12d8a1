extension ReportStateBacklog {
    /// The OUT parameters of `cardinal.report_fold_rate`, which ``ReportStateStore/backlog()`` selects and decodes.
    public static let sqlColumns = SQLColumns(.function, "cardinal.report_fold_rate", [
        SQLColumn("backlog_events", "bigint"),
        SQLColumn("oldest_received_at", "timestamp with time zone"),
        SQLColumn("measured_seconds", "double precision"),
        SQLColumn("folds", "bigint"),
        SQLColumn("folded_events", "bigint"),
        SQLColumn("folding_seconds", "double precision"),
        SQLColumn("fold_events_per_second", "double precision"),
        SQLColumn("capacity_events_per_second", "double precision"),
        SQLColumn("arrival_events_per_second", "double precision"),
        SQLColumn("drain_seconds", "double precision"),
    ])
}
