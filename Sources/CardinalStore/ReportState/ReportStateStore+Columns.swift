extension ReportStateStore {
    /// The result of `cardinal.fold_report_state()`, a count named after the function, which ``fold()`` decodes.
    public static let foldColumns = SQLColumns(.function, "cardinal.fold_report_state", [
        SQLColumn("fold_report_state", "bigint"),
    ])

    /// The result of `cardinal.requeue_report_state()`, a count named after the function, which
    /// ``requeue(appID:campaign:)`` decodes.
    public static let requeueColumns = SQLColumns(.function, "cardinal.requeue_report_state", [
        SQLColumn("requeue_report_state", "bigint"),
    ])
}
