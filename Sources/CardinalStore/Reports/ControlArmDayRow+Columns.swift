extension ControlArmDayRow {
    /// The result columns of `cardinal.control_arm_days`, which ``ControlArmDaysQuery`` selects and decodes.
    public static let sqlColumns = SQLColumns(.function, "cardinal.control_arm_days", [
        SQLColumn("day", "date"),
        SQLColumn("variant_id", "text"),
        SQLColumn("control", "boolean"),
        SQLColumn("users", "bigint"),
        SQLColumn("converters", "bigint"),
    ])
}
