extension App {
    /// The columns of `cardinal.apps`, which ``AppStore`` selects and decodes.
    public static let sqlColumns = SQLColumns(.relation, "cardinal.apps", [
        SQLColumn("app_id", "bigint"),
        SQLColumn("name", "text"),
        SQLColumn("report_time_zone", "text"),
        SQLColumn("created_at", "timestamp with time zone"),
    ])
}
