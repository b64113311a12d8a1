extension ControlArmConversionRow {
    /// The result columns of `cardinal.control_arm_conversions`, which ``ControlArmConversionsQuery`` selects and
    /// decodes.
    public static let sqlColumns = SQLColumns(.function, "cardinal.control_arm_conversions", [
        SQLColumn("app_name", "text"),
        SQLColumn("campaign_id", "text"),
        SQLColumn("ordinal", "smallint"),
        SQLColumn("conversion_event", "text"),
        SQLColumn("window_length", "interval"),
        SQLColumn("variant_id", "text"),
        SQLColumn("control", "boolean"),
        SQLColumn("users", "bigint"),
        SQLColumn("converters", "bigint"),
        SQLColumn("canvas_id", "text"),
    ])
}
