extension ControlArmRow {
    /// The result columns of `cardinal.control_arms`, which ``ControlArmsQuery`` selects and decodes.
    public static let sqlColumns = SQLColumns(.function, "cardinal.control_arms", [
        SQLColumn("app_name", "text"),
        SQLColumn("campaign_id", "text"),
        SQLColumn("conversion_event", "text"),
        SQLColumn("window_length", "interval"),
        SQLColumn("variant_id", "text"),
        SQLColumn("control", "boolean"),
        SQLColumn("users", "bigint"),
        SQLColumn("converters", "bigint"),
        SQLColumn("exposed_users", "bigint"),
        SQLColumn("users_in_several_arms", "bigint"),
        SQLColumn("canvas_id", "text"),
    ])
}
