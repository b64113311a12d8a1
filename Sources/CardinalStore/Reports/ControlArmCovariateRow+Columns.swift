extension ControlArmCovariateRow {
    /// The result columns of `cardinal.control_arm_covariates`, which ``ControlArmCovariatesQuery`` selects and
    /// decodes.
    public static let sqlColumns = SQLColumns(.function, "cardinal.control_arm_covariates", [
        SQLColumn("app_name", "text"),
        SQLColumn("campaign_id", "text"),
        SQLColumn("conversion_event", "text"),
        SQLColumn("pre_exposure_window", "interval"),
        SQLColumn("variant_id", "text"),
        SQLColumn("control", "boolean"),
        SQLColumn("users", "bigint"),
        SQLColumn("converters", "bigint"),
        SQLColumn("sum_x", "bigint"),
        SQLColumn("sum_x_squares", "bigint"),
        SQLColumn("sum_xy", "bigint"),
        SQLColumn("canvas_id", "text"),
    ])
}
