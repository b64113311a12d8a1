extension SendArmRow {
    /// The result columns of `cardinal.send_arms`, which ``SendArmsQuery`` selects and decodes.
    public static let sqlColumns = SQLColumns(.function, "cardinal.send_arms", [
        SQLColumn("app_name", "text"),
        SQLColumn("campaign_id", "text"),
        SQLColumn("variant_id", "text"),
        SQLColumn("control", "boolean"),
        SQLColumn("users", "bigint"),
    ])
}
