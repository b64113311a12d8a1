extension ReportStateStore {
    /// The result of `cardinal.fold_report_state()`, a count named after the function, which ``fold()`` decodes.
    public static let foldColumns = SQLColumns(.function, "cardinal.fold_report_state", [
        SQLColumn("fold_report_state", "bigint"),
    ])

    /// The columns of `cardinal.report_groups` that ``campaigns(appID:)`` reads.
    public static let groupColumns = SQLColumns(.relation, "cardinal.report_groups", complete: false, [
        SQLColumn("app_id", "bigint"),
        SQLColumn("campaign_id", "text"),
    ])

    /// The result of `cardinal.requeue_report_state()`, a count named after the function, which
    /// ``requeue(appID:campaign:)`` decodes.
    public static let requeueColumns = SQLColumns(.function, "cardinal.requeue_report_state", [
        SQLColumn("requeue_report_state", "bigint"),
    ])
}
