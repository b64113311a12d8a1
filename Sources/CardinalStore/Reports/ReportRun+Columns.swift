extension ReportRun {
    /// The columns of `cardinal.report_runs`, which ``ReportRunStore/run(id:)`` selects and decodes.
    public static let sqlColumns = SQLColumns(.relation, "cardinal.report_runs", [
        SQLColumn("run_id", "bigint"),
        SQLColumn("started_at", "timestamp with time zone"),
        SQLColumn("finished_at", "timestamp with time zone"),
        SQLColumn("parameters", "jsonb"),
        SQLColumn("status", "text"),
        SQLColumn("anomaly_count", "integer"),
        SQLColumn("error", "text"),
    ])
}
